// The `sandbox` settings: resolution (what is enforced, what is refused; sandbox-managed.test.ts for the keys that
// depend on the layer), the merge of the settings layers
// (a repository's files can only tighten), and which commands run inside (tools/sandbox/policy.ts).
import { describe, expect, it } from 'vitest';
import { matchesExcluded, placeCommand } from '../../../src/tools/sandbox/policy.js';
import { type CommandSandboxSettings, mergeSandboxBlocks, resolveSandboxSettings } from '../../../src/tools/sandbox/settings.js';

const base: CommandSandboxSettings = {
  failIfUnavailable: true,
  autoAllowBashIfSandboxed: false,
  allowUnsandboxedCommands: true,
  excludedCommands: [],
  network: { allowedDomains: [], deniedDomains: [] },
  filesystem: { allowWrite: [], denyWrite: [], denyRead: [], allowRead: [] },
};

describe('resolveSandboxSettings', () => {
  it('is off without a block or without enabled: true', () => {
    expect(resolveSandboxSettings(undefined)).toEqual({ ok: true, settings: undefined });
    expect(resolveSandboxSettings({ autoAllowBashIfSandboxed: true })).toEqual({ ok: true, settings: undefined });
    expect(resolveSandboxSettings({ enabled: false, credentials: {} })).toEqual({ ok: true, settings: undefined });
  });

  it('enabled: defaults fail closed, WebFetch(domain:…) hosts join the allow-list unless strictAllowlist', () => {
    expect(resolveSandboxSettings({ enabled: true }, ['example.com'])).toEqual({ ok: true, settings: { ...base, network: { allowedDomains: ['example.com'], deniedDomains: [] } } });
    expect(
      resolveSandboxSettings(
        { enabled: true, failIfUnavailable: false, excludedCommands: ['docker'], network: { allowedDomains: ['a.test'], strictAllowlist: true }, filesystem: { allowWrite: ['/w'] } },
        ['example.com'],
      ),
    ).toEqual({
      ok: true,
      settings: {
        ...base,
        failIfUnavailable: false,
        excludedCommands: ['docker'],
        network: { allowedDomains: ['a.test'], deniedDomains: [], strictAllowlist: true },
        filesystem: { allowWrite: ['/w'], denyWrite: [], denyRead: [], allowRead: [] },
      },
    });
  });

  it('refuses an invalid merged block instead of running unsandboxed; the managed keys are honoured, not refused', () => {
    expect(resolveSandboxSettings({ enabled: true, excludedCommands: 'docker' })).toEqual({
      ok: false,
      message: 'The sandbox settings are invalid: sandbox.excludedCommands: Invalid input',
    });
    expect(resolveSandboxSettings({ enabled: true, network: { allowManagedDomainsOnly: true, allowedDomains: ['a.test'] }, filesystem: { allowManagedReadPathsOnly: true, disabled: true } })).toEqual({
      ok: true,
      settings: { ...base, network: { allowedDomains: ['a.test'], deniedDomains: [], allowManagedDomainsOnly: true }, filesystem: { allowWrite: [], denyWrite: [], denyRead: [], allowRead: [], disabled: true } },
    });
  });
});

describe('mergeSandboxBlocks', () => {
  it('merges layers key by key, lists combined, a later scalar winning', () => {
    expect(
      mergeSandboxBlocks([
        { block: { enabled: true, network: { allowedDomains: ['a'] } }, source: 'user', trusted: true },
        { block: { autoAllowBashIfSandboxed: true, network: { allowedDomains: ['b'] } }, source: 'flag', trusted: true },
      ]),
    ).toEqual({
      merged: { enabled: true, autoAllowBashIfSandboxed: true, network: { allowedDomains: ['a', 'b'] } },
      layers: [
        { ignored: [], invalid: [] },
        { ignored: [], invalid: [] },
      ],
    });
  });

  it('a file the host did not write can turn the sandbox on and add denies, nothing else', () => {
    expect(
      mergeSandboxBlocks([
        { block: { enabled: true, allowUnsandboxedCommands: false }, source: 'user', trusted: true },
        {
          block: { enabled: false, allowUnsandboxedCommands: true, autoAllowBashIfSandboxed: true, excludedCommands: ['sh'], network: { allowedDomains: ['evil.test'], deniedDomains: ['x.test'] }, filesystem: { allowWrite: ['/'], denyWrite: ['/p'] } },
          source: 'project',
          trusted: false,
        },
      ]),
    ).toEqual({
      merged: { enabled: true, allowUnsandboxedCommands: false, network: { deniedDomains: ['x.test'] }, filesystem: { denyWrite: ['/p'] } },
      layers: [
        { ignored: [], invalid: [] },
        {
          ignored: [
            'sandbox.enabled: false',
            'sandbox.allowUnsandboxedCommands: true',
            'sandbox.autoAllowBashIfSandboxed: true',
            'sandbox.excludedCommands',
            'sandbox.network.allowedDomains',
            'sandbox.filesystem.allowWrite',
          ],
          invalid: [],
        },
      ],
    });
  });
});

describe('placeCommand', () => {
  const excluded = { ...base, excludedCommands: ['docker', 'npm run build:*'] };
  it('excludedCommands: a matching simple command runs outside', () => {
    expect(matchesExcluded(excluded.excludedCommands, ['docker', 'ps'])).toBe(true);
    expect(matchesExcluded(excluded.excludedCommands, ['dockerd'])).toBe(false);
    expect(matchesExcluded(excluded.excludedCommands, ['npm', 'run', 'build'])).toBe(true);
    expect(matchesExcluded(excluded.excludedCommands, ['npm', 'run', 'test'])).toBe(false);
    expect(placeCommand(excluded, {}, [['cd', 'x'], ['docker', 'build', '.']], 'rule')).toEqual({ inside: false, why: 'excludedCommands' });
    expect(placeCommand(excluded, {}, [['ls']], 'rule')).toEqual({ inside: true });
    // Not parsed: inside.
    expect(placeCommand(excluded, {}, undefined, 'rule')).toEqual({ inside: true });
  });

  it('dangerouslyDisableSandbox runs outside only while allowUnsandboxedCommands allows it', () => {
    expect(placeCommand(base, { dangerouslyDisableSandbox: true }, [['make']], 'host')).toEqual({ inside: false, why: 'dangerouslyDisableSandbox' });
    expect(placeCommand({ ...base, allowUnsandboxedCommands: false }, { dangerouslyDisableSandbox: true }, [['make']], 'host')).toEqual({ inside: true });
  });

  it('a command approved for running sandboxed, or as read-only, cannot leave', () => {
    for (const by of ['sandbox', 'read-only-analysis']) {
      expect(placeCommand(excluded, { dangerouslyDisableSandbox: true }, [['docker', 'ps']], by)).toEqual({ inside: true });
    }
  });
});
