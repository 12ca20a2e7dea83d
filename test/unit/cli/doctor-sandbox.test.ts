// `agentd doctor` reports whether the second wall (the read-only sandbox) is up, for each policy, whether the
// command sandbox of the `sandbox` settings could run, and which ripgrep Grep and that sandbox run.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandSandboxCheck, readOnlySandboxCheck, ripgrepCheck } from '../../../src/cli/subcommands/doctor.js';
import { shippedRipgrep } from '../../../src/tools/ripgrep.js';
import { createCommandSandbox, namespaceProbe } from '../../../src/tools/sandbox/runtime.js';
import { resolveSandboxSettings } from '../../../src/tools/sandbox/settings.js';
import { tempDir } from '../../support/daemon.js';

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
  it('available with bubblewrap, socat, user namespaces (CI installs them) and the ripgrep agentd ships', async () => {
    expect(await commandSandboxCheck({ PATH })).toEqual({ name, status: 'ok', detail: 'available: @anthropic-ai/sandbox-runtime with bubblewrap, socat and ripgrep (shipped with agentd); used when settings enable it' });
  });

  it('says what is missing, as a warning (only settings that enable it fail start-up)', async () => {
    expect(await commandSandboxCheck({ PATH }, runtimeSaying(['socat not installed']))).toEqual({
      name,
      status: 'warn',
      detail: 'unavailable: socat not installed. Settings that enable the sandbox fail start-up (unless sandbox.failIfUnavailable is false)',
    });
    expect(await commandSandboxCheck({ PATH }, runtimeSaying([], ['seccomp not available - unix socket access not restricted']))).toEqual({
      name,
      status: 'warn',
      detail: 'available: @anthropic-ai/sandbox-runtime with bubblewrap, socat and ripgrep (shipped with agentd); used when settings enable it (seccomp not available - unix socket access not restricted)',
    });
  });
});

describe('doctor: ripgrep', () => {
  /** A directory holding a stand-in `rg` that says it is ripgrep 14.1.0. */
  function systemRg(): string {
    const dir = join(tempDir('agentd-rg-'), 'bin');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'rg'), '#!/bin/sh\necho "ripgrep 14.1.0"\n');
    chmodSync(join(dir, 'rg'), 0o755);
    return dir;
  }

  it('names the one agentd ships, with its version, whatever PATH holds', async () => {
    const shipped = await shippedRipgrep();
    expect(shipped).toMatch(/\/node_modules\/@vscode\/ripgrep-linux-[a-z0-9]+\/bin\/rg$/);
    const expected = { name: 'ripgrep', status: 'ok', detail: `ripgrep 15.0.0 (rev 3a612f88b8), shipped with agentd: ${shipped}` };
    expect(await ripgrepCheck({ PATH: '' })).toEqual(expected);
    expect(await ripgrepCheck({ PATH: systemRg() })).toEqual(expected);
  });

  it('USE_BUILTIN_RIPGREP=0 (Claude Code\'s variable): the rg on PATH, and the shipped one when there is none', async () => {
    const dir = systemRg();
    for (const off of ['0', 'false', ' OFF ', 'no']) {
      expect(await ripgrepCheck({ PATH: dir, USE_BUILTIN_RIPGREP: off })).toEqual({ name: 'ripgrep', status: 'ok', detail: `ripgrep 14.1.0, on PATH, as USE_BUILTIN_RIPGREP asks: ${join(dir, 'rg')}` });
    }
    expect((await ripgrepCheck({ PATH: dir, USE_BUILTIN_RIPGREP: '1' })).detail).toMatch(/, shipped with agentd: /);
    expect((await ripgrepCheck({ PATH: '/nonexistent', USE_BUILTIN_RIPGREP: '0' })).detail).toMatch(/, shipped with agentd: /);
  });

  it('without the shipped one (its platform package not installed): the rg on PATH, else a warning', async () => {
    const dir = systemRg();
    const unshipped = (path: string) => ripgrepCheck({ PATH: path }, async (c) => (c.path === dir ? { source: 'system', command: join(dir, 'rg') } : undefined));
    expect(await unshipped(dir)).toEqual({ name: 'ripgrep', status: 'ok', detail: `ripgrep 14.1.0, on PATH (the one agentd ships is not installed for this platform): ${join(dir, 'rg')}` });
    expect(await unshipped('/nonexistent')).toEqual({
      name: 'ripgrep',
      status: 'warn',
      detail:
        'none: the ripgrep agentd ships (@vscode/ripgrep, an optional dependency) is not installed for this platform and rg is not on PATH: Grep uses its built-in JavaScript engine (slower on large trees) and the command sandbox cannot start (install ripgrep, or reinstall agentd with its optional dependencies)',
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
