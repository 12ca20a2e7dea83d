// The one home of the read-only sandbox (see types.ts for the port, bubblewrap.ts for what the jail allows).
// Detection runs once, lazily (the first read-only command, `doctor`, or the permission layer under
// `required`), and is cached: a `bwrap` on PATH is not enough (user namespaces may be disabled, a container's
// seccomp profile may forbid mounts), so detection runs the real argv on `true` and needs exit 0.
import type { Logger } from '../../log/logger.js';
import { type BwrapFeatures, bubblewrapJail } from './bubblewrap.js';
import { type JailScope, type Jailer, READ_ONLY_SANDBOX_POLICIES, type ReadOnlySandbox, type ReadOnlySandboxPolicy, type SandboxStatus } from './types.js';
import { findOnPath } from '../../util/find-on-path.js';

export * from './types.js';
export { bwrapArgs } from './bubblewrap.js';

const DETECT_TIMEOUT_MS = 10_000;

/** AGENTD_READONLY_SANDBOX, or an error message for a value that is not a policy (unset or empty: `auto`). */
export function parseReadOnlySandboxPolicy(v: string | undefined): { ok: true; policy: ReadOnlySandboxPolicy } | { ok: false; message: string } {
  const s = (v ?? '').trim();
  if (s === '') return { ok: true, policy: 'auto' };
  const p = READ_ONLY_SANDBOX_POLICIES.find((x) => x === s);
  return p ? { ok: true, policy: p } : { ok: false, message: `AGENTD_READONLY_SANDBOX must be one of ${READ_ONLY_SANDBOX_POLICIES.join(', ')} (got ${JSON.stringify(s)})` };
}

/** Runs the jail's argv on `true`: the sandbox works when that exits 0 (a bwrap without `--size`: retried without). */
async function probe(bwrap: string): Promise<{ status: SandboxStatus; features: BwrapFeatures }> {
  const sized = await probeOnce(bwrap, { tmpfsSize: true });
  if (sized.state !== 'unavailable' || !sized.reason.includes('--size')) return { status: sized, features: { tmpfsSize: true } };
  return { status: await probeOnce(bwrap, { tmpfsSize: false }), features: { tmpfsSize: false } };
}

async function probeOnce(bwrap: string, features: BwrapFeatures): Promise<SandboxStatus> {
  const { spawn } = await import('node:child_process');
  const argv = bubblewrapJail(bwrap, { cwd: '/', readable: [] }, features).argv(['true']);
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], timeout: DETECT_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin' } });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 2000) stderr += d;
    });
    child.on('error', (e) => resolve({ state: 'unavailable', reason: `${bwrap} did not start: ${e.message}` }));
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ state: 'active', backend: 'bubblewrap', path: bwrap });
      else resolve({ state: 'unavailable', reason: `${bwrap} cannot create the sandbox (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n')[0] || 'no message'}` });
    });
  });
}

export interface ReadOnlySandboxOptions {
  policy: ReadOnlySandboxPolicy;
  /** The PATH to look for `bwrap` on. */
  path: string | undefined;
  /** The user's home (credential files under it are hidden when a working directory contains it). */
  home?: string;
  /** More paths to hide from jailed commands when a working directory contains them (agentd's config dir). */
  hidden?: readonly string[];
  logger?: Logger;
  /** Use this bwrap instead of the one on PATH (tests: simulate a missing or broken binary). */
  bwrap?: string;
}

export function createReadOnlySandbox(opts: ReadOnlySandboxOptions): ReadOnlySandbox {
  let detected: Promise<SandboxStatus> | undefined;
  let features: BwrapFeatures = { tmpfsSize: true };
  const status = (): Promise<SandboxStatus> => {
    if (opts.policy === 'off') return Promise.resolve({ state: 'off' });
    detected ??= (async (): Promise<SandboxStatus> => {
      const bwrap = opts.bwrap ?? findOnPath('bwrap', opts.path);
      let s: SandboxStatus = { state: 'unavailable', reason: 'bubblewrap (bwrap) is not installed' };
      if (bwrap) ({ status: s, features } = await probe(bwrap));
      if (s.state === 'unavailable') {
        // Logged once: the detection is cached for the life of the process.
        const effect =
          opts.policy === 'required'
            ? 'read-only commands will ask before they run (AGENTD_READONLY_SANDBOX=required)'
            : 'read-only commands run unconfined, guarded by the shell analyser only (set AGENTD_READONLY_SANDBOX=required to ask instead)';
        opts.logger?.warn({ reason: s.reason }, `read-only sandbox unavailable: ${effect}`);
      }
      return s;
    })();
    return detected;
  };
  const withHome = (scope: JailScope): JailScope => ({
    ...scope,
    ...(opts.home !== undefined && scope.home === undefined ? { home: opts.home } : {}),
    ...(opts.hidden?.length ? { hidden: [...opts.hidden, ...(scope.hidden ?? [])] } : {}),
  });
  return {
    policy: opts.policy,
    status,
    async jailer(): Promise<Jailer | undefined> {
      const s = await status();
      if (s.state === 'active') return (scope) => bubblewrapJail(s.path, withHome(scope), features);
      if (s.state === 'unavailable' && opts.policy === 'required') {
        throw new Error(`The read-only sandbox is required (AGENTD_READONLY_SANDBOX=required) but unavailable: ${s.reason}`);
      }
      return undefined;
    },
    async autoApprovalBlocked(): Promise<string | undefined> {
      if (opts.policy !== 'required') return undefined;
      const s = await status();
      return s.state === 'unavailable' ? `Read-only commands run unasked only inside the read-only sandbox (AGENTD_READONLY_SANDBOX=required), which is unavailable: ${s.reason}` : undefined;
    },
  };
}
