// What the command sandbox hands @anthropic-ai/sandbox-runtime (tools/sandbox/runtime.ts), through a stand-in
// runtime that records it: the rg to scan with (the one tools/ripgrep.ts finds, or the settings' own), the
// credentials and TLS termination of the settings, the variables taken out of a command's environment, and no
// reuse of a wrap while a file is masked (its fake is rewritten by every wrap); filesystem.disabled for every
// command but a read-only one, and Claude Code's refusal of a host under managed allowManagedDomainsOnly.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_RIPGREP, type Ripgrep, shippedRipgrep } from '../../../src/tools/ripgrep.js';
import { createCommandSandbox } from '../../../src/tools/sandbox/runtime.js';
import { resolveSandboxSettings } from '../../../src/tools/sandbox/settings.js';
import { tempDir } from '../../support/daemon.js';

type Runtime = typeof import('@anthropic-ai/sandbox-runtime');

function recordingRuntime() {
  const seen = { deps: [] as unknown[], config: undefined as unknown, ask: undefined as unknown, customs: [] as unknown[], wraps: 0 };
  const runtime = {
    SandboxManager: {
      isSupportedPlatform: () => true,
      checkDependenciesAsync: async (rg: unknown) => (seen.deps.push(rg), { errors: [], warnings: [] }),
      initialize: async (c: unknown, ask?: unknown) => void ((seen.config = c), (seen.ask = ask)),
      cleanupAfterCommand: () => undefined,
      reset: async () => undefined,
      getLinuxHttpSocketPath: () => '/tmp/h.sock',
      getLinuxSocksSocketPath: () => '/tmp/s.sock',
      // bubblewrap's words as the runtime quotes them, binding the writable places (what the wrap cache expects).
      wrapWithSandboxArgv: async (script: string, _shell: string, custom: { filesystem: { allowWrite: string[] } }) => {
        seen.wraps++;
        seen.customs.push(custom);
        const binds = custom.filesystem.allowWrite.flatMap((p) => ['--bind', p, p]).join(' ');
        return { argv: ['bash', '-c', `bwrap --ro-bind / / ${binds} -- /usr/bin/bash -c ${script}`], env: {} };
      },
    },
  };
  return { seen, load: async () => runtime as unknown as Runtime };
}

const settings = (block: Record<string, unknown>) => {
  const r = resolveSandboxSettings({ enabled: true, ...block });
  if (!r.ok || !r.settings) throw new Error('settings');
  return r.settings;
};

/** The parts of the runtime's configuration these tests are about. */
const picked = (c: unknown) => {
  const o = c as { ripgrep?: unknown; credentials?: unknown; network: { tlsTerminate?: unknown; allowedDomains: unknown } };
  return { ripgrep: o.ripgrep, credentials: o.credentials, tlsTerminate: o.network.tlsTerminate, allowedDomains: o.network.allowedDomains };
};

describe('the command sandbox and the runtime', () => {
  it('scans with the rg found (the shipped one by default), checks for that one, and passes the settings\' credentials and TLS termination', async () => {
    const { seen, load } = recordingRuntime();
    const credentials = { files: [{ path: '/secret', mode: 'deny' }], envVars: [{ name: 'TOKEN', mode: 'mask', injectHosts: ['api.example.com'] }, { name: 'NPM_TOKEN', mode: 'deny' }] };
    const s = settings({ network: { allowedDomains: ['api.example.com'], tlsTerminate: {} }, credentials });
    const sandbox = createCommandSandbox({ settings: s, load });
    expect(await sandbox.start()).toEqual({ state: 'active' });
    const rg = { command: await shippedRipgrep() };
    expect(seen.deps).toEqual([rg]);
    expect(picked(seen.config)).toEqual({ ripgrep: rg, credentials, tlsTerminate: {}, allowedDomains: ['api.example.com'] });
    const w = await sandbox.wrap({ script: 's', cwd: '/', writableDirs: [], writableFiles: [], readOnly: false });
    // Both names leave the command's own environment: the runtime sets the mask's sentinel itself.
    expect(w.withheldEnv).toEqual(['TOKEN', 'NPM_TOKEN']);
    w.release();
  });

  it('the settings\' own rg (sandbox.ripgrep) over the one found; none found on Linux: unavailable, saying what was looked for', async () => {
    const named = recordingRuntime();
    const found: Ripgrep = { source: 'system', command: '/usr/local/bin/rg' };
    const a = createCommandSandbox({ settings: settings({ ripgrep: { command: '/opt/rg', args: ['--no-config'] } }), load: named.load, ripgrep: async () => found });
    expect(await a.start()).toEqual({ state: 'active' });
    expect({ deps: named.seen.deps, ripgrep: picked(named.seen.config).ripgrep }).toEqual({ deps: [{ command: '/opt/rg', args: ['--no-config'] }], ripgrep: { command: '/opt/rg', args: ['--no-config'] } });
    const system = recordingRuntime();
    expect(await createCommandSandbox({ settings: settings({}), load: system.load, ripgrep: async () => found }).start()).toEqual({ state: 'active' });
    expect(picked(system.seen.config).ripgrep).toEqual({ command: '/usr/local/bin/rg' });
    const none = recordingRuntime();
    expect(await createCommandSandbox({ settings: settings({}), load: none.load, ripgrep: async () => undefined }).start()).toEqual({ state: 'unavailable', reason: NO_RIPGREP });
    expect(none.seen.config).toBeUndefined();
  });

  it('a wrap is reused with denies only; with a masked file every command is wrapped afresh', async () => {
    const root = tempDir('agentd-cred-cache-');
    const file = join(tempDir('agentd-cred-files-'), 'cwd');
    writeFileSync(file, '');
    const twice = async (credentials: unknown): Promise<number> => {
      const { seen, load } = recordingRuntime();
      const sandbox = createCommandSandbox({ settings: settings({ credentials, network: { tlsTerminate: {} } }), load, workingDirectory: () => root });
      await sandbox.start();
      for (let i = 0; i < 2; i++) (await sandbox.wrap({ script: 's', cwd: root, writableDirs: [root], writableFiles: [file], readOnly: false })).release();
      await sandbox.stop();
      return seen.wraps;
    };
    expect(await twice({ files: [{ path: join(root, 'key'), mode: 'deny' }], envVars: [{ name: 'A', mode: 'mask' }] })).toBe(1);
    expect(await twice({ files: [{ path: join(root, 'key'), mode: 'mask' }] })).toBe(2);
  });

  it('filesystem.disabled: the runtime gets it, and every command but a read-only one runs without filesystem rules', async () => {
    const { seen, load } = recordingRuntime();
    const sandbox = createCommandSandbox({ settings: settings({ filesystem: { denyRead: ['/s'], disabled: true } }), load });
    await sandbox.start();
    expect((seen.config as { filesystem: unknown }).filesystem).toEqual({ denyRead: ['/s'], allowRead: [], allowWrite: [], denyWrite: [], disabled: true });
    (await sandbox.wrap({ script: 's', cwd: '/w', writableDirs: ['/w'], writableFiles: ['/f'], readOnly: false })).release();
    (await sandbox.wrap({ script: 's', cwd: '/w', writableDirs: ['/w'], writableFiles: ['/f'], readOnly: true })).release();
    expect(seen.customs).toEqual([
      { filesystem: { allowWrite: ['/w', '/f'], denyWrite: [], denyRead: ['/s'], allowRead: [], disabled: true } },
      { filesystem: { allowWrite: ['/f'], denyWrite: [], denyRead: ['/s'], allowRead: [], disabled: false } },
    ]);
    const on = recordingRuntime();
    const confined = createCommandSandbox({ settings: settings({}), load: on.load });
    await confined.start();
    (await confined.wrap({ script: 's', cwd: '/w', writableDirs: ['/w'], writableFiles: [], readOnly: false })).release();
    expect({ config: (on.seen.config as { filesystem: unknown }).filesystem, customs: on.seen.customs }).toEqual({
      config: { denyRead: [], allowRead: [], allowWrite: [], denyWrite: [] },
      customs: [{ filesystem: { allowWrite: ['/w'], denyWrite: [], denyRead: [], allowRead: [], disabled: false } }],
    });
  });

  it("under managed allowManagedDomainsOnly a host on no list is refused with Claude Code's reason; otherwise nothing is asked", async () => {
    const locked = recordingRuntime();
    await createCommandSandbox({ settings: settings({ network: { allowManagedDomainsOnly: true, allowedDomains: ['corp.test'] } }), load: locked.load }).start();
    const ask = locked.seen.ask as (p: { host: string; port: number }) => Promise<unknown>;
    expect(await ask({ host: 'evil.test', port: 443 })).toEqual({ allow: false, reason: "the organization's managed allowlist does not include this host, and only managed settings can add it" });
    const open = recordingRuntime();
    await createCommandSandbox({ settings: settings({ network: { allowedDomains: ['a.test'] } }), load: open.load }).start();
    expect(open.seen.ask).toBeUndefined();
  });
});
