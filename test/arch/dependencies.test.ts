// The architecture, checked so it cannot silently erode: dependency direction, one home per third-party runtime
// dependency, stdout discipline, file size.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import ts from 'typescript';
import { ROOT } from '../support/daemon.js';

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

const sources = [...files(join(ROOT, 'src')), ...files(join(ROOT, 'protocol/src'))].map((p) => ({
  path: relative(ROOT, p),
  text: readFileSync(p, 'utf8'),
}));

function imports(text: string, opts: { types?: boolean } = {}): string[] {
  const out: string[] = [];
  if (opts.types) for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s+type\s[^'"]*?from\s+['"]([^'"]+)['"]/g)) out.push(m[1] as string);
  // Type-only imports vanish at build time, so they do not count as runtime dependencies.
  const re = /(?:^|\n)\s*(?:import|export)\s(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const m of text.matchAll(re)) out.push((m[1] ?? m[2] ?? m[3]) as string);
  return out;
}

/** Resolves a relative import to a repo path prefix like "src/control/x". */
function target(from: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  return relative(ROOT, join(ROOT, from, '..', spec));
}

const CORE = ['src/session/', 'src/agents/', 'src/compaction/', 'src/executor/', 'src/tools/', 'src/permissions/', 'src/hooks/', 'src/model/', 'src/thread/', 'src/store/'];
const ADAPTERS = ['protocol/', 'src/transport/', 'src/control/', 'src/cli/'];

/**
 * The direction inside the core: which core modules each may import (type-only imports included). The agent
 * loop (session) sits on the executor; the executor on tools, permissions and hooks; the thread (conversation,
 * events, transcript port) below all of them, so neither the executor nor the store knows the loop it serves.
 * agents/ is above the session: the Agent tool runs nested loops. The ports the executor calls and permissions
 * and hooks implement are declared in tools/call-ports.ts, below all three: no exception to the direction.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  agents: ['session', 'compaction', 'executor', 'tools', 'permissions', 'hooks', 'thread', 'model', 'util', 'log'],
  session: ['compaction', 'executor', 'tools', 'permissions', 'hooks', 'thread', 'model', 'util', 'log'],
  compaction: ['hooks', 'thread', 'model', 'util', 'log'],
  executor: ['tools', 'permissions', 'hooks', 'thread', 'model', 'util', 'log'],
  mcp: ['tools', 'permissions', 'thread', 'model', 'util', 'log'],
  hooks: ['permissions', 'tools', 'thread', 'model', 'util', 'log'],
  permissions: ['tools', 'thread', 'model', 'util', 'log'],
  store: ['thread', 'model', 'util', 'log'],
  tools: ['thread', 'model', 'util', 'log'],
  thread: ['model', 'util'],
  model: ['util', 'log'],
  log: ['util'],
  util: [],
};
/** thread/ may name the permission mode type, nothing else of permissions/. */
const THREAD_EXTRA = new Set(['src/thread/events.ts → src/permissions/modes.js']);

describe('architecture', () => {
  it('inside the core, dependencies point down (session → executor → tools/permissions/hooks → thread → model/util)', () => {
    const bad: string[] = [];
    for (const f of sources) {
      const from = /^src\/([a-z-]+)\//.exec(f.path)?.[1];
      if (from === undefined || !(from in MAY_IMPORT)) continue;
      for (const i of imports(f.text, { types: true })) {
        const t = target(f.path, i);
        const to = /^src\/([a-z-]+)\//.exec(t)?.[1];
        if (to === undefined || to === from || !(to in MAY_IMPORT)) continue;
        const edge = `${f.path} → ${t}`;
        if (MAY_IMPORT[from]?.includes(to) || THREAD_EXTRA.has(edge)) continue;
        bad.push(edge);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the core never imports the protocol, transport, control or cli layers', () => {
    const bad: string[] = [];
    for (const f of sources.filter((s) => CORE.some((c) => s.path.startsWith(c)))) {
      for (const i of imports(f.text, { types: true })) {
        const t = target(f.path, i);
        if (ADAPTERS.some((a) => t.startsWith(a))) bad.push(`${f.path} → ${t}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the protocol package depends on nothing but zod', () => {
    const bad = sources
      .filter((s) => s.path.startsWith('protocol/'))
      .flatMap((f) => imports(f.text).filter((i) => !i.startsWith('./') && i !== 'zod/mini').map((i) => `${f.path} → ${i}`));
    expect(bad).toEqual([]);
  });

  it('the daemon evaluates only the run-time part of the protocol (protocol/src/runtime.ts and what it imports)', () => {
    // Values from anywhere else in protocol/ would put the outbound frame schemas into the start-up bundle, and
    // building them costs milliseconds of every start (runtime.ts). Types may come from index.ts: they are erased.
    const valueImports = (text: string): string[] =>
      [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?!type\s)(?:\{([^}]*)\}|[^'"]*?)\s*from\s+['"]([^'"]+)['"]/g)]
        .filter((m) => m[1] === undefined || m[1].split(',').some((n) => n.trim() !== '' && !n.trim().startsWith('type ')))
        .map((m) => m[2] as string);
    const bad = sources
      .filter((s) => s.path.startsWith('src/'))
      .flatMap((f) => valueImports(f.text).map((i) => ({ f: f.path, t: target(f.path, i) })))
      .filter(({ t }) => t.startsWith('protocol/') && t !== 'protocol/src/runtime.js')
      .map(({ f, t }) => `${f} → ${t}`);
    expect(bad).toEqual([]);
    // The closure of runtime.ts inside protocol/.
    const seen = new Set<string>();
    const todo = ['protocol/src/runtime.ts'];
    while (todo.length) {
      const p = todo.pop() as string;
      if (seen.has(p)) continue;
      seen.add(p);
      const text = sources.find((s) => s.path === p)?.text ?? '';
      for (const i of valueImports(text)) if (i.startsWith('./')) todo.push(target(p, i).replace(/\.js$/, '.ts'));
    }
    expect([...seen].sort()).toEqual([
      'protocol/src/assistant-errors.ts',
      'protocol/src/control.ts',
      'protocol/src/envelope.ts',
      'protocol/src/hooks.ts',
      'protocol/src/inbound.ts',
      'protocol/src/mcp-auth.ts',
      'protocol/src/permissions.ts',
      'protocol/src/runtime.ts',
      'protocol/src/user-frame.ts',
    ]);
  });

  it('the transport knows bytes and lines only', () => {
    const bad = sources
      .filter((s) => s.path.startsWith('src/transport/'))
      .flatMap((f) => imports(f.text).filter((i) => !i.startsWith('./') && !i.startsWith('node:')).map((i) => `${f.path} → ${i}`));
    expect(bad).toEqual([]);
  });

  it('each third-party runtime dependency has one home', () => {
    const homes: Record<string, (p: string) => boolean> = {
      pino: (p) => p === 'src/log/logger.ts',
      execa: (p) => p === 'src/tools/process.ts',
      // The provider entries export the error classes of the SDK copy bundled with their provider's SDK.
      '@anthropic-ai/sdk': (p) => p === 'src/model/anthropic.ts' || /^src\/model\/providers\/(bedrock|vertex|foundry)-entry\.ts$/.test(p),
      '@anthropic-ai/bedrock-sdk': (p) => p === 'src/model/providers/bedrock-entry.ts',
      '@anthropic-ai/vertex-sdk': (p) => p === 'src/model/providers/vertex-entry.ts',
      '@anthropic-ai/foundry-sdk': (p) => p === 'src/model/providers/foundry-entry.ts',
      undici: (p) => p === 'src/net/undici.ts',
      'web-tree-sitter': (p) => p.startsWith('src/tools/shell/'),
      ajv: (p) => p === 'src/tools/json-schema.ts',
      // Loaded lazily, only when the `sandbox` settings turn the command sandbox on.
      '@anthropic-ai/sandbox-runtime': (p) => p === 'src/tools/sandbox/runtime.ts',
      // The ripgrep agentd ships: one module chooses the rg Grep, the sandbox and doctor run.
      '@vscode/ripgrep': (p) => p === 'src/tools/ripgrep.ts',
      // Required by the converter's worker thread on the first HTML page WebFetch reads.
      turndown: (p) => p === 'src/tools/builtin/html-markdown.ts',
      tinyglobby: (p) => p.startsWith('src/tools/'),
      picomatch: (p) => p === 'src/permissions/match.ts' || p.startsWith('src/tools/'),
      // zod is the schema language for external input: the wire, tool inputs, and files agentd reads.
      'zod/mini': (p) => p.startsWith('protocol/') || p.startsWith('src/mcp/') || p.startsWith('src/tools/') || p.startsWith('src/agents/') || p.startsWith('src/model/scripted/') || p === 'src/config/settings-schema.ts' || p === 'src/hooks/output.ts' || p.startsWith('src/store/'),
    };
    const bad: string[] = [];
    for (const f of sources) {
      for (const i of imports(f.text)) {
        if (i.startsWith('@modelcontextprotocol/sdk') && !f.path.startsWith('src/mcp/')) bad.push(`${f.path} imports ${i}`);
        const home = homes[i] ?? (i === 'zod' ? () => false : undefined);
        if (home && !home(f.path)) bad.push(`${f.path} imports ${i}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('the core never reads the process: configuration is passed in (src/config resolves it once)', () => {
    // Allowed, documented: process.pid (whose children are ours) and process.kill (signalling tool process groups)
    // are operations on this process, not configuration.
    const ALLOWED = new Set(['pid', 'kill']);
    const bad: string[] = [];
    for (const f of sources.filter((s) => CORE.some((c) => s.path.startsWith(c)))) {
      const code = f.text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      for (const m of code.matchAll(/(?<![\w.$/])process\.(\w+)/g)) if (!ALLOWED.has(m[1] as string)) bad.push(`${f.path}: process.${m[1]}`);
      for (const m of code.matchAll(/(?<![\w.$])process\s*\[/g)) bad.push(`${f.path}: ${m[0]}`);
    }
    expect(bad).toEqual([]);
  });

  it('environment variables are read in one module (src/config/env.ts) on the composition side', () => {
    // The launcher (runs before Node's options are set) and main.ts (hands the environment to src/config) are
    // the documented exceptions. A read through a helper (`truthy(env, 'NAME')`) counts as a read.
    const EXEMPT = ['src/config/env.ts', 'src/cli/launch.ts', 'src/cli/native.ts', 'src/cli/main.ts'];
    const SCOPE = ['src/cli/', 'src/config/', 'src/control/', 'src/net/'];
    const bad = sources
      .filter((s) => SCOPE.some((d) => s.path.startsWith(d)) && !EXEMPT.some((e) => s.path.startsWith(e)))
      .flatMap((f) => [...f.text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').matchAll(/\benv\[['"]([A-Z_0-9]+)['"]\]|\(env, ['"][A-Z_0-9]+['"]|process\.env\b/g)].map((m) => `${f.path}: ${m[0]}`));
    expect(bad).toEqual([]);
  });

  it('nothing writes to stdout behind the transport’s back', () => {
    const bad = sources.filter((s) => /console\.(log|info|debug|table)\(|process\.stdout\.write/.test(s.text) && s.path !== 'src/cli/stdio.ts').map((s) => s.path);
    expect(bad).toEqual([]);
  });

  it('files stay small enough to read', () => {
    const big = sources.filter((s) => s.text.split('\n').length > 450).map((s) => `${s.path} (${s.text.split('\n').length} lines)`);
    expect(big).toEqual([]);
  });
  it('module-level zod schemas are built on first use (z.lazy), not while the bundle loads', () => {
    // Building every schema as its module was evaluated cost ~8 ms of CPU before `initialize` (BENCHMARKS.md,
    // 2026-11-27): most are for requests, transcripts, hook answers or tools that a start never sees. z.lazy
    // builds one small wrapper and the schema at its first parse; parsing and the JSON Schema are unchanged.
    const eager: string[] = [];
    for (const f of sources.filter((s) => s.text.includes("from 'zod/mini'"))) {
      const sf = ts.createSourceFile(f.path, f.text, ts.ScriptTarget.Latest, true);
      for (const st of sf.statements) {
        if (!ts.isVariableStatement(st)) continue;
        for (const d of st.declarationList.declarations) {
          const init = d.initializer;
          if (init && ts.isCallExpression(init) && /^z\.[a-zA-Z]+$/.test(init.expression.getText(sf)) && init.expression.getText(sf) !== 'z.lazy') eager.push(`${f.path}: ${d.name.getText(sf)}`);
        }
      }
    }
    expect(eager).toEqual([]);
  });
});
