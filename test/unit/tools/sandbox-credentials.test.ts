// `sandbox.credentials` and `sandbox.network.tlsTerminate` (tools/sandbox/credentials.ts): honoured from the files
// the host wrote; from a repository's file only what tightens (denies; masks become denies); a value of the wrong
// type is a warning naming the file and key, and fails closed for what it restricts. Whole objects compared.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/config.js';
import { checkCredentials, checkTlsTerminate } from '../../../src/tools/sandbox/credentials.js';
import { type CommandSandboxSettings, mergeSandboxBlocks, resolveSandboxSettings } from '../../../src/tools/sandbox/settings.js';
import { tempDir } from '../../support/daemon.js';

const base: CommandSandboxSettings = {
  failIfUnavailable: true,
  autoAllowBashIfSandboxed: false,
  allowUnsandboxedCommands: true,
  excludedCommands: [],
  network: { allowedDomains: [], deniedDomains: [] },
  filesystem: { allowWrite: [], denyWrite: [], denyRead: [], allowRead: [] },
};

/** checkCredentials / checkTlsTerminate with what they report collected. */
function collect<T>(f: (r: { invalid: (w: string) => void; ignored: (w: string) => void }) => T): { value: T; invalid: string[]; ignored: string[] } {
  const invalid: string[] = [];
  const ignored: string[] = [];
  const value = f({ invalid: (w) => invalid.push(w), ignored: (w) => ignored.push(w) });
  return { value, invalid, ignored };
}

describe('checkCredentials (one layer)', () => {
  const full = {
    files: [
      { path: '~/.aws/credentials', mode: 'deny' },
      { path: '/run/secrets/token', mode: 'mask', extract: 'token=(\\S+)', onExtractNoMatch: 'deny', maskDuplicates: true, injectHosts: ['api.example.com'] },
    ],
    envVars: [
      { name: 'GITHUB_TOKEN', mode: 'mask', injectHosts: ['api.github.com'] },
      { name: 'CI_JWT', mode: 'mask', decode: 'jwt', maskClaims: ['sub'] },
      { name: 'NPM_TOKEN', mode: 'deny', extract: 'ignored for deny' },
    ],
    allowPlaintextInject: true,
    awsPairs: [{ accessKeyIdVar: 'K', secretAccessKeyVar: 'S' }],
    sigv4: { streaming: 'passthrough' },
    unknownKey: 1,
  };

  it('from a file the host wrote: every entry as the runtime takes it', () => {
    expect(collect((r) => checkCredentials(full, true, r))).toEqual({
      value: {
        files: [
          { path: '~/.aws/credentials', mode: 'deny' },
          { path: '/run/secrets/token', mode: 'mask', extract: 'token=(\\S+)', onExtractNoMatch: 'deny', maskDuplicates: true, injectHosts: ['api.example.com'] },
        ],
        envVars: [
          { name: 'GITHUB_TOKEN', mode: 'mask', injectHosts: ['api.github.com'] },
          { name: 'CI_JWT', mode: 'mask', decode: 'jwt', maskClaims: ['sub'] },
          { name: 'NPM_TOKEN', mode: 'deny' },
        ],
        allowPlaintextInject: true,
        awsPairs: [{ accessKeyIdVar: 'K', secretAccessKeyVar: 'S' }],
        sigv4: { streaming: 'passthrough' },
      },
      invalid: [],
      ignored: [],
    });
  });

  it("from a repository's file: denies hold, masks become denies, what widens a mask is not honoured", () => {
    expect(collect((r) => checkCredentials(full, false, r))).toEqual({
      value: {
        files: [
          { path: '~/.aws/credentials', mode: 'deny' },
          { path: '/run/secrets/token', mode: 'deny' },
        ],
        envVars: [
          { name: 'GITHUB_TOKEN', mode: 'deny' },
          { name: 'CI_JWT', mode: 'deny' },
          { name: 'NPM_TOKEN', mode: 'deny' },
        ],
      },
      invalid: [],
      ignored: [
        `sandbox.credentials.files[1] (/run/secrets/token): mode "mask" from a repository's file is applied as "deny" (it cannot have the proxy inject a credential)`,
        `sandbox.credentials.envVars[0] (GITHUB_TOKEN): mode "mask" from a repository's file is applied as "deny" (it cannot have the proxy inject a credential)`,
        `sandbox.credentials.envVars[1] (CI_JWT): mode "mask" from a repository's file is applied as "deny" (it cannot have the proxy inject a credential)`,
        'sandbox.credentials.allowPlaintextInject',
        'sandbox.credentials.awsPairs',
        'sandbox.credentials.sigv4',
      ],
    });
  });

  it('wrong types: a warning naming the key and what was expected; what names a file or variable protects it (deny)', () => {
    const bad = {
      files: [
        { path: '/a', mode: 'hide' },
        { path: '/b', mode: 'mask', extract: '([unclosed' },
        { path: '/c', mode: 'mask', maskClaims: ['sub'] },
        { path: '/d', mode: 'mask', injectHosts: 'api.example.com' },
        { mode: 'deny' },
        'just a string',
      ],
      envVars: [
        { name: 'A', mode: 'mask', decode: 'jwt', extract: '(x)' },
        { name: 'B', mode: 'mask', decode: 'jwt', onExtractNoMatch: 'error' },
        { name: 'C' },
        { name: 7, mode: 'deny' },
      ],
      allowPlaintextInject: 'yes',
      awsPairs: { accessKeyIdVar: 'K' },
      sigv4: { streaming: 'maybe' },
    };
    expect(collect((r) => checkCredentials(bad, true, r))).toEqual({
      value: {
        files: [
          { path: '/a', mode: 'deny' },
          { path: '/b', mode: 'deny' },
          { path: '/c', mode: 'deny' },
          { path: '/d', mode: 'deny' },
        ],
        envVars: [
          { name: 'A', mode: 'deny' },
          { name: 'B', mode: 'deny' },
          { name: 'C', mode: 'deny' },
        ],
      },
      invalid: [
        'sandbox.credentials.files[0].mode: expected "deny" or "mask", got string "hide"; the file /a is denied',
        'sandbox.credentials.files[1].extract: "([unclosed" is not a valid regular expression; the file /b is denied instead of masked',
        'sandbox.credentials.files[2].maskClaims needs decode: "jwt"; the file /c is denied instead of masked',
        'sandbox.credentials.files[3].injectHosts: expected a list of host names, got string "api.example.com"; the file /d is denied instead of masked',
        'sandbox.credentials.files[4]: expected an object with a path (string) and a mode ("deny" or "mask"), got path none; it names no file to protect, so it is dropped',
        'sandbox.credentials.files[5]: expected an object with a path (string) and a mode ("deny" or "mask"), got string "just a string"; it names no file to protect, so it is dropped',
        'sandbox.credentials.envVars[0].extract cannot be combined with decode; the variable A is denied instead of masked',
        'sandbox.credentials.envVars[1].onExtractNoMatch "error" cannot be honoured with decode; the variable B is denied instead of masked',
        'sandbox.credentials.envVars[2].mode: expected "deny" or "mask", got none; the variable C is denied',
        'sandbox.credentials.envVars[3]: expected an object with a name (string) and a mode ("deny" or "mask"), got name number 7; it names no variable to protect, so it is dropped',
        'sandbox.credentials.allowPlaintextInject: expected a boolean, got string "yes"; credentials are not injected over plain HTTP',
        'sandbox.credentials.awsPairs: expected a list of {accessKeyIdVar: string, secretAccessKeyVar: string, sessionTokenVar?: string}, got an object; no request is re-signed',
        'sandbox.credentials.sigv4: expected {streaming?, presigned?, sigv4a?} each "deny" or "passthrough", got an object; every such request is denied',
      ],
      ignored: [],
    });
    expect(collect((r) => checkCredentials('x', true, r))).toEqual({
      value: undefined,
      invalid: ['sandbox.credentials: expected an object with files and envVars lists, got string "x"; it names nothing to protect, so it is dropped'],
      ignored: [],
    });
    expect(collect((r) => checkCredentials({ files: { path: '/a' } }, true, r))).toEqual({ value: undefined, invalid: ['sandbox.credentials.files: expected a list, got an object; dropped'], ignored: [] });
  });
});

describe('checkTlsTerminate (one layer)', () => {
  it('from a file the host wrote: the CA paths (or none: the runtime makes a CA for the session); a wrong type leaves it off, with a warning', () => {
    expect(collect((r) => checkTlsTerminate({}, true, r))).toEqual({ value: {}, invalid: [], ignored: [] });
    expect(collect((r) => checkTlsTerminate({ caCertPath: '/ca.pem', caKeyPath: '/ca.key', extra: 1 }, true, r))).toEqual({ value: { caCertPath: '/ca.pem', caKeyPath: '/ca.key' }, invalid: [], ignored: [] });
    expect(collect((r) => checkTlsTerminate(true, true, r))).toEqual({
      value: undefined,
      invalid: ['sandbox.network.tlsTerminate: expected an object {caCertPath?: string, caKeyPath?: string}, got boolean true; TLS termination stays off'],
      ignored: [],
    });
    expect(collect((r) => checkTlsTerminate({ caCertPath: 1 }, true, r)).invalid).toEqual([
      'sandbox.network.tlsTerminate: expected an object {caCertPath?: string, caKeyPath?: string}, got caCertPath number 1, caKeyPath none; TLS termination stays off',
    ]);
  });

  it("from a repository's file: not honoured (as Claude Code)", () => {
    expect(collect((r) => checkTlsTerminate({}, false, r))).toEqual({ value: undefined, invalid: [], ignored: ['sandbox.network.tlsTerminate'] });
  });
});

describe('the merged block', () => {
  it('layers combine their entries; tlsTerminate and ripgrep come whole from the highest layer that sets them', () => {
    const { merged, layers } = mergeSandboxBlocks([
      { block: { enabled: true, network: { allowedDomains: ['api.example.com'], tlsTerminate: { caCertPath: '/user/ca.pem', caKeyPath: '/user/ca.key' } }, credentials: { envVars: [{ name: 'A', mode: 'mask' }] }, ripgrep: { command: '/opt/rg', args: ['--x'] } }, source: 'user', trusted: true },
      { block: { credentials: { envVars: [{ name: 'B', mode: 'mask' }], files: [{ path: '/p', mode: 'mask' }] }, network: { tlsTerminate: {} } }, source: 'project', trusted: false },
      { block: { network: { tlsTerminate: { caCertPath: '/flag/ca.pem' } }, ripgrep: { command: '/usr/bin/rg' } }, source: 'flag', trusted: true },
    ]);
    expect(layers).toEqual([
      { ignored: [], invalid: [] },
      {
        ignored: [
          'sandbox.network.tlsTerminate',
          `sandbox.credentials.files[0] (/p): mode "mask" from a repository's file is applied as "deny" (it cannot have the proxy inject a credential)`,
          `sandbox.credentials.envVars[0] (B): mode "mask" from a repository's file is applied as "deny" (it cannot have the proxy inject a credential)`,
        ],
        invalid: [],
      },
      { ignored: [], invalid: [] },
    ]);
    expect(resolveSandboxSettings(merged)).toEqual({
      ok: true,
      settings: {
        ...base,
        network: { allowedDomains: ['api.example.com'], deniedDomains: [], tlsTerminate: { caCertPath: '/flag/ca.pem' } },
        credentials: {
          files: [{ path: '/p', mode: 'deny' }],
          envVars: [
            { name: 'A', mode: 'mask' },
            { name: 'B', mode: 'deny' },
          ],
        },
        ripgrep: { command: '/usr/bin/rg' },
      },
    });
  });

  it('a deny of the same file or variable wins over a mask from any layer; denyRead over a masked file under it', () => {
    const { merged } = mergeSandboxBlocks([
      { block: { enabled: true, network: { tlsTerminate: {} }, filesystem: { denyRead: ['/secrets'] }, credentials: { files: [{ path: '/x', mode: 'mask' }, { path: '/secrets/t', mode: 'mask' }, { path: '/y', mode: 'mask' }], envVars: [{ name: 'A', mode: 'mask' }] } }, source: 'user', trusted: true },
      { block: { credentials: { files: [{ path: '/x', mode: 'deny' }], envVars: [{ name: 'A', mode: 'mask' }] } }, source: 'project', trusted: false },
    ]);
    expect(resolveSandboxSettings(merged)).toEqual({
      ok: true,
      notes: [
        'sandbox.credentials.files: the mask of /x is dropped: a deny entry names the same one',
        'sandbox.credentials.envVars: the mask of A is dropped: a deny entry names the same one',
        'sandbox.credentials.files: the mask of /secrets/t is dropped: filesystem.denyRead /secrets covers it',
      ],
      settings: {
        ...base,
        network: { allowedDomains: [], deniedDomains: [], tlsTerminate: {} },
        filesystem: { allowWrite: [], denyWrite: [], denyRead: ['/secrets'], allowRead: [] },
        credentials: { files: [{ path: '/x', mode: 'deny' }, { path: '/y', mode: 'mask' }], envVars: [{ name: 'A', mode: 'deny' }] },
      },
    });
  });

  it('masks without tlsTerminate: a note (as Claude Code warns), the masks kept', () => {
    expect(resolveSandboxSettings({ enabled: true, credentials: { envVars: [{ name: 'A', mode: 'mask' }] } })).toEqual({
      ok: true,
      notes: [
        'sandbox.credentials has mask entries but sandbox.network.tlsTerminate is not set: sandboxed commands see only the sentinel, and the proxy cannot put the real value into HTTPS requests (set network.tlsTerminate, or allowPlaintextInject for plain HTTP)',
      ],
      settings: { ...base, credentials: { files: [], envVars: [{ name: 'A', mode: 'mask' }] } },
    });
  });
});

describe('through the settings files', () => {
  it("a repository's keys never stop a session; wrong types are warnings naming the file; the SDK's option (--settings) is honoured", () => {
    const home = tempDir('agentd-cred-home-');
    const cwd = tempDir('agentd-cred-ws-');
    mkdirSync(join(home, '.claude'), { recursive: true });
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    const project = join(cwd, '.claude', 'settings.json');
    writeFileSync(project, JSON.stringify({ sandbox: { enabled: true, credentials: { files: [{ path: '/p', mode: 'mask' }, { path: '/q' }], envVars: 'TOKEN' }, network: { tlsTerminate: { caCertPath: '/evil.pem' } } } }));
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ sandbox: { network: { tlsTerminate: 'on' } } }));
    const warnings: string[] = [];
    const config = resolveConfig({
      flags: {
        model: undefined,
        permissionMode: undefined,
        allowDangerouslySkipPermissions: false,
        allowedTools: [],
        disallowedTools: [],
        addDirs: [],
        settingSources: undefined,
        settings: JSON.stringify({ sandbox: { enabled: true, network: { allowedDomains: ['localhost'], tlsTerminate: {} }, credentials: { envVars: [{ name: 'TOKEN', mode: 'mask' }] } } }),
        managedSettings: undefined,
        request: { thinking: undefined, maxThinkingTokens: undefined, thinkingDisplay: undefined, effort: undefined, verbose: false, outputFormat: 'stream-json' },
      },
      env: { HOME: home, AGENTD_MANAGED_SETTINGS_DIR: join(home, 'no-managed') },
      cwd,
      home,
      trust: () => ({}),
      warnRule: (r, file) => warnings.push(`${r} @ ${file}`),
    });
    expect(warnings).toEqual([
      `sandbox.network.tlsTerminate: expected an object {caCertPath?: string, caKeyPath?: string}, got string "on"; TLS termination stays off @ ${join(home, '.claude', 'settings.json')}`,
      `sandbox.credentials.files[1].mode: expected "deny" or "mask", got none; the file /q is denied @ ${project}`,
      `sandbox.credentials.envVars: expected a list, got string "TOKEN"; dropped @ ${project}`,
    ]);
    expect(config.ignored.filter((i) => i.what.startsWith('sandbox.'))).toEqual([
      { file: project, what: 'sandbox.network.tlsTerminate' },
      { file: project, what: `sandbox.credentials.files[0] (/p): mode "mask" from a repository's file is applied as "deny" (it cannot have the proxy inject a credential)` },
    ]);
    expect(resolveSandboxSettings(config.settings.sandbox)).toEqual({
      ok: true,
      settings: {
        ...base,
        network: { allowedDomains: ['localhost'], deniedDomains: [], tlsTerminate: {} },
        credentials: {
          files: [
            { path: '/p', mode: 'deny' },
            { path: '/q', mode: 'deny' },
          ],
          envVars: [{ name: 'TOKEN', mode: 'mask' }],
        },
      },
    });
  });
});
