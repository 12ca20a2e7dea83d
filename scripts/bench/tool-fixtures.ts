// Shared set-up of the tool benchmarks: a scenario that answers a trigger text with tool calls and the tool
// results with a short text, fixture files, permissions, and a reference timing of a shell command alone.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Scenario, ScriptedBlock } from '../../src/model/scripted/scenario.js';
import type { Place, StartOptions } from './session.js';
import type { Subject } from './subjects.js';
import type { BenchContext } from './types.js';

/**
 * Allow rules rather than bypassPermissions: the same flags work for every subject (Claude Code refuses
 * --dangerously-skip-permissions when run as root), and no permission prompt can interfere with the timing.
 */
export const ALLOW_ARGS = ['--allowedTools', 'Read,Bash'] as const;

/** `trigger` (in a user text) gets `blocks` (tool calls); any tool result then gets a short text. */
export function toolScenario(description: string, trigger: string, blocks: ScriptedBlock[], chunkSize?: number): Scenario {
  return {
    description,
    rules: [
      { name: 'tools', when: { lastUserText: trigger, hasToolResults: false }, reply: { content: blocks, ...(chunkSize ? { chunkSize } : {}) } },
      { name: 'after tools', when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
    fallback: { content: [{ type: 'text', text: 'ok' }] },
  };
}

export const read = (path: string): ScriptedBlock => ({ type: 'tool_use', name: 'Read', input: { file_path: path } });
export const bash = (command: string): ScriptedBlock => ({ type: 'tool_use', name: 'Bash', input: { command } });

/** A work dir shared by the subjects of one benchmark (they run one after the other) holding `files`. */
export function fixtureDir(ctx: BenchContext, prefix: string, files: Record<string, string>): string {
  const dir = ctx.dir(`${prefix}-cwd-`);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

export function writeScenario(ctx: BenchContext, scenario: Scenario): string {
  const file = join(ctx.dir('scenario-'), 'scenario.json');
  writeFileSync(file, JSON.stringify(scenario));
  return file;
}

/** Own HOME and TMPDIR (spill files are removed with the run's temporary root), the shared work dir. */
export function toolPlace(ctx: BenchContext, bench: string, subject: Subject, cwd: string): { where: Place; tmp: string } {
  return { where: { home: ctx.dir(`${bench}-${subject.id}-home-`), cwd }, tmp: ctx.dir(`${bench}-${subject.id}-tmp-`) };
}

export function toolStart(subject: Subject, baseUrl: string, scenarioFile: string, tmp: string, extra: readonly string[] = []): StartOptions {
  return {
    extraArgs: [...ALLOW_ARGS, ...extra],
    env: { TMPDIR: tmp },
    ...(subject.usesLoopback ? { baseUrl } : { scenarioFile }),
  };
}

/** ms from spawning `bash -c command` to its exit (cwd `cwd`). */
export function timeShell(command: string, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const c = spawn('bash', ['-c', command], { cwd, stdio: 'ignore', env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } });
    c.on('error', reject);
    c.on('exit', (code) => {
      if (code !== 0) reject(new Error(`bash -c ${command} exited ${String(code)}`));
      else resolve(performance.now() - t0);
    });
  });
}
