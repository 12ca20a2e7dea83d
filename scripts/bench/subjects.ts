// What is measured: agentd through its real Anthropic adapter (HTTP to the loopback server), agentd with its
// in-process scripted model (no HTTP: the daemon's own overhead), and the real Claude Code binary against the
// same loopback server. Each subject knows how to build the command line and environment of one process.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SpawnSpec } from './proc.js';

export const STREAM_ARGS = ['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'] as const;

export type SubjectId = 'agentd' | 'agentd-scripted' | 'agentd-baseline' | 'agentd-native' | 'claude';

export interface LaunchOptions {
  home: string;
  cwd: string;
  /** Loopback server URL (subjects that talk HTTP). */
  baseUrl?: string;
  /** Scenario file for the scripted model (default builtin:echo). */
  scenarioFile?: string;
  extraArgs?: readonly string[];
}

export interface Subject {
  id: SubjectId;
  /** Column/row label in the report. */
  label: string;
  /** Whether the subject needs a loopback server (`baseUrl`) for model calls. */
  usesLoopback: boolean;
  spec(o: LaunchOptions): SpawnSpec;
}

function baseEnv(home: string): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
  };
}

/**
 * How agentd is started. By default exactly as the SDKs start it: bin/agentd executed directly, so its shell
 * preamble applies the start-up memory settings (GLIBC_TUNABLES, --max-semi-space-size). `nodeOptions` ride in
 * NODE_OPTIONS (e.g. the forced-GC preload). `profile` flags (--cpu-prof, not allowed in NODE_OPTIONS) make it
 * `node <flags> bin/agentd`: CPU profiles only, the memory settings are then not applied.
 */
export interface AgentdLaunch {
  nodeOptions?: readonly string[];
  profile?: readonly string[];
}

function agentdSpec(root: string, launch: AgentdLaunch, args: readonly string[], env: Record<string, string>): Omit<SpawnSpec, 'cwd'> {
  const entry = join(root, 'bin/agentd');
  const nodeOptions: Record<string, string> = launch.nodeOptions?.length ? { NODE_OPTIONS: launch.nodeOptions.join(' ') } : {};
  return launch.profile?.length
    ? { command: process.execPath, args: [...launch.profile, entry, ...args], env: { ...env, ...nodeOptions } }
    : { command: entry, args: [...args], env: { ...env, ...nodeOptions } };
}

export function agentdSubject(root: string, launch: AgentdLaunch = {}): Subject {
  return {
    id: 'agentd',
    label: 'agentd (loopback HTTP)',
    usesLoopback: true,
    spec: (o) => ({
      ...agentdSpec(root, launch, [...STREAM_ARGS, ...(o.extraArgs ?? [])], {
        ...baseEnv(o.home),
        ANTHROPIC_API_KEY: 'sk-bench',
        ANTHROPIC_BASE_URL: o.baseUrl ?? 'http://127.0.0.1:9',
      }),
      cwd: o.cwd,
    }),
  };
}

export function agentdScriptedSubject(root: string, launch: AgentdLaunch = {}): Subject {
  return {
    id: 'agentd-scripted',
    label: 'agentd (in-process scripted)',
    usesLoopback: false,
    spec: (o) => ({
      ...agentdSpec(root, launch, [...STREAM_ARGS, '--model-provider', 'scripted', '--scenario', o.scenarioFile ?? 'builtin:echo', ...(o.extraArgs ?? [])], baseEnv(o.home)),
      cwd: o.cwd,
    }),
  };
}

/**
 * Another build of agentd (`--baseline <checkout>`: a worktree of an earlier commit, built), started as
 * agentdScriptedSubject starts this one: for side-by-side rows of the same run (startup-ab).
 */
export function agentdBaselineSubject(root: string, label: string): Subject {
  return { ...agentdScriptedSubject(root), id: 'agentd-baseline', label: `agentd ${label} (in-process scripted)` };
}

/** The native executable (scripts/build-native.mjs) against the loopback server, environment as agentdSubject's. */
export function agentdNativeSubject(executable: string): Subject {
  return {
    id: 'agentd-native',
    label: 'agentd native executable (loopback HTTP)',
    usesLoopback: true,
    spec: (o) => ({
      command: executable,
      args: [...STREAM_ARGS, ...(o.extraArgs ?? [])],
      cwd: o.cwd,
      env: { ...baseEnv(o.home), ANTHROPIC_API_KEY: 'sk-bench', ANTHROPIC_BASE_URL: o.baseUrl ?? 'http://127.0.0.1:9' },
    }),
  };
}

export const CLAUDE_REL = 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude';

export function claudeSubject(root: string, version: string): Subject {
  const bin = join(root, CLAUDE_REL);
  return {
    id: 'claude',
    label: `claude ${version}`,
    usesLoopback: true,
    spec: (o) => ({
      command: bin,
      args: [...STREAM_ARGS, ...(o.extraArgs ?? [])],
      cwd: o.cwd,
      env: {
        ...baseEnv(o.home),
        ANTHROPIC_API_KEY: 'sk-bench',
        ANTHROPIC_BASE_URL: o.baseUrl ?? 'http://127.0.0.1:9',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    }),
  };
}

/** The Claude Code subject, or why it cannot run here. */
export function probeClaude(root: string): { ok: true; subject: Subject } | { ok: false; reason: string } {
  const bin = join(root, CLAUDE_REL);
  if (!existsSync(bin)) return { ok: false, reason: `${CLAUDE_REL} is not installed` };
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: '/nonexistent' } });
  if (r.error) return { ok: false, reason: `cannot run ${CLAUDE_REL}: ${r.error.message}` };
  if (r.status !== 0) return { ok: false, reason: `${CLAUDE_REL} --version exited ${String(r.status)}: ${r.stderr.trim().slice(0, 200)}` };
  const version = /(\d+\.\d+\.\d+)/.exec(r.stdout)?.[1] ?? r.stdout.trim();
  return { ok: true, subject: claudeSubject(root, version) };
}
