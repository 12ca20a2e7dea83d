// The sandbox keys whose meaning depends on the layer that sets them (tools/sandbox/managed.ts), as Claude Code
// 2.1.330 applies them (test/measure/sandbox-managed.measure.ts): network.allowManagedDomainsOnly and
// filesystem.allowManagedReadPathsOnly bind from managed settings only; filesystem.disabled is honoured from the
// user file, --settings and the admin file, never from a repository's file nor the SDK's managedSettings, and not
// at all when managed settings configure sandbox.filesystem. First the merge (one layer at a time), then the same
// through the settings files, --settings and --managed-settings as agentd reads them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { webFetchAllowedDomains } from '../../../src/cli/sandbox-setup.js';
import { type FlagInput, resolveConfig } from '../../../src/config/config.js';
import { restrictiveOnly } from '../../../src/config/settings-schema.js';
import { managedDomainsOnly } from '../../../src/tools/sandbox/managed.js';
import { type CommandSandboxSettings, mergeSandboxBlocks, resolveSandboxSettings } from '../../../src/tools/sandbox/settings.js';
import { tempDir } from '../../support/daemon.js';

const none = { ignored: [], invalid: [] };
const base: CommandSandboxSettings = {
  failIfUnavailable: true,
  autoAllowBashIfSandboxed: false,
  allowUnsandboxedCommands: true,
  excludedCommands: [],
  network: { allowedDomains: [], deniedDomains: [] },
  filesystem: { allowWrite: [], denyWrite: [], denyRead: [], allowRead: [] },
};

describe('network.allowManagedDomainsOnly', () => {
  it('from managed settings: only the managed hosts are allowed; every layer still denies; a repository file the host wrote only tightens', () => {
    const r = mergeSandboxBlocks([
      { block: { enabled: true, network: { allowedDomains: ['user.test'], deniedDomains: ['bad.test'] } }, source: 'user', trusted: true },
      { block: { network: { allowedDomains: ['repo.test'], deniedDomains: ['repo-bad.test'] }, excludedCommands: ['docker'] }, source: 'project', trusted: true },
      { block: { network: { allowedDomains: ['flag.test'], httpProxyPort: 8080, socksProxyPort: 1080 } }, source: 'flag', trusted: true },
      { block: { network: { allowManagedDomainsOnly: true, allowedDomains: ['corp.test'] } }, source: 'policy', trusted: true },
    ]);
    expect(r).toEqual({
      merged: { enabled: true, network: { deniedDomains: ['bad.test', 'repo-bad.test'], allowManagedDomainsOnly: true, allowedDomains: ['corp.test'] } },
      layers: [
        { ignored: ['sandbox.network.allowedDomains (managed settings set allowManagedDomainsOnly)'], invalid: [] },
        { ignored: ['sandbox.network.allowedDomains (managed settings set allowManagedDomainsOnly)', 'sandbox.excludedCommands'], invalid: [] },
        {
          ignored: [
            'sandbox.network.allowedDomains (managed settings set allowManagedDomainsOnly)',
            'sandbox.network.httpProxyPort (managed settings set allowManagedDomainsOnly)',
            'sandbox.network.socksProxyPort (managed settings set allowManagedDomainsOnly)',
          ],
          invalid: [],
        },
        none,
      ],
    });
    // WebFetch(domain:…) allow rules of other layers do not join the list either (the caller passes managed ones only).
    expect(managedDomainsOnly(r.merged)).toBe(true);
    expect(resolveSandboxSettings(r.merged, ['policy-rule.test'])).toEqual({
      ok: true,
      settings: { ...base, network: { allowedDomains: ['corp.test', 'policy-rule.test'], deniedDomains: ['bad.test', 'repo-bad.test'], allowManagedDomainsOnly: true } },
    });
  });

  it('from the user file, a repository file or --settings: nothing (the layer keeps its own hosts)', () => {
    expect(
      mergeSandboxBlocks([
        { block: { enabled: true, network: { allowManagedDomainsOnly: true, allowedDomains: ['user.test'] } }, source: 'user', trusted: true },
        { block: { network: { allowManagedDomainsOnly: true } }, source: 'project', trusted: false },
        { block: { network: { allowManagedDomainsOnly: true, allowedDomains: ['flag.test'] } }, source: 'flag', trusted: true },
      ]),
    ).toEqual({
      merged: { enabled: true, network: { allowedDomains: ['user.test', 'flag.test'] } },
      layers: [
        { ignored: ['sandbox.network.allowManagedDomainsOnly (honoured from managed settings only)'], invalid: [] },
        { ignored: ['sandbox.network.allowManagedDomainsOnly (honoured from managed settings only)'], invalid: [] },
        { ignored: ['sandbox.network.allowManagedDomainsOnly (honoured from managed settings only)'], invalid: [] },
      ],
    });
  });

  it('a value of the wrong type: true in managed settings (fail closed), ignored elsewhere; false locks nothing', () => {
    expect(
      mergeSandboxBlocks([
        { block: { enabled: true, network: { allowManagedDomainsOnly: 'yes', allowedDomains: ['user.test'] } }, source: 'user', trusted: true },
        { block: { network: { allowManagedDomainsOnly: 'yes' } }, source: 'policy', trusted: true },
      ]),
    ).toEqual({
      merged: { enabled: true, network: { allowManagedDomainsOnly: true } },
      layers: [
        {
          ignored: ['sandbox.network.allowedDomains (managed settings set allowManagedDomainsOnly)'],
          invalid: ['sandbox.network.allowManagedDomainsOnly: expected a boolean, got string "yes"; ignored (it is honoured from managed settings only)'],
        },
        { ignored: [], invalid: ['sandbox.network.allowManagedDomainsOnly: expected a boolean, got string "yes"; read as true (its restrictive value) until it is fixed'] },
      ],
    });
    expect(
      mergeSandboxBlocks([
        { block: { enabled: true, network: { allowedDomains: ['user.test'] } }, source: 'user', trusted: true },
        { block: { network: { allowManagedDomainsOnly: false, allowedDomains: ['corp.test'] } }, source: 'policy', trusted: true },
      ]),
    ).toEqual({ merged: { enabled: true, network: { allowedDomains: ['user.test', 'corp.test'], allowManagedDomainsOnly: false } }, layers: [none, none] });
  });
});

describe('filesystem.allowManagedReadPathsOnly', () => {
  it('from managed settings: allowRead of managed settings only; denyRead from every layer', () => {
    expect(
      mergeSandboxBlocks([
        { block: { enabled: true, filesystem: { denyRead: ['/s'], allowRead: ['/s/user'] } }, source: 'user', trusted: true },
        { block: { filesystem: { allowRead: ['/s/flag'] } }, source: 'flag', trusted: true },
        { block: { filesystem: { allowManagedReadPathsOnly: true, allowRead: ['/s/corp'] } }, source: 'policy', trusted: true },
      ]),
    ).toEqual({
      merged: { enabled: true, filesystem: { denyRead: ['/s'], allowManagedReadPathsOnly: true, allowRead: ['/s/corp'] } },
      layers: [
        { ignored: ['sandbox.filesystem.allowRead (managed settings set allowManagedReadPathsOnly)'], invalid: [] },
        { ignored: ['sandbox.filesystem.allowRead (managed settings set allowManagedReadPathsOnly)'], invalid: [] },
        none,
      ],
    });
  });

  it('from another layer: nothing; of the wrong type in managed settings: true', () => {
    expect(
      mergeSandboxBlocks([
        { block: { enabled: true, filesystem: { denyRead: ['/s'], allowRead: ['/s/user'], allowManagedReadPathsOnly: true } }, source: 'user', trusted: true },
        { block: { filesystem: { allowManagedReadPathsOnly: 1 } }, source: 'policy', trusted: true },
      ]),
    ).toEqual({
      merged: { enabled: true, filesystem: { denyRead: ['/s'], allowManagedReadPathsOnly: true } },
      layers: [
        { ignored: ['sandbox.filesystem.allowManagedReadPathsOnly (honoured from managed settings only)', 'sandbox.filesystem.allowRead (managed settings set allowManagedReadPathsOnly)'], invalid: [] },
        { ignored: [], invalid: ['sandbox.filesystem.allowManagedReadPathsOnly: expected a boolean, got number 1; read as true (its restrictive value) until it is fixed'] },
      ],
    });
  });
});

describe('filesystem.disabled', () => {
  it('from the user file or --settings: honoured (a later layer wins); from a repository file: not, even one the host wrote', () => {
    const r = mergeSandboxBlocks([
      { block: { enabled: true, filesystem: { denyRead: ['/s'], disabled: true } }, source: 'user', trusted: true },
      { block: { filesystem: { disabled: true } }, source: 'project', trusted: true },
      { block: { filesystem: { disabled: true, denyWrite: ['/p'] } }, source: 'project', trusted: false },
    ]);
    expect(r).toEqual({
      merged: { enabled: true, filesystem: { denyRead: ['/s'], disabled: true, denyWrite: ['/p'] } },
      layers: [none, { ignored: ["sandbox.filesystem.disabled (not honoured from a repository's file)"], invalid: [] }, { ignored: ["sandbox.filesystem.disabled (not honoured from a repository's file)"], invalid: [] }],
    });
    expect(resolveSandboxSettings(r.merged)).toEqual({ ok: true, settings: { ...base, filesystem: { allowWrite: [], denyWrite: ['/p'], denyRead: ['/s'], allowRead: [], disabled: true } } });
    expect(
      mergeSandboxBlocks([
        { block: { enabled: true, filesystem: { disabled: true } }, source: 'user', trusted: true },
        { block: { filesystem: { disabled: false } }, source: 'flag', trusted: true },
      ]).merged,
    ).toEqual({ enabled: true, filesystem: { disabled: false } });
    // A repository's false only keeps the rules on.
    expect(
      mergeSandboxBlocks([
        { block: { enabled: true, filesystem: { disabled: true } }, source: 'user', trusted: true },
        { block: { filesystem: { disabled: false } }, source: 'project', trusted: false },
      ]).merged,
    ).toEqual({ enabled: true, filesystem: { disabled: false } });
  });

  it('managed settings that configure sandbox.filesystem, or deny a credential file, pin it; a mask or a variable does not', () => {
    const userOff = { block: { enabled: true, filesystem: { disabled: true } }, source: 'user' as const, trusted: true };
    const pinned = { ignored: ['sandbox.filesystem.disabled (managed settings configure sandbox.filesystem: only they can turn it off)'], invalid: [] };
    for (const policy of [{ filesystem: { allowWrite: ['/w'] } }, { filesystem: { disabled: false } }, { filesystem: {} }, { credentials: { files: [{ path: '/k', mode: 'deny' }] } }]) {
      expect(mergeSandboxBlocks([userOff, { block: policy, source: 'policy', trusted: true }]).layers).toEqual([pinned, none]);
    }
    for (const policy of [{ credentials: { files: [{ path: '/k', mode: 'mask' }] } }, { credentials: { envVars: [{ name: 'K', mode: 'deny' }] } }, { network: { deniedDomains: ['x.test'] } }]) {
      expect(mergeSandboxBlocks([userOff, { block: policy, source: 'policy', trusted: true }]).layers).toEqual([none, none]);
    }
    // The admin file itself may turn it off.
    expect(mergeSandboxBlocks([{ block: { enabled: true, filesystem: { disabled: true } }, source: 'policy', trusted: true }])).toEqual({ merged: { enabled: true, filesystem: { disabled: true } }, layers: [none] });
  });

  it('a value of the wrong type is read as false (filesystem isolation stays on), in every layer', () => {
    expect(
      mergeSandboxBlocks([
        { block: { enabled: true, filesystem: { disabled: true } }, source: 'user', trusted: true },
        { block: { filesystem: { disabled: 'true' } }, source: 'flag', trusted: true },
      ]),
    ).toEqual({
      merged: { enabled: true, filesystem: { disabled: false } },
      layers: [none, { ignored: [], invalid: ['sandbox.filesystem.disabled: expected a boolean, got string "true"; read as false (filesystem isolation stays on) until it is fixed'] }],
    });
  });

  it("the SDK's managedSettings keeps restrictive values only: disabled: true is dropped, false kept", () => {
    expect(restrictiveOnly({ sandbox: { enabled: true, filesystem: { disabled: true, denyRead: ['/s'] } } })).toEqual({
      kept: { sandbox: { enabled: true, filesystem: { denyRead: ['/s'] } } },
      dropped: ['sandbox.filesystem.disabled'],
    });
    expect(restrictiveOnly({ sandbox: { filesystem: { disabled: false } } })).toEqual({ kept: { sandbox: { filesystem: { disabled: false } } }, dropped: [] });
  });
});

describe("a repository's deny lists of the wrong type", () => {
  it('are a warning, never a stop: a lone string is the one entry, what is not a string is ignored', () => {
    const r = mergeSandboxBlocks([{ block: { enabled: true, filesystem: { denyRead: '/s', denyWrite: [1, '/p'] }, network: { deniedDomains: 5 } }, source: 'project', trusted: false }]);
    expect(r).toEqual({
      merged: { enabled: true, filesystem: { denyRead: ['/s'], denyWrite: ['/p'] }, network: {} },
      layers: [
        {
          ignored: [],
          invalid: [
            'sandbox.filesystem.denyRead: expected a list of strings, got a string; read as the one entry ["/s"]',
            'sandbox.filesystem.denyWrite: expected a list of strings; the entries that are not strings (1) are ignored',
            'sandbox.network.deniedDomains: expected a list of strings, got number; ignored',
          ],
        },
      ],
    });
    expect(resolveSandboxSettings(r.merged).ok).toBe(true);
  });
});

describe('through the settings files, --settings and --managed-settings', () => {
  const FLAGS: FlagInput = {
    model: undefined,
    permissionMode: undefined,
    allowDangerouslySkipPermissions: false,
    allowedTools: [],
    disallowedTools: [],
    addDirs: [],
    settingSources: undefined,
    settings: undefined,
    managedSettings: undefined,
    request: { thinking: undefined, maxThinkingTokens: undefined, thinkingDisplay: undefined, effort: undefined, verbose: false, outputFormat: 'stream-json' },
  };
  function resolveFrom(files: { user?: unknown; project?: unknown; admin?: unknown; flag?: unknown; managed?: unknown }) {
    const home = tempDir('agentd-sbm-home-');
    const cwd = tempDir('agentd-sbm-ws-');
    const adminDir = join(tempDir('agentd-sbm-etc-'), 'claude-code');
    for (const d of [join(home, '.claude'), join(cwd, '.claude'), adminDir]) mkdirSync(d, { recursive: true });
    const paths = { user: join(home, '.claude', 'settings.json'), project: join(cwd, '.claude', 'settings.json'), admin: join(adminDir, 'managed-settings.json') };
    if (files.user) writeFileSync(paths.user, JSON.stringify(files.user));
    if (files.project) writeFileSync(paths.project, JSON.stringify(files.project));
    if (files.admin) writeFileSync(paths.admin, JSON.stringify(files.admin));
    const warnings: string[] = [];
    const config = resolveConfig({
      flags: { ...FLAGS, ...(files.flag ? { settings: JSON.stringify(files.flag) } : {}), ...(files.managed ? { managedSettings: JSON.stringify(files.managed) } : {}) },
      env: { HOME: home, AGENTD_MANAGED_SETTINGS_DIR: adminDir },
      cwd,
      home,
      trust: () => ({}),
      warnRule: (r, file) => warnings.push(`${r} @ ${file}`),
    });
    const merged = config.settings.sandbox;
    const resolved = resolveSandboxSettings(merged, webFetchAllowedDomains(config.permissions.rules, managedDomainsOnly(merged)));
    return { paths, warnings, resolved, ignored: config.ignored.filter((i) => i.what.startsWith('sandbox.')) };
  }

  it('managedSettings allowManagedDomainsOnly closes the hosts the user and project files (and their WebFetch rules) allowed', () => {
    const r = resolveFrom({
      user: { sandbox: { enabled: true, network: { allowedDomains: ['user.test'] } }, permissions: { allow: ['WebFetch(domain:rule.test)'] } },
      project: { sandbox: { network: { allowedDomains: ['repo.test'], deniedDomains: ['repo-bad.test'] } } },
      managed: { sandbox: { network: { allowManagedDomainsOnly: true, allowedDomains: ['corp.test'] } } },
    });
    expect(r).toEqual({
      paths: r.paths,
      warnings: [],
      resolved: { ok: true, settings: { ...base, network: { allowedDomains: ['corp.test'], deniedDomains: ['repo-bad.test'], allowManagedDomainsOnly: true } } },
      ignored: [
        { file: r.paths.user, what: 'sandbox.network.allowedDomains (managed settings set allowManagedDomainsOnly)' },
        { file: r.paths.project, what: 'sandbox.network.allowedDomains (managed settings set allowManagedDomainsOnly)' },
      ],
    });
  });

  it('the admin file: its WebFetch(domain:…) allow rules still count; allowManagedReadPathsOnly and disabled bind from it', () => {
    const r = resolveFrom({
      user: { sandbox: { enabled: true, network: { allowedDomains: ['user.test'] }, filesystem: { denyRead: ['/s'], allowRead: ['/s/user'] } } },
      admin: { sandbox: { network: { allowManagedDomainsOnly: true }, filesystem: { allowManagedReadPathsOnly: true, allowRead: ['/s/corp'], disabled: true } }, permissions: { allow: ['WebFetch(domain:corp.test)'] } },
    });
    expect(r.resolved).toEqual({
      ok: true,
      settings: { ...base, network: { allowedDomains: ['corp.test'], deniedDomains: [], allowManagedDomainsOnly: true }, filesystem: { allowWrite: [], denyWrite: [], denyRead: ['/s'], allowRead: ['/s/corp'], disabled: true } },
    });
    expect(r.ignored).toEqual([
      { file: r.paths.user, what: 'sandbox.network.allowedDomains (managed settings set allowManagedDomainsOnly)' },
      { file: r.paths.user, what: 'sandbox.filesystem.allowRead (managed settings set allowManagedReadPathsOnly)' },
    ]);
  });

  it('a project file carrying all three keys starts: they are ignored and named; the user file and --settings may turn the filesystem rules off', () => {
    const r = resolveFrom({
      project: { sandbox: { enabled: true, network: { allowManagedDomainsOnly: true }, filesystem: { allowManagedReadPathsOnly: true, disabled: true } } },
      flag: { sandbox: { filesystem: { disabled: true } } },
    });
    expect(r).toEqual({
      paths: r.paths,
      warnings: [],
      resolved: { ok: true, settings: { ...base, filesystem: { allowWrite: [], denyWrite: [], denyRead: [], allowRead: [], disabled: true } } },
      ignored: [
        { file: r.paths.project, what: 'sandbox.network.allowManagedDomainsOnly (honoured from managed settings only)' },
        { file: r.paths.project, what: 'sandbox.filesystem.allowManagedReadPathsOnly (honoured from managed settings only)' },
        { file: r.paths.project, what: "sandbox.filesystem.disabled (not honoured from a repository's file)" },
      ],
    });
  });

  it("managedSettings' disabled: true is dropped and pins the user's; wrong types are warnings naming the file", () => {
    const r = resolveFrom({
      user: { sandbox: { enabled: true, filesystem: { disabled: true } } },
      project: { sandbox: { network: { allowManagedDomainsOnly: 'on' } } },
      managed: { sandbox: { filesystem: { disabled: true, allowManagedReadPathsOnly: 'yes' } } },
    });
    expect(r).toEqual({
      paths: r.paths,
      warnings: [
        `sandbox.network.allowManagedDomainsOnly: expected a boolean, got string "on"; ignored (it is honoured from managed settings only) @ ${r.paths.project}`,
        'sandbox.filesystem.allowManagedReadPathsOnly: expected a boolean, got string "yes"; read as true (its restrictive value) until it is fixed @ --managed-settings',
      ],
      resolved: { ok: true, settings: base },
      ignored: [
        { file: r.paths.user, what: 'sandbox.filesystem.disabled (managed settings configure sandbox.filesystem: only they can turn it off)' },
        { file: '--managed-settings', what: 'sandbox.filesystem.disabled (not a restrictive setting; Claude Code drops it from managedSettings)' },
      ],
    });
  });
});
