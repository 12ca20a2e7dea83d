// Summarises V8 .cpuprofile files (from `--cpu-prof <dir>` runs): self time per function, mapped back to the
// TypeScript sources through the bundles' source maps (dist/agentd.js, and the lazily loaded agentd-tools.js and
// agentd-sdk.js), so a hot spot names a src/ file and line.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod/mini';

const CallFrame = z.object({ functionName: z.string(), url: z.string(), lineNumber: z.number(), columnNumber: z.number() });
const CpuProfile = z.object({
  nodes: z.array(z.object({ id: z.number(), callFrame: CallFrame, children: z.optional(z.array(z.number())) })),
  samples: z.array(z.number()),
  timeDeltas: z.array(z.number()),
});

const MapPayload = z.object({
  version: z.number(),
  sources: z.array(z.string()),
  names: z.array(z.string()),
  mappings: z.string(),
  file: z.optional(z.string()),
  sourceRoot: z.optional(z.string()),
  sourcesContent: z.optional(z.array(z.nullable(z.string()))),
});

export interface HotSpot {
  selfMs: number;
  share: number;
  fn: string;
  where: string;
}

const BUNDLES = ['agentd.js', 'agentd-tools.js', 'agentd-sdk.js'];

type Maps = Map<string, SourceMap>;

function loadMaps(root: string): Maps {
  const maps: Maps = new Map();
  for (const name of BUNDLES) {
    const bundle = join(root, 'dist', name);
    const mapPath = `${bundle}.map`;
    if (!existsSync(mapPath)) continue;
    const r = MapPayload.safeParse(JSON.parse(readFileSync(mapPath, 'utf8')));
    if (!r.success) continue; // positions then stay in bundle coordinates
    const m = r.data;
    const payload = {
      version: m.version,
      sources: m.sources,
      names: m.names,
      mappings: m.mappings,
      file: m.file ?? name,
      sourceRoot: m.sourceRoot ?? '',
      sourcesContent: (m.sourcesContent ?? []).map((c) => c ?? ''),
    };
    maps.set(bundle, new SourceMap(payload));
  }
  return maps;
}

function locate(root: string, maps: Maps, url: string, line: number, col: number): string {
  if (url === '') return '';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const map = maps.get(path);
  if (map && line >= 0) {
    const e = map.findEntry(line, col);
    if ('originalSource' in e && e.originalSource) {
      const src = e.originalSource.startsWith('file://') ? fileURLToPath(e.originalSource) : join(root, 'dist', e.originalSource);
      return `${relative(root, src)}:${e.originalLine + 1}`;
    }
  }
  return `${path.startsWith('/') ? relative(root, path) : path}:${line + 1}`;
}

export interface ProfileSummary {
  /** Sampled time that was not idle (JS, GC, native), the base of every share. */
  busyMs: number;
  idleMs: number;
  /** Top functions by self time. */
  spots: HotSpot[];
  /** Self time per source file (node internals grouped by module), top first. */
  files: Array<{ selfMs: number; share: number; file: string }>;
  /** Functions of agentd's own code and its dependencies by inclusive (self + callees) time. */
  inclusive: HotSpot[];
}

/** Self time per function and per file in one profile (idle samples excluded). */
export function hotSpots(file: string, root: string, limit = 15): ProfileSummary {
  const r = CpuProfile.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!r.success) throw new Error(`${file} is not a V8 CPU profile`);
  const p = r.data;
  const map = loadMaps(root);
  const byId = new Map(p.nodes.map((n) => [n.id, n.callFrame]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = new Map<number, { key: string; fn: string; where: string }>();
  const describe = (id: number): { key: string; fn: string; where: string } | undefined => {
    const hit = keyOf.get(id);
    if (hit) return hit;
    const cf = byId.get(id);
    if (!cf) return undefined;
    const where = locate(root, map, cf.url, cf.lineNumber, cf.columnNumber);
    const fn = cf.functionName || '(anonymous)';
    const d = { key: `${fn}@${where}`, fn, where };
    keyOf.set(id, d);
    return d;
  };
  const incl = new Map<string, { ms: number; fn: string; where: string }>();
  const self = new Map<string, { ms: number; fn: string; where: string }>();
  const perFile = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const id = p.samples[i];
    const ms = (p.timeDeltas[i] ?? 0) / 1000;
    const cf = id === undefined ? undefined : byId.get(id);
    if (!cf) continue;
    if (cf.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    busy += ms;
    const d = describe(id ?? -1);
    if (!d) continue;
    const { key, fn, where } = d;
    const cur = self.get(key) ?? { ms: 0, fn, where };
    cur.ms += ms;
    self.set(key, cur);
    // Inclusive: every distinct function on the stack (recursion counted once), own code and packages only.
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const a = describe(n);
      if (!a || seen.has(a.key) || !/^(src|protocol|node_modules)\//.test(a.where)) continue;
      seen.add(a.key);
      const e = incl.get(a.key) ?? { ms: 0, fn: a.fn, where: a.where };
      e.ms += ms;
      incl.set(a.key, e);
    }
    const fileKey = where === '' ? fn : where.replace(/:\d+$/, '');
    perFile.set(fileKey, (perFile.get(fileKey) ?? 0) + ms);
  }
  const share = (ms: number): number => (busy ? ms / busy : 0);
  const spots = [...self.values()]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, limit)
    .map((s) => ({ selfMs: s.ms, share: share(s.ms), fn: s.fn, where: s.where }));
  const files = [...perFile.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([f, ms]) => ({ selfMs: ms, share: share(ms), file: f }));
  const inclusive = [...incl.values()]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, limit)
    .map((s) => ({ selfMs: s.ms, share: share(s.ms), fn: s.fn, where: s.where }));
  return { busyMs: busy, idleMs: idle, spots, files, inclusive };
}

/** A markdown section per profile in `dir`, largest first (the long measured runs). */
export function summarizeProfiles(dir: string, root: string, limit = 15): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  const out: string[] = [];
  for (const f of files) {
    const s = hotSpots(f, root, limit);
    out.push(`### ${f}\n\n${s.busyMs.toFixed(0)} ms busy, ${s.idleMs.toFixed(0)} ms idle; shares are of busy time.\n`);
    out.push('| self ms | share | function | where |', '|--:|--:|---|---|');
    for (const x of s.spots) out.push(`| ${x.selfMs.toFixed(1)} | ${(x.share * 100).toFixed(1)}% | ${x.fn} | ${x.where} |`);
    out.push('', '| self ms | share | file |', '|--:|--:|---|');
    for (const x of s.files) out.push(`| ${x.selfMs.toFixed(1)} | ${(x.share * 100).toFixed(1)}% | ${x.file} |`);
    out.push('', '| inclusive ms | share | function (own code and packages) | where |', '|--:|--:|---|---|');
    for (const x of s.inclusive) out.push(`| ${x.selfMs.toFixed(1)} | ${(x.share * 100).toFixed(1)}% | ${x.fn} | ${x.where} |`);
    out.push('');
  }
  return out.join('\n');
}
