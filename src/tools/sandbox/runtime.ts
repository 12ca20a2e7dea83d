// The command sandbox of the `sandbox` settings: the one home of @anthropic-ai/sandbox-runtime (bubblewrap and
// a filtering HTTP/SOCKS proxy on Linux). Loaded lazily, only when the settings turn the sandbox on, so a
// session without one never pays for it. The runtime is a process-wide singleton (its proxies and
// configuration are module state); agentd starts it at most once per process.
//
// What a sandboxed command gets (the runtime's model, configured from the settings):
//  - reads everywhere except `filesystem.denyRead` (and the runtime's own mandatory denies);
//  - writes only to the working directories, `filesystem.allowWrite` and the runtime's own temp directory,
//    never to `filesystem.denyWrite` nor to the files the runtime protects (shell rc files, .git/hooks, …);
//  - no network namespace of its own: traffic goes through the runtime's proxy, which lets through only the
//    hosts of `network.allowedDomains` (plus WebFetch(domain:…) allow rules) and never `deniedDomains`.
// A command the shell analyser alone approved (read-only) gets no write access at all (defence in depth).
import { platform } from 'node:os';
import type { Logger } from '../../log/logger.js';
import type { CommandSandboxSettings } from './settings.js';

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

export interface CommandSandbox {
  readonly settings: CommandSandboxSettings;
  /** Checks the dependencies and starts the runtime (once); never rejects. */
  start(): Promise<CommandSandboxStatus>;
  /** The status once start() settled; undefined before. */
  current(): CommandSandboxStatus | undefined;
  /** The argv that runs `bash -c script` inside the sandbox (start() must have reported `active`). */
  wrap(req: WrapRequest): Promise<string[]>;
  /** Stops the proxies (process exit). */
  stop(): Promise<void>;
}

export interface CommandSandboxOptions {
  settings: CommandSandboxSettings;
  logger?: Logger;
  /** Loads the runtime (tests may substitute one). */
  load?: () => Promise<Runtime>;
}

export function createCommandSandbox(opts: CommandSandboxOptions): CommandSandbox {
  const s = opts.settings;
  let started: Promise<CommandSandboxStatus> | undefined;
  let status: CommandSandboxStatus | undefined;
  let runtime: Runtime | undefined;
  const load = opts.load ?? (() => import('@anthropic-ai/sandbox-runtime'));
  const config = () => ({
    network: {
      allowedDomains: s.network.allowedDomains,
      deniedDomains: s.network.deniedDomains,
      ...(s.network.strictAllowlist !== undefined ? { strictAllowlist: s.network.strictAllowlist } : {}),
      ...(s.network.allowUnixSockets ? { allowUnixSockets: s.network.allowUnixSockets } : {}),
      ...(s.network.allowAllUnixSockets !== undefined ? { allowAllUnixSockets: s.network.allowAllUnixSockets } : {}),
      ...(s.network.allowLocalBinding !== undefined ? { allowLocalBinding: s.network.allowLocalBinding } : {}),
      ...(s.network.httpProxyPort !== undefined ? { httpProxyPort: s.network.httpProxyPort } : {}),
      ...(s.network.socksProxyPort !== undefined ? { socksProxyPort: s.network.socksProxyPort } : {}),
    },
    filesystem: { denyRead: s.filesystem.denyRead, allowRead: s.filesystem.allowRead, allowWrite: s.filesystem.allowWrite, denyWrite: s.filesystem.denyWrite },
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
          const deps = await m.checkDependenciesAsync();
          if (deps.errors.length) return { state: 'unavailable', reason: deps.errors.join('; ') };
          for (const w of deps.warnings) opts.logger?.warn({ warning: w }, 'sandbox runtime');
          await m.initialize(config());
          return { state: 'active' };
        } catch (e) {
          return { state: 'unavailable', reason: e instanceof Error ? e.message : String(e) };
        }
      })().then((st) => (status = st));
      return started;
    },
    async wrap(req) {
      if (status?.state !== 'active' || !runtime) throw new SandboxUnavailableError(`The sandbox is not running${status?.state === 'unavailable' ? `: ${status.reason}` : ''}; the command was not run.`);
      const allowWrite = req.readOnly ? [...req.writableFiles] : [...req.writableDirs, ...s.filesystem.allowWrite, ...req.writableFiles];
      const custom = { filesystem: { allowWrite, denyWrite: s.filesystem.denyWrite, denyRead: s.filesystem.denyRead, allowRead: s.filesystem.allowRead } };
      const w = await runtime.SandboxManager.wrapWithSandboxArgv(req.script, 'bash', custom, req.signal, req.cwd);
      return w.argv;
    },
    async stop() {
      if (status?.state === 'active') await runtime?.SandboxManager.reset().catch(() => undefined);
    },
  };
}
