// `agentd doctor` reports whether the second wall (the read-only sandbox) is up, for each policy, and whether the
// command sandbox of the `sandbox` settings could run.
import { describe, expect, it } from 'vitest';
import { commandSandboxCheck, readOnlySandboxCheck } from '../../../src/cli/subcommands/doctor.js';
import { createCommandSandbox, namespaceProbe } from '../../../src/tools/sandbox/runtime.js';
import { resolveSandboxSettings } from '../../../src/tools/sandbox/settings.js';

type Runtime = typeof import('@anthropic-ai/sandbox-runtime');
/** A runtime that reports `errors` and `warnings` from its dependency check. */
const runtimeSaying = (errors: string[], warnings: string[] = []) => async () =>
  ({ SandboxManager: { isSupportedPlatform: () => true, checkDependenciesAsync: async () => ({ errors, warnings }), initialize: async () => undefined } }) as unknown as Runtime;

const PATH = process.env['PATH'] ?? '/usr/bin:/bin';

describe('doctor: Read-only sandbox', () => {
  it('active with bubblewrap (CI installs it)', async () => {
    const c = await readOnlySandboxCheck({ PATH });
    expect(c).toMatchObject({ name: 'Read-only sandbox', status: 'ok' });
    expect(c.detail).toMatch(/^active: bubblewrap \(\/.*bwrap\); read-only commands run without network, writes or reads outside the working directories$/);
  });

  it('missing bubblewrap: a warning under auto, a failure under required; off is a warning; a bad value fails', async () => {
    const missing = { bwrap: '/nonexistent/bwrap' };
    const reason = '/nonexistent/bwrap did not start: spawn /nonexistent/bwrap ENOENT';
    expect(await readOnlySandboxCheck({ PATH }, missing)).toEqual({
      name: 'Read-only sandbox',
      status: 'warn',
      detail: `${reason}: read-only commands run unconfined, guarded by the shell analyser only (install bubblewrap)`,
    });
    expect(await readOnlySandboxCheck({ PATH, AGENTD_READONLY_SANDBOX: 'required' }, missing)).toEqual({
      name: 'Read-only sandbox',
      status: 'fail',
      detail: `${reason}: AGENTD_READONLY_SANDBOX=required, so read-only commands ask before they run`,
    });
    expect(await readOnlySandboxCheck({ PATH: '/nonexistent', AGENTD_READONLY_SANDBOX: 'auto' })).toEqual({
      name: 'Read-only sandbox',
      status: 'warn',
      detail: 'bubblewrap (bwrap) is not installed: read-only commands run unconfined, guarded by the shell analyser only (install bubblewrap)',
    });
    expect(await readOnlySandboxCheck({ PATH, AGENTD_READONLY_SANDBOX: 'off' })).toEqual({
      name: 'Read-only sandbox',
      status: 'warn',
      detail: 'off (AGENTD_READONLY_SANDBOX=off): read-only commands run unconfined, guarded by the shell analyser only',
    });
    expect(await readOnlySandboxCheck({ PATH, AGENTD_READONLY_SANDBOX: 'yes' })).toEqual({
      name: 'Read-only sandbox',
      status: 'fail',
      detail: 'AGENTD_READONLY_SANDBOX must be one of required, auto, off (got "yes") (the daemon refuses to start)',
    });
  });
});

describe('doctor: Command sandbox', () => {
  const name = 'Command sandbox (sandbox settings)';
  it('available with bubblewrap, socat, ripgrep and user namespaces (CI installs them)', async () => {
    expect(await commandSandboxCheck()).toEqual({ name, status: 'ok', detail: 'available: @anthropic-ai/sandbox-runtime with bubblewrap, socat and ripgrep; used when settings enable it' });
  });

  it('says what is missing, as a warning (only settings that enable it fail start-up)', async () => {
    expect(await commandSandboxCheck(runtimeSaying(['socat not installed', 'ripgrep (rg) not found']))).toEqual({
      name,
      status: 'warn',
      detail: 'unavailable: socat not installed; ripgrep (rg) not found. Settings that enable the sandbox fail start-up (unless sandbox.failIfUnavailable is false)',
    });
    expect(await commandSandboxCheck(runtimeSaying([], ['seccomp not available - unix socket access not restricted']))).toEqual({
      name,
      status: 'warn',
      detail: 'available: @anthropic-ai/sandbox-runtime with bubblewrap, socat and ripgrep; used when settings enable it (seccomp not available - unix socket access not restricted)',
    });
  });
});

describe('the command sandbox without user namespaces', () => {
  it('is found out at start, with the reason, before any command (fail closed)', async () => {
    // A bubblewrap that cannot create namespaces, as on a kernel without unprivileged user namespaces.
    expect(await namespaceProbe('/bin/false', false)).toBe('bubblewrap cannot create user, pid and network namespaces here (exit 1): no message');
    const r = resolveSandboxSettings({ enabled: true, bwrapPath: '/bin/false' });
    if (!r.ok || !r.settings) throw new Error('settings');
    const sandbox = createCommandSandbox({ settings: r.settings, load: runtimeSaying([]) });
    expect(await sandbox.start()).toEqual({ state: 'unavailable', reason: 'bubblewrap cannot create user, pid and network namespaces here (exit 1): no message' });
    await expect(sandbox.wrap({ script: 's', cwd: '/', writableDirs: [], writableFiles: [], readOnly: true })).rejects.toThrow(
      'The sandbox is not running: bubblewrap cannot create user, pid and network namespaces here (exit 1): no message; the command was not run.',
    );
    expect(await namespaceProbe('bwrap', false)).toBeUndefined();
  });
});
