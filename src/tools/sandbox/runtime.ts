// The command sandbox of the `sandbox` settings: the one home of @anthropic-ai/sandbox-runtime (bubblewrap and
// a filtering HTTP/SOCKS proxy on Linux). Loaded lazily, only when the settings turn the sandbox on, so a
// session without one never pays for it. The runtime is a process-wide singleton (its proxies and
// configuration are module state); agentd starts it at most once per process.
//
// What a sandboxed command gets (the runtime's model, configured from the settings):
//  - reads everywhere except `filesystem.denyRead` (and the runtime's own mandatory denies);
//  - writes only to the working directories, `filesystem.allowWrite` and the runtime's own temp directory,
//    never to `filesystem.denyWrite` nor to the files the runtime protects (shell rc files, .git/hooks, …);
//  - a network namespace of its own: traffic goes through the runtime's proxy, which lets through only the
//    hosts of `network.allowedDomains` (plus WebFetch(domain:…) allow rules) and never `deniedDomains`; with no
//    host allowed at all, the namespace has no way out (no proxy relays: offline.ts);
//  - `credentials`: files it cannot read and variables it does not get, or sees masked (a sentinel the proxy
//    swaps for the real value on the way out to the allowed hosts); `network.tlsTerminate`: the proxy terminates
//    TLS with a CA the command trusts (credentials.ts).
// A command the shell analyser alone approved (read-only) gets no write access at all (defence in depth), even
// under `filesystem.disabled` (which otherwise leaves sandboxed commands the host's filesystem unconfined).
// Under managed `allowManagedDomainsOnly`, a host off the list is refused with Claude Code's reason.
// The runtime scans the working directory with ripgrep: the rg tools/ripgrep.ts finds (the one agentd ships
// first), unless a settings file the host wrote names one (`sandbox.ripgrep`).
import { homedir, platform } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Logger } from '../../log/logger.js';
import type { CommandSandboxSettings, RipgrepCommand } from './settings.js';
import { NO_RIPGREP, type Ripgrep, findRipgrep } from '../ripgrep.js';
import { withoutRelays } from './offline.js';
import { MANDATORY_DENY_SEARCH_DEPTH, bwrapArgv, createWrapCache, missingMountTargets, removeMountPoints } from './wrap-cache.js';

type Runtime = typeof import('@anthropic-ai/sandbox-runtime');

/** The sandbox was required (enabled and failIfUnavailable) and cannot run here. */
export class SandboxUnavailableError extends Error {
  override readonly name = 'SandboxUnavailableError';
  readonly code = 'sandbox_required_unavailable';
}

export type CommandSandboxStatus = { state: 'active' } | { state: 'unavailable'; reason: string };

export interface WrapRequest {
  /** The script for `bash -c`. */
  script: string;
  cwd: string;
  /** The directories the command may write (the session's working directories). */
  writableDirs: readonly string[];
  /** Single files the command must be able to write (the shell's cwd file, a background task's output). */
  writableFiles: readonly string[];
  /** Approved by the shell analyser alone: nothing but `writableFiles` is writable. */
  readOnly: boolean;
  signal?: AbortSignal;
}

/** A wrapped command: its argv, and `release` to call once the process has exited (mount points are removed
 *  when no sandboxed command runs any more: removing one under a running sandbox would unmount its deny). */
export interface WrappedCommand {
  argv: string[];
  release: () => void;
  /**
   * After release: what the runtime's proxy refused this command (its violation lines, e.g. `deny
   * network-outbound host:443 (host is not on the allow list)`). Every command carries the same attribution key
   * (one script, a reused invocation), so they are told apart by time: only a command during which no other
   * sandboxed command ran gets lines, those recorded between its wrap and its release; any other gets none.
   */
  violations: () => string[];
  /**
   * Variables to take out of the wrapped command's environment: those `credentials.envVars` names (denied or
   * masked). The runtime unsets or masks them inside from its own process's environment; one that only the
   * command's environment holds (a settings `env` value) would otherwise pass in unmasked.
   */
  withheldEnv: readonly string[];
}

export interface CommandSandbox {
  readonly settings: CommandSandboxSettings;
  /** Checks the dependencies and starts the runtime (once); never rejects. */
  start(): Promise<CommandSandboxStatus>;
  /** The status once start() settled; undefined before. */
  current(): CommandSandboxStatus | undefined;
  /** The argv that runs `bash -c script` inside the sandbox (start() must have reported `active`). */
  wrap(req: WrapRequest): Promise<WrappedCommand>;
  /** Stops the proxies (process exit). */
  stop(): Promise<void>;
}

export interface CommandSandboxOptions {
  settings: CommandSandboxSettings;
  logger?: Logger;
  /** Loads the runtime (tests may substitute one). */
  load?: () => Promise<Runtime>;
  /**
   * The directory the runtime scans for the files it protects: this process's working directory (the runtime
   * reads it itself). Given, wraps are reused while nothing they were made from changed (wrap-cache.ts);
   * omitted, every command is wrapped afresh.
   */
  workingDirectory?: () => string;
  /** Finds the rg the runtime scans with (default: the one agentd ships; the caller passes tools/ripgrep.ts
   *  findRipgrep with USE_BUILTIN_RIPGREP and its PATH). Not used when the settings name one (`sandbox.ripgrep`). */
  ripgrep?: () => Promise<Ripgrep | undefined>;
}

export function createCommandSandbox(opts: CommandSandboxOptions): CommandSandbox {
  const s = opts.settings;
  let started: Promise<CommandSandboxStatus> | undefined;
  let status: CommandSandboxStatus | undefined;
  let runtime: Runtime | undefined;
  const load = opts.load ?? (() => import('@anthropic-ai/sandbox-runtime'));
  const cache = createWrapCache();
  // No host can ever be let through the proxy: none allowed, no external proxy deciding instead, and agentd gives
  // the runtime no ask callback that could allow one (refuseUnmanagedHost never does), no per-command lists and no
  // configuration update (the settings are fixed at start-up). Then the relays to the proxy carry nothing, and
  // commands run without them (offline.ts; bubblewrap's invocation, so Linux only).
  const socat = s.socatPath ?? 'socat';
  const offline = platform() === 'linux' && s.network.allowedDomains.length === 0 && s.network.httpProxyPort === undefined && s.network.socksProxyPort === undefined && BARE_WORD.test(socat);
  let offlineShapeWarned = false;
  /** bubblewrap's argv for a fresh wrap: without the relays when offline and the shape is the one checked. */
  const invocation = (rt: Runtime, argv: readonly string[], script: string): string[] => {
    const words = bwrapArgv(argv);
    if (!offline) return words;
    const m = rt.SandboxManager;
    const sockets = [m.getLinuxHttpSocketPath(), m.getLinuxSocksSocketPath()].filter((p): p is string => p !== undefined);
    const out = withoutRelays(words, { sockets, command: script, socat });
    if (out) return out;
    if (!offlineShapeWarned) {
      offlineShapeWarned = true;
      opts.logger?.warn({ runtime: '@anthropic-ai/sandbox-runtime' }, 'the sandbox invocation is not the shape agentd checked: commands keep the proxy relays (slower, same confinement)');
    }
    return words;
  };
  // Sandboxed commands between wrap and exit, and what is to be removed once there are none.
  let active = 0;
  // The sandboxed commands between wrap and release, each marked once another ran beside it (violations).
  const live = new Set<{ overlapped: boolean }>();
  let pendingRuntimeCleanups = 0;
  const pendingStubs = new Set<string>();
  const cleanUp = (rt: Runtime): void => {
    // The runtime counts its own wraps and removes its mount points at the last of them.
    for (; pendingRuntimeCleanups > 0; pendingRuntimeCleanups--) rt.SandboxManager.cleanupAfterCommand();
    removeMountPoints(pendingStubs);
    pendingStubs.clear();
  };
  const withheldEnv = (s.credentials?.envVars ?? []).map((e) => e.name);
  // A masked file's fake is rewritten by every wrap from the file as it is then (and a file missing at one wrap
  // is not masked at all): a reused wrap would show a stale sentinel, or none. So no reuse with a mask.
  const maskedFiles = (s.credentials?.files ?? []).some((f) => f.mode === 'mask');
  const credentialPaths = (s.credentials?.files ?? []).map((f) => f.path);
  const config = (ripgrep: RipgrepCommand | undefined) => ({
    network: {
      allowedDomains: s.network.allowedDomains,
      deniedDomains: s.network.deniedDomains,
      ...(s.network.strictAllowlist !== undefined ? { strictAllowlist: s.network.strictAllowlist } : {}),
      ...(s.network.allowUnixSockets ? { allowUnixSockets: s.network.allowUnixSockets } : {}),
      ...(s.network.allowAllUnixSockets !== undefined ? { allowAllUnixSockets: s.network.allowAllUnixSockets } : {}),
      ...(s.network.allowLocalBinding !== undefined ? { allowLocalBinding: s.network.allowLocalBinding } : {}),
      ...(s.network.httpProxyPort !== undefined ? { httpProxyPort: s.network.httpProxyPort } : {}),
      ...(s.network.socksProxyPort !== undefined ? { socksProxyPort: s.network.socksProxyPort } : {}),
      ...(s.network.tlsTerminate ? { tlsTerminate: s.network.tlsTerminate } : {}),
    },
    ...(s.credentials ? { credentials: s.credentials } : {}),
    ...(ripgrep ? { ripgrep } : {}),
    // Its default, named so that the wrap cache fingerprints the same depth the runtime walks.
    mandatoryDenySearchDepth: MANDATORY_DENY_SEARCH_DEPTH,
    filesystem: { denyRead: s.filesystem.denyRead, allowRead: s.filesystem.allowRead, allowWrite: s.filesystem.allowWrite, denyWrite: s.filesystem.denyWrite, ...(s.filesystem.disabled ? { disabled: true } : {}) },
    ...(s.enableWeakerNestedSandbox !== undefined ? { enableWeakerNestedSandbox: s.enableWeakerNestedSandbox } : {}),
    ...(s.allowNestedUserNamespaces !== undefined ? { allowNestedUserNamespaces: s.allowNestedUserNamespaces } : {}),
    ...(s.bwrapPath !== undefined ? { bwrapPath: s.bwrapPath } : {}),
    ...(s.socatPath !== undefined ? { socatPath: s.socatPath } : {}),
  });
  return {
    settings: s,
    current: () => status,
    start() {
      started ??= (async (): Promise<CommandSandboxStatus> => {
        try {
          runtime = await load();
          const m = runtime.SandboxManager;
          if (!m.isSupportedPlatform()) return { state: 'unavailable', reason: `the sandbox does not support this platform (${platform()})` };
          const rg = await ripgrepFor(s.ripgrep, opts.ripgrep ?? shippedOnly);
          // ripgrep is needed on Linux only (the runtime's scan for the files it protects).
          if (rg === undefined && platform() === 'linux') return { state: 'unavailable', reason: NO_RIPGREP };
          const deps = await m.checkDependenciesAsync(rg);
          if (deps.errors.length) return { state: 'unavailable', reason: deps.errors.join('; ') };
          // The runtime checks for the programs, not for the namespaces they need: without user namespaces
          // every command would fail, so that is found out here (fail closed at start-up, clear reason).
          const ns = await namespaceProbe(s.bwrapPath ?? 'bwrap', s.enableWeakerNestedSandbox === true);
          if (ns !== undefined) return { state: 'unavailable', reason: ns };
          for (const w of deps.warnings) opts.logger?.warn({ warning: w }, 'sandbox runtime');
          await m.initialize(config(rg), s.network.allowManagedDomainsOnly ? refuseUnmanagedHost : undefined);
          return { state: 'active' };
        } catch (e) {
          return { state: 'unavailable', reason: e instanceof Error ? e.message : String(e) };
        }
      })().then((st) => (status = st));
      return started;
    },
    async wrap(req) {
      if (status?.state !== 'active' || !runtime) throw new SandboxUnavailableError(`The sandbox is not running${status?.state === 'unavailable' ? `: ${status.reason}` : ''}; the command was not run.`);
      const rt = runtime;
      const dirs = req.readOnly ? [] : [...req.writableDirs, ...s.filesystem.allowWrite];
      const allowWrite = [...dirs, ...req.writableFiles];
      // The runtime takes `disabled` from a per-command filesystem (false when absent): a read-only command keeps its rules.
      const custom = { filesystem: { allowWrite, denyWrite: s.filesystem.denyWrite, denyRead: s.filesystem.denyRead, allowRead: s.filesystem.allowRead, disabled: s.filesystem.disabled === true && !req.readOnly } };
      active++;
      const me = { overlapped: live.size > 0 };
      for (const other of live) other.overlapped = true;
      live.add(me);
      const since = Date.now();
      let seen: string[] = [];
      let fresh = false;
      let stubs: string[] = [];
      let released = false;
      const release = (): void => {
        if (released) return;
        released = true;
        live.delete(me);
        // With no host allowed there is no proxy (offline.ts), so nothing to ask.
        if (!me.overlapped && !offline) seen = proxyDenials(rt, req.script, since);
        active--;
        if (fresh) pendingRuntimeCleanups++;
        for (const p of stubs) pendingStubs.add(p);
        if (active === 0) cleanUp(rt);
      };
      try {
        const root = opts.workingDirectory?.();
        const inputs = root !== undefined && !maskedFiles ? { root, namedPaths: [...dirs, ...s.filesystem.denyWrite, ...s.filesystem.denyRead, ...s.filesystem.allowRead, ...credentialPaths].map((p) => absolute(p, root)), files: req.writableFiles } : undefined;
        // The script is part of the invocation (agentd's is a constant: the command travels in the environment).
        const key = JSON.stringify({ script: req.script, root, readOnly: req.readOnly, dirs, files: req.writableFiles.map((f) => dirname(f)) });
        const reused = inputs ? cache.reuse(key, inputs) : undefined;
        if (reused) {
          req.signal?.throwIfAborted();
          stubs = missingMountTargets(reused);
          return { argv: reused, release, violations: () => seen, withheldEnv };
        }
        const pre = inputs ? cache.prepare(inputs) : undefined;
        const w = await rt.SandboxManager.wrapWithSandboxArgv(req.script, 'bash', custom, req.signal, req.cwd);
        fresh = true;
        const words = invocation(rt, w.argv, req.script);
        return { argv: inputs ? cache.store(key, inputs, pre, words) : words, release, violations: () => seen, withheldEnv };
      } catch (e) {
        release();
        throw e;
      }
    },
    async stop() {
      cache.dispose();
      if (status?.state === 'active') await runtime?.SandboxManager.reset().catch(() => undefined);
    },
  };
}

/**
 * The runtime's question for a host on no list, under managed allowManagedDomainsOnly: always no, with the reason
 * Claude Code 2.1.330 gives the model in `<sandbox_violations>` (measured). It never allows, so a session with no
 * host allowed still runs without the proxy relays (offline.ts).
 */
const refuseUnmanagedHost = async (): Promise<{ allow: false; reason: string }> => ({
  allow: false,
  reason: "the organization's managed allowlist does not include this host, and only managed settings can add it",
});

const shippedOnly = (): Promise<Ripgrep | undefined> => findRipgrep({ preferSystem: false, path: undefined });

/** The rg the runtime gets: the settings' own, else the one found. */
async function ripgrepFor(named: RipgrepCommand | undefined, find: () => Promise<Ripgrep | undefined>): Promise<RipgrepCommand | undefined> {
  if (named) return named;
  const rg = await find();
  return rg ? { command: rg.command } : undefined;
}

/** The violation lines the runtime recorded for `script` since `since` (ms): its proxy's denials. */
function proxyDenials(rt: Runtime, script: string, since: number): string[] {
  try {
    return rt.SandboxManager.getSandboxViolationStore()
      .getViolationsForCommand(script)
      .filter((v) => v.timestamp.getTime() >= since)
      .map((v) => v.line);
  } catch {
    // Diagnostics only: a store that cannot be read reports nothing.
    return [];
  }
}

/** A configured path as the runtime reads it: `~` is the home directory, a relative path is under `root`. */
function absolute(p: string, root: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return resolve(homedir(), p.slice(2));
  return resolve(root, p);
}

/** A word the runtime's quote() leaves bare (its socat path is matched as written). */
const BARE_WORD = /^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@+,-]*$/;

const PROBE_TIMEOUT_MS = 5000;

/**
 * Whether bubblewrap can create the namespaces the runtime asks for (user, pid, net, a fresh /proc unless the
 * weaker nested mode binds the host's): undefined when it can, else why not.
 */
export async function namespaceProbe(bwrap: string, weakerNested: boolean): Promise<string | undefined> {
  const { spawn } = await import('node:child_process');
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--unshare-user', '--unshare-pid', '--unshare-net', ...(weakerNested ? ['--bind', '/proc', '/proc'] : ['--proc', '/proc']), '--', 'true'];
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: PROBE_TIMEOUT_MS });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d: string) => {
      if (stderr.length < 2000) stderr += d;
    });
    child.on('error', (e) => resolve(`${bwrap} did not start: ${e.message}`));
    child.on('close', (code, signal) => resolve(code === 0 ? undefined : `bubblewrap cannot create user, pid and network namespaces here (${signal ?? `exit ${code}`}): ${stderr.trim().split('\n')[0] || 'no message'}`));
  });
}

/**
 * What `agentd doctor` reports: whether the command sandbox could run here, without starting it (no proxies).
 * `load` substitutes the runtime (tests).
 */
export async function probeCommandSandbox(
  load: () => Promise<Runtime> = () => import('@anthropic-ai/sandbox-runtime'),
  ripgrep: () => Promise<Ripgrep | undefined> = shippedOnly,
): Promise<{ ok: true; warnings: string[] } | { ok: false; reason: string }> {
  try {
    const m = (await load()).SandboxManager;
    if (!m.isSupportedPlatform()) return { ok: false, reason: `the sandbox does not support this platform (${platform()})` };
    const rg = await ripgrepFor(undefined, ripgrep);
    if (rg === undefined && platform() === 'linux') return { ok: false, reason: NO_RIPGREP };
    const deps = await m.checkDependenciesAsync(rg);
    if (deps.errors.length) return { ok: false, reason: deps.errors.join('; ') };
    const ns = await namespaceProbe('bwrap', false);
    return ns === undefined ? { ok: true, warnings: deps.warnings } : { ok: false, reason: ns };
  } catch (e) {
    return { ok: false, reason: `@anthropic-ai/sandbox-runtime does not load: ${e instanceof Error ? e.message : String(e)}` };
  }
}
