// MCP configuration: name normalisation, ${VAR} expansion, --mcp-config parsing and the sources' precedence.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpConfigError, expandEnv, parseMcpConfigFlag, parseServerEntry, resolveMcpServers, toolPolicies } from '../../../src/mcp/config.js';
import { mcpToolName, normalizeMcpName } from '../../../src/util/mcp-names.js';
import { tempDir } from '../../support/daemon.js';

describe('MCP tool names', () => {
  it('keep [a-zA-Z0-9_-] and turn everything else into _ (as Claude Code)', () => {
    expect(normalizeMcpName('my server.v2/é')).toBe('my_server_v2__');
    expect(mcpToolName('claude.ai Gmail', 'search-threads')).toBe('mcp__claude_ai_Gmail__search-threads');
    expect(mcpToolName('fx', 'echo')).toBe('mcp__fx__echo');
  });
});

describe('${VAR} expansion', () => {
  const env = { HOME: '/home/u', EMPTY: '' };
  it('expands set variables and defaults; an unset one without default stays as written and is reported', () => {
    const missing = new Set<string>();
    expect(expandEnv('${HOME}/x ${NOPE:-fallback} ${EMPTY:-d} ${NOPE2} $HOME', env, missing)).toBe('/home/u/x fallback  ${NOPE2} $HOME');
    expect([...missing]).toEqual(['NOPE2']);
  });

  it('applies to command, args, env, url and headers; not to SDK entries', () => {
    expect(parseServerEntry('s', { command: '${HOME}/bin/srv', args: ['--dir=${HOME}'], env: { TOKEN: '${TOK:-none}' } }, 'dynamic', env)).toEqual({
      kind: 'stdio',
      name: 's',
      source: 'dynamic',
      config: { command: '/home/u/bin/srv', args: ['--dir=/home/u'], env: { TOKEN: 'none' } },
    });
    expect(parseServerEntry('r', { type: 'http', url: 'http://127.0.0.1:${PORT:-8080}/mcp', headers: { Authorization: 'Bearer ${KEY}' } }, 'project', env)).toEqual({
      kind: 'remote',
      name: 'r',
      source: 'project',
      config: { type: 'http', url: 'http://127.0.0.1:8080/mcp', headers: { Authorization: 'Bearer ${KEY}' } },
      missingEnv: ['KEY'],
    });
    expect(parseServerEntry('h', { type: 'sdk', name: 'h' }, 'dynamic', env)).toEqual({ kind: 'sdk', name: 'h', source: 'sdk', config: { type: 'sdk', name: 'h' } });
  });
});

describe('bad entries fail alone; bad documents stop start-up', () => {
  it('an unknown type, a missing command or a non-object entry makes only that server invalid, with the reason', () => {
    const specs = parseMcpConfigFlag(JSON.stringify({ mcpServers: { ok: { command: 'srv' }, ws: { type: 'ws', url: 'ws://x' }, nocmd: { args: ['a'] }, str: 'x' } }), { cwd: '/', env: {} });
    expect(specs.map((s) => [s.name, s.kind, s.kind === 'invalid' ? s.reason : ''])).toEqual([
      ['ok', 'stdio', ''],
      ['ws', 'invalid', 'unknown server type "ws" (agentd knows stdio, http, sse and sdk)'],
      ['nocmd', 'invalid', expect.stringContaining('invalid stdio server config: command')],
      ['str', 'invalid', 'the server config is not a JSON object'],
    ]);
  });

  it('a value that is neither JSON nor a readable file, or JSON that does not parse, is a McpConfigError naming it', () => {
    expect(() => parseMcpConfigFlag('{bad', { cwd: '/', env: {} })).toThrow(McpConfigError);
    expect(() => parseMcpConfigFlag('{bad', { cwd: '/', env: {} })).toThrow(/--mcp-config is not valid JSON/);
    expect(() => parseMcpConfigFlag('nope.json', { cwd: '/tmp', env: {} })).toThrow(/"nope.json" is neither JSON nor a readable file/);
    expect(() => parseMcpConfigFlag('{"mcpServers": []}', { cwd: '/', env: {} })).toThrow(/"mcpServers" is not an object/);
  });

  it('reads a config file given by path, relative to the working directory', () => {
    const dir = tempDir('agentd-mcpcfg-');
    writeFileSync(join(dir, 'servers.json'), JSON.stringify({ mcpServers: { a: { command: 'a' } } }));
    expect(parseMcpConfigFlag('servers.json', { cwd: dir, env: {} }).map((s) => s.name)).toEqual(['a']);
  });
});

describe('sources and precedence', () => {
  function world() {
    const cwd = tempDir('agentd-mcpproj-');
    const home = tempDir('agentd-mcphome-');
    mkdirSync(home, { recursive: true });
    const globalConfigFile = join(home, '.claude.json');
    writeFileSync(
      globalConfigFile,
      JSON.stringify({ mcpServers: { shared: { command: 'user-shared' }, u: { command: 'user-only' } }, projects: { [cwd]: { mcpServers: { shared: { command: 'local-shared' }, l: { command: 'local-only' } } } } }),
    );
    writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { shared: { command: 'project-shared' }, p: { command: 'project-only' } } }));
    return { cwd, globalConfigFile, env: {} };
  }
  const summary = (specs: ReturnType<typeof resolveMcpServers>) => specs.map((s) => [s.name, s.source, s.kind === 'stdio' ? s.config.command : s.kind]);

  it('flag over local over project over user; later --mcp-config values win', () => {
    const w = world();
    const flags = [JSON.stringify({ mcpServers: { f: { command: 'flag-1' } } }), JSON.stringify({ mcpServers: { f: { command: 'flag-2' }, shared: { command: 'flag-shared' } } })];
    expect(summary(resolveMcpServers({ ...w, flags, strict: false, sources: ['user', 'project', 'local'] }))).toEqual([
      ['f', 'dynamic', 'flag-2'],
      ['shared', 'dynamic', 'flag-shared'],
      ['l', 'local', 'local-only'],
      ['p', 'project', 'project-only'],
      ['u', 'user', 'user-only'],
    ]);
    expect(summary(resolveMcpServers({ ...w, flags: [], strict: false, sources: ['user', 'project', 'local'] }))[0]).toEqual(['shared', 'local', 'local-shared']);
  });

  it('--setting-sources picks the scopes; --strict-mcp-config keeps only the flag', () => {
    const w = world();
    expect(summary(resolveMcpServers({ ...w, flags: [], strict: false, sources: ['project'] }))).toEqual([
      ['shared', 'project', 'project-shared'],
      ['p', 'project', 'project-only'],
    ]);
    expect(summary(resolveMcpServers({ ...w, flags: [], strict: false, sources: [] }))).toEqual([]);
    expect(summary(resolveMcpServers({ ...w, flags: [JSON.stringify({ mcpServers: { f: { command: 'x' } } })], strict: true, sources: ['user', 'project', 'local'] }))).toEqual([
      ['f', 'dynamic', 'x'],
    ]);
  });

  it('disabledMcpjsonServers leaves a .mcp.json server out entirely (as Claude Code), other scopes untouched', () => {
    const w = world();
    expect(summary(resolveMcpServers({ ...w, flags: [], strict: false, sources: ['project', 'user'], disabledProjectServers: ['p', 'shared'] }))).toEqual([
      ['shared', 'user', 'user-shared'],
      ['u', 'user', 'user-only'],
    ]);
  });

  it('a .mcp.json that does not parse is a start-up error naming the file', () => {
    const w = world();
    writeFileSync(join(w.cwd, '.mcp.json'), '{ nope');
    expect(() => resolveMcpServers({ ...w, flags: [], strict: false, sources: ['project'] })).toThrow(new RegExp(`${join(w.cwd, '.mcp.json').replace(/[.]/g, '\\.')} is not valid JSON`));
  });
});

describe("a repository's servers and agentd's credentials", () => {
  const KEY = 'sk-ant-unit-key-00000000';
  const env = { ANTHROPIC_API_KEY: KEY, CLAUDE_CODE_OAUTH_TOKEN: 'oauth-tok-00000000', AWS_SECRET_ACCESS_KEY: 'aws-secret', HOME: '/home/u', AGENTD_SECRET_ENV: 'MY_TOKEN', MY_TOKEN: 'mine-0000000' };
  const remote = { type: 'http', url: 'https://x.test/mcp?k=${ANTHROPIC_API_KEY}&h=${HOME}', headers: { Authorization: 'Bearer ${ANTHROPIC_API_KEY}', 'X-Aws': '${AWS_SECRET_ACCESS_KEY}', 'X-Def': '${CLAUDE_CODE_OAUTH_TOKEN:-none}', 'X-Mine': '${MY_TOKEN}' } };

  it("${VAR} never yields agentd's credentials, in any scope; a project server's config does not get the cloud ones either", () => {
    const config = (source: 'project' | 'user' | 'dynamic') => {
      const s = parseServerEntry('r', remote, source, env);
      return s.kind === 'remote' ? s.config : undefined;
    };
    expect(config('project')).toEqual({ type: 'http', url: 'https://x.test/mcp?k=&h=/home/u', headers: { Authorization: 'Bearer ', 'X-Aws': '', 'X-Def': 'none', 'X-Mine': '' } });
    expect(config('user')).toEqual({ type: 'http', url: 'https://x.test/mcp?k=&h=/home/u', headers: { Authorization: 'Bearer ', 'X-Aws': 'aws-secret', 'X-Def': 'none', 'X-Mine': '' } });
    expect(config('dynamic')).toEqual(config('user'));
    const stdio = parseServerEntry('s', { command: 'srv', args: ['--key=${ANTHROPIC_API_KEY}'], env: { K: '${ANTHROPIC_API_KEY}' } }, 'project', env);
    expect(stdio).toEqual({ kind: 'stdio', name: 's', source: 'project', config: { command: 'srv', args: ['--key='], env: { K: '' } } });
  });

  it('a .mcp.json server nobody approved is withheld (its config as written, never expanded); approved names and all-approval start', () => {
    const cwd = tempDir('agentd-mcpapprove-');
    writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { a: { command: 'a', args: ['${ANTHROPIC_API_KEY}'] }, b: remote } }));
    const base = { flags: [], strict: false, sources: ['project' as const], cwd, globalConfigFile: join(cwd, 'none.json'), env };
    const why = (n: string): string => `not approved: ${n}`;
    expect(resolveMcpServers({ ...base, projectApproval: { all: false, names: ['a'], why } })).toEqual([
      { kind: 'stdio', name: 'a', source: 'project', config: { command: 'a', args: [''] } },
      { kind: 'withheld', name: 'b', source: 'project', reason: 'not approved: b', config: remote },
    ]);
    expect(resolveMcpServers({ ...base, projectApproval: { all: true, names: [], why } }).map((s) => s.kind)).toEqual(['stdio', 'remote']);
    expect(resolveMcpServers({ ...base, projectApproval: { all: false, names: [], why }, disabledProjectServers: ['b'] }).map((s) => [s.name, s.kind])).toEqual([['a', 'withheld']]);
  });

  it('the global config file read once by the caller is used as read (a file that is not JSON is the same start-up error)', () => {
    const cwd = tempDir('agentd-mcpglobal-');
    const globalConfigFile = join(cwd, 'g.json');
    const base = { flags: [], strict: false, sources: ['user' as const], cwd, globalConfigFile, env: {} };
    expect(resolveMcpServers({ ...base, globalConfig: { kind: 'ok', value: { mcpServers: { u: { command: 'u' } } } } }).map((s) => s.name)).toEqual(['u']);
    expect(resolveMcpServers({ ...base, globalConfig: { kind: 'missing' } })).toEqual([]);
    expect(() => resolveMcpServers({ ...base, globalConfig: { kind: 'unreadable', why: 'json', message: 'Unexpected token' } })).toThrow(`Invalid MCP configuration: ${globalConfigFile} is not valid JSON (Unexpected token).`);
  });
});

describe('per-tool permission policies (tools[].permission_policy)', () => {
  it('read leniently: nameless entries dropped, a non-list absent, an unknown policy asks, the org ceiling tightens', () => {
    const list = [
      { name: 'a', permission_policy: 'always_deny' },
      { name: 'b', permission_policy: 'always_ask' },
      { name: 'c', permission_policy: 'always_allow' },
      { name: 'd', permission_policy: 'whenever' },
      { name: 'e', permission_policy: 'always_allow', org_max_permission: 'blocked' },
      { name: 'f', org_max_permission: 'ask' },
      { name: 'g' },
      { permission_policy: 'always_deny' },
      7,
    ];
    expect(Object.fromEntries(toolPolicies(list, 'remote'))).toEqual({ a: 'always_deny', b: 'always_ask', c: 'always_allow', d: 'always_ask', e: 'always_deny', f: 'always_ask' });
    // An SDK server's host grants with allowedTools or canUseTool: always_allow is not honoured there.
    expect(Object.fromEntries(toolPolicies(list, 'sdk'))).toEqual({ a: 'always_deny', b: 'always_ask', d: 'always_ask', e: 'always_deny', f: 'always_ask' });
    expect(toolPolicies({ name: 'a', permission_policy: 'always_deny' }, 'sdk').size).toBe(0);
  });

  it('a malformed list does not make the server invalid', () => {
    expect(parseServerEntry('r', { type: 'http', url: 'http://127.0.0.1/mcp', tools: [{ permission_policy: 'always_ask' }] }, 'dynamic', {})).toMatchObject({ kind: 'remote' });
    expect(parseServerEntry('h', { type: 'sdk', name: 'h', tools: 'nope' }, 'dynamic', {})).toMatchObject({ kind: 'sdk' });
  });
});

describe('servers contributed by other parts (plugins)', () => {
  it('come after every configured scope and are left out under --strict-mcp-config', () => {
    const cwd = tempDir();
    const extra = [
      { name: 'flagged', config: { command: 'plugin-version' }, source: 'plugin' as const },
      { name: 'plug', config: { command: 'plug-srv' }, source: 'plugin' as const },
    ];
    const flags = [JSON.stringify({ mcpServers: { flagged: { command: 'flag-version' } } })];
    const base = { flags, cwd, globalConfigFile: join(cwd, 'none.json'), env: {}, sources: ['project' as const], extra };
    expect(resolveMcpServers({ ...base, strict: false }).map((s) => [s.name, s.source, s.kind === 'stdio' ? s.config.command : ''])).toEqual([
      ['flagged', 'dynamic', 'flag-version'],
      ['plug', 'plugin', 'plug-srv'],
    ]);
    expect(resolveMcpServers({ ...base, strict: true }).map((s) => s.name)).toEqual(['flagged']);
  });
});
