// One configuration, resolved once (src/config): precedence between flags, environment and the settings layers,
// the managed policy on top, and what is refused. Whole objects compared.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FlagInput, managedSettingsDir, resolveConfig } from '../../../src/config/config.js';
import { StartupError } from '../../../src/config/errors.js';
import { tempDir } from '../../support/daemon.js';

interface Fixture {
  cwd: string;
  home: string;
  configDir: string;
  managedDir: string;
}

function fixture(files: { user?: unknown; project?: unknown; local?: unknown; managed?: unknown; dropIns?: Record<string, unknown> } = {}): Fixture {
  const home = tempDir('agentd-cfg-home-');
  const cwd = tempDir('agentd-cfg-ws-');
  const configDir = join(home, '.claude');
  const managedDir = join(tempDir('agentd-cfg-etc-'), 'claude-code');
  mkdirSync(configDir, { recursive: true });
  mkdirSync(join(cwd, '.claude'), { recursive: true });
  mkdirSync(managedDir, { recursive: true });
  const put = (path: string, v: unknown): void => writeFileSync(path, typeof v === 'string' ? v : JSON.stringify(v));
  if (files.user !== undefined) put(join(configDir, 'settings.json'), files.user);
  if (files.project !== undefined) put(join(cwd, '.claude/settings.json'), files.project);
  if (files.local !== undefined) put(join(cwd, '.claude/settings.local.json'), files.local);
  if (files.managed !== undefined) put(join(managedDir, 'managed-settings.json'), files.managed);
  if (files.dropIns) {
    mkdirSync(join(managedDir, 'managed-settings.d'), { recursive: true });
    for (const [n, v] of Object.entries(files.dropIns)) put(join(managedDir, 'managed-settings.d', n), v);
  }
  return { cwd, home, configDir, managedDir };
}

const NO_FLAGS: FlagInput = {
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
  trustWorkspace: false,
};

function resolve(f: Fixture, flags: Partial<FlagInput> = {}, env: Record<string, string> = {}) {
  const warnings: string[] = [];
  const config = resolveConfig({
    flags: { ...NO_FLAGS, ...flags },
    env: { HOME: f.home, AGENTD_MANAGED_SETTINGS_DIR: f.managedDir, ...env },
    cwd: f.cwd,
    home: f.home,
    trust: () => ({}),
    warnRule: (r, file) => warnings.push(`${r} @ ${file}`),
  });
  return { config, warnings };
}

const rule = (behavior: string, toolName: string, source: string, baseDir: string, ruleContent?: string) => ({ behavior, toolName, source, baseDir, ...(ruleContent !== undefined ? { ruleContent } : {}) });

describe('resolveConfig: precedence', () => {
  it('single values: policy > --settings > local > project > user; env merges key by key; an untrusted repository sets no variable', () => {
    const f = fixture({
      user: { model: 'm-user', outputStyle: 'user-style', env: { A: 'user', B: 'user', ANTHROPIC_BASE_URL: 'http://user' }, includeCoAuthoredBy: true, cleanupPeriodDays: 9 },
      project: { model: 'm-project', env: { B: 'project', C: 'project', PATH: '/evil', ANTHROPIC_BASE_URL: 'http://evil' } },
      local: { outputStyle: 'local-style', env: { C: 'local' }, includeCoAuthoredBy: false },
      managed: { env: { D: 'policy' }, apiKeyHelper: '/opt/key-helper' },
    });
    const { config } = resolve(f, { settings: JSON.stringify({ env: { A: 'flag' }, model: 'm-flag' }) });
    const s = config.settings;
    expect({
      model: s.model,
      outputStyle: s.outputStyle,
      childEnv: s.childEnv,
      ownEnv: s.ownEnv,
      apiKeyHelper: s.apiKeyHelper,
      includeCoAuthoredBy: s.includeCoAuthoredBy,
      cleanupPeriodDays: s.cleanupPeriodDays,
      ignored: config.ignored,
      untrusted: s.untrusted,
      envRefused: s.envRefused,
      problems: s.problems,
    }).toEqual({
      model: 'm-flag',
      outputStyle: 'local-style',
      childEnv: { A: 'flag', B: 'user', D: 'policy', ANTHROPIC_BASE_URL: 'http://user' },
      ownEnv: { A: 'flag', B: 'user', D: 'policy', ANTHROPIC_BASE_URL: 'http://user' },
      apiKeyHelper: { command: '/opt/key-helper', file: join(f.managedDir, 'managed-settings.json') },
      includeCoAuthoredBy: false,
      cleanupPeriodDays: 9,
      ignored: [],
      untrusted: [
        { file: join(f.cwd, '.claude/settings.json'), skipped: ['env (B, C, PATH, ANTHROPIC_BASE_URL)'] },
        { file: join(f.cwd, '.claude/settings.local.json'), skipped: ['env (C)'] },
      ],
      envRefused: [],
      problems: [],
    });
    // The children's environment: the inherited one, with the settings `env` over it.
    expect(config.childEnvSource['A']).toBe('flag');
    expect(config.childEnvSource['HOME']).toBe(f.home);
    expect(config.env.anthropic.baseUrl).toBe('http://user');
    expect(config.trust).toEqual({ kind: 'untrusted', folder: f.cwd, file: join(f.home, '.claude.json') });
  });

  it('a trusted repository sets the variables that are data, never the ones that decide which code runs', () => {
    const f = fixture({
      project: { env: { B: 'project', PATH: '/evil', ANTHROPIC_BASE_URL: 'http://evil', 'BASH_FUNC_git%%': '() { id; }', EDITOR: 'vim', XDG_CONFIG_HOME: '/repo/xdg', TAR_OPTIONS: '-x', GIT_CONFIG_GLOBAL: '/x', npm_config_userconfig: '/x', HTTPS_PROXY: 'http://p' } },
      local: { env: { C: 'local', NODE_ENV: 'test', LD_PRELOAD: '/x.so' } },
    });
    const s = resolve(f, { trustWorkspace: true }).config.settings;
    expect(s.childEnv).toEqual({ B: 'project', C: 'local', NODE_ENV: 'test' });
    expect(s.ownEnv).toEqual({});
    expect(s.untrusted).toEqual([]);
    expect(s.envRefused.map((r) => `${r.name}: ${r.why.split(' ')[0] ?? ''}`)).toEqual([
      'PATH: the',
      'ANTHROPIC_BASE_URL: it',
      'BASH_FUNC_git%%: not',
      'EDITOR: it',
      'XDG_CONFIG_HOME: it',
      'TAR_OPTIONS: git,',
      'GIT_CONFIG_GLOBAL: git,',
      'npm_config_userconfig: git,',
      'HTTPS_PROXY: it',
      'LD_PRELOAD: the',
    ]);
  });

  it('model: --model > ANTHROPIC_MODEL (the settings env counts as environment) > settings model > default', () => {
    const f = fixture({ user: { model: 'm-settings' } });
    const initial = (r: ReturnType<typeof resolve>): unknown => r.config.model.initial;
    expect(initial(resolve(f))).toEqual({ model: 'm-settings' });
    expect(initial(resolve(f, {}, { ANTHROPIC_MODEL: 'm-env' }))).toEqual({ model: 'm-env' });
    expect(initial(resolve(f, { model: 'm-flag' }, { ANTHROPIC_MODEL: 'm-env' }))).toEqual({ model: 'm-flag' });
    const g = fixture({ user: { env: { ANTHROPIC_MODEL: 'm-user-env' }, model: 'm-settings' } });
    expect(initial(resolve(g, {}, { ANTHROPIC_MODEL: 'm-env' }))).toEqual({ model: 'm-user-env' });
    expect(initial(resolve(fixture()))).toEqual({ model: 'claude-opus-5-5' });
    // Each resolved as Claude Code resolves it (model/names.ts); ANTHROPIC_DEFAULT_MODEL is what `default` means.
    expect(initial(resolve(fixture({ user: { model: 'opusplan' } }), { model: 'sonnet' }))).toEqual({ model: 'claude-sonnet-5-5' });
    expect(initial(resolve(fixture({ user: { model: 'opusplan' } })))).toEqual({ model: 'claude-sonnet-5-5', planModel: 'claude-opus-5-5' });
    expect(initial(resolve(fixture(), {}, { ANTHROPIC_DEFAULT_MODEL: 'haiku' }))).toEqual({ model: 'claude-haiku-5-5' });
    expect(initial(resolve(fixture({ user: { model: 'sonnet' } }), {}, { ANTHROPIC_DEFAULT_MODEL: 'haiku' }))).toEqual({ model: 'claude-sonnet-5-5' });
  });

  it('model: a name availableModels leaves out gives way to the default (said once); enforce makes the default a listed one', () => {
    const r = resolve(fixture({ user: { availableModels: ['sonnet'] } }), { model: 'haiku' });
    expect({ initial: r.config.model.initial, refused: r.config.model.refused, ignored: r.config.ignored }).toEqual({
      initial: { model: 'claude-opus-5-5' },
      refused: { name: 'haiku', from: '--model' },
      ignored: [],
    });
    expect(resolve(fixture({ project: { availableModels: ['sonnet'], enforceAvailableModels: true } }), {}, { ANTHROPIC_MODEL: 'haiku' }).config.model.initial).toEqual({ model: 'claude-sonnet-5-5' });
    // deniedModels (policy only): the default steps down; with nothing left the start-up is refused, as Claude Code.
    expect(resolve(fixture({ managed: { deniedModels: ['claude-opus-5-5'] } })).config.model.initial).toEqual({ model: 'claude-opus-5' });
    expect(() => resolve(fixture({ managed: { deniedModels: ['opus', 'sonnet', 'haiku'] } }))).toThrow(new StartupError('models_all_denied', "The managed settings' deniedModels block the default model and every model it steps down to; no model is left to start on (Claude Code does not start either)."));
  });

  it('permissions: rules from every layer then the flags; the mode from the flag, else the highest layer', () => {
    const f = fixture({ user: { permissions: { allow: ['Read'], defaultMode: 'plan', additionalDirectories: ['/u'] } }, local: { permissions: { deny: ['Bash(rm:*)'], defaultMode: 'default' } } });
    const { config } = resolve(f, { allowedTools: ['Grep'], disallowedTools: ['WebFetch'], addDirs: ['extra'] });
    expect(config.permissions).toEqual({
      startMode: 'default',
      rules: [rule('allow', 'Read', 'userSettings', f.home), rule('deny', 'Bash', 'localSettings', f.cwd, 'rm:*'), rule('allow', 'Grep', 'cliArg', f.cwd), rule('deny', 'WebFetch', 'cliArg', f.cwd)],
      additionalDirectories: [join(f.cwd, 'extra'), '/u'],
      bypassRefusal:
        'Cannot set permission mode to bypassPermissions because the session was not launched with --allow-dangerously-skip-permissions or --dangerously-skip-permissions.',
      disabledModes: new Map(),
      denyInsteadOfPrompting: false,
      managedRulesOnly: false,
    });
    expect(resolve(f, { permissionMode: 'acceptEdits' }).config.permissions.startMode).toBe('acceptEdits');
  });

  it('a settings file that is not JSON is reported and skipped; the others still apply', () => {
    const f = fixture({ user: '{ not json', project: { permissions: { deny: ['Bash'] } } });
    const { config } = resolve(f);
    expect(config.settings.problems).toEqual([{ file: join(f.configDir, 'settings.json'), message: expect.stringMatching(/^\S+settings\.json is not valid JSON: /) }]);
    expect(config.permissions.rules).toEqual([rule('deny', 'Bash', 'projectSettings', f.cwd)]);
  });

  it('keys agentd does not implement are listed once per file (an untrusted repository\'s code-running ones as skipped)', () => {
    const f = fixture({ user: { statusLine: { type: 'command' }, permissions: { allow: [], somethingNew: true } }, project: { statusLine: {} } });
    expect(resolve(f).config.settings.unsupported).toEqual([
      { file: join(f.configDir, 'settings.json'), key: 'statusLine' },
      { file: join(f.configDir, 'settings.json'), key: 'permissions.somethingNew' },
    ]);
    expect(resolve(f).config.settings.untrusted).toEqual([{ file: join(f.cwd, '.claude/settings.json'), skipped: ['statusLine'] }]);
    expect(resolve(f, { trustWorkspace: true }).config.settings.unsupported).toEqual([
      { file: join(f.configDir, 'settings.json'), key: 'statusLine' },
      { file: join(f.configDir, 'settings.json'), key: 'permissions.somethingNew' },
      { file: join(f.cwd, '.claude/settings.json'), key: 'statusLine' },
    ]);
  });
});

describe('resolveConfig: the managed policy', () => {
  it("the SDK's managedSettings keep only restrictive keys: deny/ask rules bind, allow rules, model and env are dropped", () => {
    const f = fixture();
    const managed = { permissions: { deny: ['Bash'], ask: ['Write'], allow: ['Read'], defaultMode: 'bypassPermissions' }, model: 'x', env: { X: '1' }, allowManagedHooksOnly: true };
    const { config } = resolve(f, { managedSettings: JSON.stringify(managed) });
    expect(config.permissions.rules).toEqual([rule('deny', 'Bash', 'policySettings', f.cwd), rule('ask', 'Write', 'policySettings', f.cwd)]);
    expect(config.settings.model).toBeUndefined();
    expect(config.settings.childEnv).toEqual({});
    expect(config.ignored.map((i) => i.what.split(' ')[0])).toEqual(['permissions.allow', 'permissions.defaultMode', 'model', 'env']);
  });

  it('admin files (managed-settings.json, then managed-settings.d in name order) win; they drop the SDK tier unless parentSettingsBehavior is "merge"', () => {
    const dropIns = { '20-b.json': { model: 'from-20', permissions: { deny: ['WebFetch'] } }, '10-a.json': { model: 'from-10' }, '.hidden.json': '{bad', 'notes.txt': 'x' };
    const f = fixture({ managed: { model: 'base', permissions: { deny: ['Grep'] } }, dropIns });
    const sdk = JSON.stringify({ permissions: { deny: ['Bash'] } });
    const first = resolve(f, { managedSettings: sdk }).config;
    expect(first.settings.model).toBe('from-20');
    expect(first.permissions.rules).toEqual([rule('deny', 'Grep', 'policySettings', f.cwd), rule('deny', 'WebFetch', 'policySettings', f.cwd)]);
    expect(first.ignored.at(-1)?.what).toMatch(/^all of it: an admin managed-settings file exists/);
    const g = fixture({ managed: { parentSettingsBehavior: 'merge', permissions: { deny: ['Grep'] } } });
    expect(resolve(g, { managedSettings: sdk }).config.permissions.rules).toEqual([rule('deny', 'Bash', 'policySettings', g.cwd), rule('deny', 'Grep', 'policySettings', g.cwd)]);
  });

  it('AGENTD_MANAGED_SETTINGS_DIR cannot switch off a policy the system directory holds', () => {
    const f = fixture({ managed: { permissions: { deny: ['Bash'] } } });
    const elsewhere = tempDir('agentd-cfg-other-');
    const config = resolveConfig({
      flags: NO_FLAGS,
      env: { HOME: f.home, AGENTD_MANAGED_SETTINGS_DIR: elsewhere },
      cwd: f.cwd,
      home: f.home,
      trust: () => ({}),
      warnRule: () => undefined,
      systemManagedDir: f.managedDir,
    });
    expect(config.permissions.rules).toEqual([rule('deny', 'Bash', 'policySettings', f.cwd)]);
    expect(managedSettingsDir(elsewhere, join(elsewhere, 'no-policy-here'))).toBe(elsewhere);
    expect(managedSettingsDir(undefined, f.managedDir)).toBe(f.managedDir);
  });

  it('a policy that cannot be read stops the start-up (fails closed)', () => {
    const f = fixture({ managed: '{ nope' });
    expect(() => resolve(f)).toThrow(StartupError);
    expect(() => resolve(f)).toThrow(/managed-settings\.json is not valid JSON/);
    expect(() => resolve(fixture(), { managedSettings: '{"permissions":' })).toThrow(/--managed-settings is not valid JSON/);
  });

  it('allowManagedPermissionRulesOnly: allow rules from every other layer and --allowedTools are ignored; deny rules stay', () => {
    const f = fixture({ user: { permissions: { allow: ['Bash'], deny: ['Grep'] } }, managed: { allowManagedPermissionRulesOnly: true, permissions: { allow: ['Read'] } } });
    const { config } = resolve(f, { allowedTools: ['Write'] });
    expect(config.permissions.rules).toEqual([rule('deny', 'Grep', 'userSettings', f.home), rule('allow', 'Read', 'policySettings', f.cwd)]);
    expect(config.permissions.managedRulesOnly).toBe(true);
    expect(config.ignored.map((i) => i.what)).toEqual(['allow rule Bash (allowManagedPermissionRulesOnly)', 'allow rule Write (allowManagedPermissionRulesOnly)']);
  });

  it('allowManagedHooksOnly and disableAllHooks: which settings hooks remain', () => {
    const hook = (c: string) => ({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: c }] }] });
    const commands = (files: Parameters<typeof fixture>[0]) => resolve(fixture(files)).config.settings.commandHooks.map((h) => `${h.command}@${h.source}`);
    expect(commands({ user: { hooks: hook('u') }, managed: { hooks: hook('m') } })).toEqual(['u@userSettings', 'm@policySettings']);
    expect(commands({ user: { hooks: hook('u') }, managed: { hooks: hook('m'), allowManagedHooksOnly: true } })).toEqual(['m@policySettings']);
    // disableAllHooks outside the policy cannot turn off the policy's hooks.
    expect(commands({ user: { hooks: hook('u'), disableAllHooks: true }, managed: { hooks: hook('m') } })).toEqual(['m@policySettings']);
    expect(commands({ user: { hooks: hook('u') }, managed: { hooks: hook('m'), disableAllHooks: true } })).toEqual([]);
  });

  it('disableBypassPermissionsMode: bypass cannot be requested at start nor entered later', () => {
    const f = fixture({ managed: { permissions: { disableBypassPermissionsMode: 'disable' } } });
    expect(() => resolve(f, { permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true })).toThrow(
      new StartupError('permission_mode_disabled', `Permission mode bypassPermissions was requested, but ${join(f.managedDir, 'managed-settings.json')} disables it.`),
    );
    const { config } = resolve(f, { allowDangerouslySkipPermissions: true });
    expect(config.permissions.bypassRefusal).toBe(`bypassPermissions is disabled by ${join(f.managedDir, 'managed-settings.json')} (permissions.disableBypassPermissionsMode).`);
  });

  it('a security setting agentd cannot honour is refused at start-up, from any layer', () => {
    expect(() => resolve(fixture({ managed: { deniedMcpServers: [{ serverName: 'x' }] } }))).toThrow(/sets deniedMcpServers, a security setting agentd cannot honour/);
    expect(() => resolve(fixture({ user: { permissions: { blockWritesOutsideWorkingDirectories: true } } }))).toThrow(/permissions\.blockWritesOutsideWorkingDirectories/);
    // Non-restrictive values are not refused.
    expect(() => resolve(fixture({ user: { permissions: { blockWritesOutsideWorkingDirectories: false } } }))).not.toThrow();
  });

  it('the configuration is frozen', () => {
    const { config } = resolve(fixture());
    expect(Object.isFrozen(config) && Object.isFrozen(config.permissions) && Object.isFrozen(config.settings) && Object.isFrozen(config.permissions.rules)).toBe(true);
  });
});
