// Instructions, not milliseconds: what the daemon executes from exec until it writes its `initialize` answer,
// counted by valgrind's callgrind. On a small shared machine the wall-clock start-up rows move with the load and
// with the day (bare `node -e 0` doubled between two days here: BENCHMARKS.md); an instruction count barely moves
// whatever else runs (V8's random hash seed is the main spread), so it is the row that says what a project's
// commands or a list of MCP servers add to a start. Slow (each run executes under valgrind), hence few runs.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { stdioServersArgs } from './mcp.js';
import { BenchProc, type SpawnSpec } from './proc.js';
import { writeFullProject } from './project-commands.js';
import { writeRepoProject } from './repo-project.js';
import { initialize, place, using } from './session.js';
import { summarize } from './stats.js';
import type { Subject } from './subjects.js';
import type { BenchContext, Benchmark, Row } from './types.js';

// --trace-children: bin/agentd is a shell script that execs node. The MCP servers the daemon starts after its
// answer are not followed (they would only slow the run down).
const VALGRIND = ['valgrind', '--tool=callgrind', '--smc-check=all-non-file', '--trace-children=yes', '--trace-children-skip-by-arg=/*/mcp-stdio-server.mjs'] as const;

/** Millions of instructions in callgrind's first dump for `pid`: the one taken before the answer was written. */
function firstDump(dir: string, pid: number): number {
  const file = join(dir, `cg.${pid}.1`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`callgrind wrote no dump ${file} (there are: ${readdirSync(dir).join(', ') || 'none'})`);
  }
  const m = /^(?:summary|totals): (\d+)/m.exec(text);
  if (!m) throw new Error(`no totals in ${file}`);
  return Number(m[1]) / 1e6;
}

/**
 * Millions of instructions of `spec`'s process (after bin/agentd's exec of node) until it writes its initialize
 * answer. callgrind dumps its counts before every uv_try_write (libuv's write to a pipe, which the answer on stdout
 * is the first of: agentd writes nothing else to a pipe before it, and its stderr here is quiet, --log-level
 * error); the first dump is the figure. Taken inside the process, not when this harness reads the answer: the
 * warm-up that follows the answer is never counted, however slowly valgrind runs.
 */
async function instructionsToInitialize(ctx: BenchContext, spec: SpawnSpec): Promise<number> {
  const dir = ctx.dir('init-instructions-cg-');
  const proc = new BenchProc({ ...spec, command: VALGRIND[0], args: [...VALGRIND.slice(1), '--dump-before=uv_try_write', `--callgrind-out-file=${dir}/cg.%p`, spec.command, ...spec.args, '--log-level', 'error'] });
  return using(proc, async (p) => {
    await initialize(p, 120_000);
    const pid = p.pid;
    if (pid === undefined) throw new Error('valgrind did not start');
    const ir = firstDump(dir, pid);
    rmSync(dir, { recursive: true, force: true });
    return ir;
  });
}

/** Millions of instructions of `node -e 0`, start to exit: what any Node process executes before its own code. */
function nodeInstructions(ctx: BenchContext): number {
  const dir = ctx.dir('init-instructions-node-');
  mkdirSync(dir, { recursive: true });
  execFileSync(VALGRIND[0], [...VALGRIND.slice(1), `--callgrind-out-file=${dir}/cg.out`, process.execPath, '-e', '0'], { stdio: 'ignore', env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } });
  const m = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(dir, 'cg.out'), 'utf8'));
  if (!m) throw new Error('callgrind wrote no totals for node -e 0');
  return Number(m[1]) / 1e6;
}

const REPO_METRIC = 'instructions to initialize answered, untrusted repository with 20 files of each kind';
const REPO_TRUSTED_METRIC = 'instructions to initialize answered, the same repository trusted (--trust-workspace)';

export const initInstructions: Benchmark = {
  name: 'init-instructions',
  description:
    'instructions executed (valgrind callgrind, millions) from the exec of node until agentd writes its `initialize` answer: an empty project, the 10 stdio MCP servers of mcp-stdio-10, the project of init-project-commands (50 commands, 20 skills, a 3-level CLAUDE.md chain), and a repository with 20 files of each kind (commands, skills, agents, output styles, rules, CLAUDE.md imports; 20 hooks, 20 env variables and 20 .mcp.json servers: scripts/bench/repo-project.ts), untrusted and trusted (--trust-workspace), those two also for the `--baseline <dir>` build when given, alternating (agentd with its scripted model); `node -e 0` start to exit for reference. Independent of the machine\'s load, unlike the wall-clock rows; ±2% run to run (V8 picks a random hash seed at start-up, 4–7 M instructions).',
  async run(ctx) {
    try {
      execFileSync(VALGRIND[0], ['--version'], { stdio: 'ignore' });
    } catch {
      throw new Error('init-instructions needs valgrind on PATH: apt-get install valgrind');
    }
    const runs = ctx.quick ? 1 : 3;
    const [subject, baseline] = ctx.subjects(['agentd-scripted', 'agentd-baseline']) as [Subject, Subject | undefined];
    const where = place(ctx, 'init-instructions', subject);
    const project = writeFullProject(ctx.dir('init-instructions-project-'));
    const repo = writeRepoProject(ctx.dir('init-instructions-repo-'));
    const sources = ['--setting-sources', 'user,project,local'];
    const cases: Array<{ metric: string; cwd: string; extra: string[]; subject: Subject }> = [
      { metric: 'instructions to initialize answered, empty project', cwd: where.cwd, extra: sources, subject },
      { metric: 'instructions to initialize answered, 10 stdio MCP servers', cwd: where.cwd, extra: [...stdioServersArgs(ctx.root), ...sources], subject },
      { metric: 'instructions to initialize answered, 50 commands + 20 skills + 3 CLAUDE.md', cwd: project, extra: sources, subject },
      { metric: REPO_METRIC, cwd: repo, extra: sources, subject },
      ...(baseline ? [{ metric: REPO_METRIC, cwd: repo, extra: sources, subject: baseline }] : []),
      // Trusted, everything in it is read and set up (hooks, env, servers): the other end of the trust decision.
      { metric: REPO_TRUSTED_METRIC, cwd: repo, extra: [...sources, '--trust-workspace'], subject },
      ...(baseline ? [{ metric: REPO_TRUSTED_METRIC, cwd: repo, extra: [...sources, '--trust-workspace'], subject: baseline }] : []),
    ];
    const samples = cases.map(() => [] as number[]);
    const node: number[] = [];
    // Alternating, as everywhere: a drift (a rebuilt cache, say) shows in every case alike.
    for (let r = 0; r < runs; r++) {
      node.push(nodeInstructions(ctx));
      for (const [i, c] of cases.entries()) {
        const spec = c.subject.spec({ home: where.home, cwd: c.cwd, extraArgs: c.extra });
        samples[i]?.push(await instructionsToInitialize(ctx, spec));
      }
    }
    const row = (metric: string, subjectLabel: string, xs: number[], note?: string): Row => {
      const s = summarize(xs);
      return { bench: 'init-instructions', metric, subject: subjectLabel, unit: 'M instr', n: s.n, nLabel: 'runs', median: s.median, p90: s.p90, ...(note ? { note } : {}) };
    };
    const empty = summarize(samples[0] ?? []).median;
    // This build's figure for the same metric, for a baseline row's note.
    const here = (metric: string): number => summarize(samples[cases.findIndex((c) => c.metric === metric && c.subject === subject)] ?? []).median;
    return [
      row('instructions, start to exit', 'node -e 0', node),
      ...cases.map((c, i) => {
        const xs = samples[i] ?? [];
        const m = summarize(xs).median;
        const extra =
          i === 0
            ? undefined
            : c.subject === baseline
              ? `this build: ${(((here(c.metric) - m) / m) * 100).toFixed(1)}% against this baseline`
              : `${c.metric.replace(/^.*answered, /, '')}: ${(m - empty).toFixed(1)} M more than the empty project (${(((m - empty) / empty) * 100).toFixed(1)}%)`;
        return row(c.metric, c.subject.label, xs, extra);
      }),
    ];
  },
};
