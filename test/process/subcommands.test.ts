// Subcommands at the process level (issue 10): `agentd auth status --json` and friends are answered locally, as
// Claude Code 2.1.330 answers them, and never become a prompt. Every run here has a loopback Messages server as
// ANTHROPIC_BASE_URL and a fresh HOME / CLAUDE_CONFIG_DIR: the last test checks that no model request was made
// and no session or transcript file was written by any of them.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAGS } from '../../src/cli/flags.js';
import { AGENTD } from '../support/daemon.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';
import { findOnPath } from '../../src/util/find-on-path.js';
import { shippedRipgrep } from '../../src/tools/ripgrep.js';

let server: LoopbackServer;
const root = mkdtempSync(join(tmpdir(), 'agentd-subcommands-'));
const homes: string[] = [];
let n = 0;

beforeAll(async () => {
  server = await startLoopbackServer({ rules: [{ reply: { content: [{ type: 'text', text: 'a model answer nobody asked for' }] } }] });
});
afterAll(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

interface Home {
  home: string;
  config: string;
  cwd: string;
}

function newHome(): Home {
  const home = join(root, `home-${++n}`);
  const cwd = join(root, `cwd-${n}`);
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  homes.push(home);
  return { home, config: join(home, '.claude'), cwd };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns the built daemon (asynchronously: the loopback server lives in this process and must keep serving). */
function run(args: string[], opts: { env?: Record<string, string>; home?: Home; input?: string; path?: string } = {}): Promise<Run> {
  const h = opts.home ?? newHome();
  const env: Record<string, string> = {
    PATH: opts.path ?? process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: h.home,
    CLAUDE_CONFIG_DIR: h.config,
    ANTHROPIC_BASE_URL: server.url,
    AGENTD_LOG_LEVEL: 'warn',
    ...opts.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AGENTD, ...args], { cwd: h.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const KEY = 'sk-ant-test-secret-000000';

function status(h: Home, over: Partial<Record<string, unknown>> = {}, agentd: Partial<Record<string, unknown>> = {}) {
  return {
    loggedIn: true,
    authMethod: 'api_key',
    apiProvider: 'firstParty',
    analyticsDisabled: true,
    projectsDirectory: join(h.config, 'projects'),
    configDirectory: h.config,
    loginExpiresAt: null,
    consoleProfileSignInOffered: false,
    apiKeySource: 'ANTHROPIC_API_KEY',
    ...over,
    agentd: { modelProvider: 'anthropic', credentials: ['ANTHROPIC_API_KEY'], baseUrl: server.url, unused: [], ...agentd },
  };
}

describe('auth status', () => {
  it('--json with ANTHROPIC_API_KEY: Claude Code\'s fields, the key never printed, exit 0', async () => {
    const h = newHome();
    const r = await run(['auth', 'status', '--json'], { home: h, env: { ANTHROPIC_API_KEY: KEY } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(status(h));
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(r.stderr).toBe('');
  });

  it('defaults to JSON; with no credentials loggedIn is false and the exit code 1 (as Claude Code)', async () => {
    const h = newHome();
    const r = await run(['auth', 'status'], { home: h });
    expect(r.code).toBe(1);
    const { apiKeySource: _, ...rest } = status(h, { loggedIn: false, authMethod: 'none' }, { credentials: [] });
    expect(JSON.parse(r.stdout)).toEqual(rest);
  });

  it('ANTHROPIC_AUTH_TOKEN (alone and next to a key) is authMethod oauth_token, as Claude Code reports it; the source is named', async () => {
    const h = newHome();
    const token = await run(['auth', 'status', '--json'], { home: h, env: { ANTHROPIC_AUTH_TOKEN: 'tok-secret' } });
    // apiKeySource names the token (Claude Code leaves it out; then claude-agent-acp shows "Not logged in").
    expect([token.code, JSON.parse(token.stdout)]).toEqual([0, status(h, { authMethod: 'oauth_token', apiKeySource: 'ANTHROPIC_AUTH_TOKEN' }, { credentials: ['ANTHROPIC_AUTH_TOKEN'] })]);
    const both = await run(['auth', 'status'], { home: h, env: { ANTHROPIC_AUTH_TOKEN: 'tok-secret', ANTHROPIC_API_KEY: KEY } });
    expect([both.code, JSON.parse(both.stdout)]).toEqual([0, status(h, { authMethod: 'oauth_token' }, { credentials: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'] })]);
  });

  it('apiKeyHelper from a global --settings wins over the user file; a lower-precedence CLAUDE_CODE_OAUTH_TOKEN is reported unused', async () => {
    const h = newHome();
    mkdirSync(h.config, { recursive: true });
    writeFileSync(join(h.config, 'settings.json'), JSON.stringify({ apiKeyHelper: 'print-my-key' }));
    const r = await run(['--settings', '{"apiKeyHelper":"other-helper"}', 'auth', 'status', '--json'], { home: h, env: { CLAUDE_CODE_OAUTH_TOKEN: 'oat-secret' } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(
      status(h, { authMethod: 'api_key_helper', apiKeySource: 'apiKeyHelper' }, { credentials: ['apiKeyHelper'], unused: [{ source: 'CLAUDE_CODE_OAUTH_TOKEN', reason: 'apiKeyHelper takes precedence' }] }),
    );
    expect(r.stdout).not.toContain('secret');
  });

  it('CLAUDE_CODE_OAUTH_TOKEN alone is authMethod oauth_token; a cloud provider is third_party with its endpoint (as Claude Code)', async () => {
    const h = newHome();
    const oauth = await run(['auth', 'status'], { home: h, env: { CLAUDE_CODE_OAUTH_TOKEN: 'oat-secret' } });
    expect([oauth.code, JSON.parse(oauth.stdout)]).toEqual([0, status(h, { authMethod: 'oauth_token', apiKeySource: 'CLAUDE_CODE_OAUTH_TOKEN' }, { credentials: ['CLAUDE_CODE_OAUTH_TOKEN'] })]);
    const bedrock = await run(['auth', 'status'], { home: h, env: { CLAUDE_CODE_USE_BEDROCK: '1', AWS_REGION: 'eu-west-1', ANTHROPIC_BASE_URL: '' } });
    const { apiKeySource: _a, consoleProfileSignInOffered: _c, ...rest } = status(h, { authMethod: 'third_party', apiProvider: 'bedrock' }, { credentials: [], baseUrl: 'https://bedrock-runtime.eu-west-1.amazonaws.com' });
    expect([bedrock.code, JSON.parse(bedrock.stdout)]).toEqual([0, rest]);
    const foundry = await run(['auth', 'status', '--text'], { home: h, env: { CLAUDE_CODE_USE_FOUNDRY: '1', ANTHROPIC_FOUNDRY_RESOURCE: 'res' } });
    expect(foundry.code).toBe(1);
    expect(foundry.stdout).toContain('Not used by agentd: CLAUDE_CODE_USE_FOUNDRY (CLAUDE_CODE_USE_FOUNDRY: agentd authenticates to Foundry with ANTHROPIC_FOUNDRY_API_KEY only');
  });

  it('the scripted model needs no credentials', async () => {
    const h = newHome();
    const r = await run(['auth', 'status'], { home: h, env: { AGENTD_MODEL_PROVIDER: 'scripted' } });
    const { apiKeySource: _, ...rest } = status(h, { authMethod: 'none' }, { modelProvider: 'scripted', credentials: [], baseUrl: null });
    expect([r.code, JSON.parse(r.stdout)]).toEqual([0, rest]);
  });

  it('--text prints Claude Code\'s lines (--text wins over --json, as there)', async () => {
    const h = newHome();
    const r = await run(['auth', 'status', '--json', '--text'], { home: h, env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_AUTH_TOKEN: 'tok', NODE_EXTRA_CA_CERTS: '/nonexistent/ca.pem' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Auth token: ANTHROPIC_AUTH_TOKEN\nAPI key: ANTHROPIC_API_KEY\nAnthropic base URL: ${server.url}\nAdditional CA cert(s): /nonexistent/ca.pem\n`);
    const out = await run(['auth', 'status', '--text'], { home: h, env: { CLAUDE_CODE_OAUTH_TOKEN: 'x', HTTPS_PROXY: 'http://user:pw@proxy.example:3128' } });
    expect([out.code, out.stdout]).toEqual([0, `OAuth token: CLAUDE_CODE_OAUTH_TOKEN\nProxy: http://***@proxy.example:3128\nAnthropic base URL: ${server.url}\n`]);
    const none = await run(['auth', 'status', '--text'], { home: h });
    expect([none.code, none.stdout]).toEqual([
      1,
      `Anthropic base URL: ${server.url}\nNot logged in. Set ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN or apiKeyHelper, or select a cloud provider (run agentd auth login for details).\n`,
    ]);
  });

  it('help and usage errors: exit 0 for --help, 1 for a bare `auth` (as Claude Code), 2 for an unknown option or command', async () => {
    const help = await run(['auth', '--help']);
    expect([help.code, help.stdout.split('\n')[0]]).toEqual([0, 'Usage: agentd auth [command]']);
    const bare = await run(['auth']);
    expect([bare.code, bare.stdout]).toEqual([1, help.stdout]);
    const sh = await run(['auth', 'status', '-h']);
    expect([sh.code, sh.stdout.split('\n')[0]]).toEqual([0, 'Usage: agentd auth status [options]']);
    expect(await run(['auth', 'status', '--bogus'])).toEqual({ code: 2, stdout: '', stderr: "error: unknown option '--bogus'\n" });
    expect(await run(['auth', 'whoami'])).toEqual({ code: 2, stdout: '', stderr: "error: unknown command 'whoami' (agentd auth has: status, login, logout)\n" });
  });
});

describe('auth login / logout', () => {
  it('login explains what to set: exit 1 without credentials, 0 with; Claude Code\'s login flags are accepted', async () => {
    const r = await run(['auth', 'login', '--console']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('export ANTHROPIC_API_KEY=sk-ant-...');
    expect(r.stdout).toContain('Not logged in.');
    const ok = await run(['auth', 'login', '--claudeai'], { env: { ANTHROPIC_API_KEY: KEY } });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('  API key: ANTHROPIC_API_KEY\n');
  });

  it('logout: nothing stored, exit 0 (the ACP adapter runs it on logout and fails on non-zero)', async () => {
    expect(await run(['auth', 'logout'], { env: { ANTHROPIC_API_KEY: KEY } })).toEqual({
      code: 0,
      stdout: 'agentd stores no credentials, so there is nothing to log out of. It currently uses ANTHROPIC_API_KEY from its environment: unset it to stop.\n',
      stderr: '',
    });
    expect(await run(['auth', 'logout'])).toEqual({ code: 0, stdout: 'agentd stores no credentials, so there is nothing to log out of.\n', stderr: '' });
  });
});

describe('mcp', () => {
  const configure = (): Home => {
    const h = newHome();
    writeFileSync(
      join(h.cwd, '.mcp.json'),
      JSON.stringify({ mcpServers: { proj: { command: 'node', args: ['server.js'], env: { TOKEN: 'env-secret' } }, web: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer header-secret' } } } }),
    );
    mkdirSync(h.config, { recursive: true });
    writeFileSync(join(h.config, '.claude.json'), JSON.stringify({ mcpServers: { userS: { command: 'uvx', args: ['thing'] } }, projects: { [h.cwd]: { mcpServers: { mine: { type: 'sse', url: 'http://127.0.0.1:1/sse' } } } } }));
    return h;
  };

  it('list: every configured server (local, project, user), marked as not connected; nothing is started', async () => {
    const h = configure();
    expect(await run(['mcp', 'list'], { home: h })).toEqual({
      code: 0,
      stdout: [
        'mine: http://127.0.0.1:1/sse (SSE) - not checked: agentd mcp list does not connect to servers (sessions do)',
        'proj: node server.js - not checked: agentd mcp list does not connect to servers (sessions do)',
        'web: https://example.com/mcp (HTTP) - not checked: agentd mcp list does not connect to servers (sessions do)',
        'userS: uvx thing - not checked: agentd mcp list does not connect to servers (sessions do)',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(await run(['mcp', 'list'])).toEqual({ code: 0, stdout: 'No MCP servers configured.\n', stderr: '' });
  });

  it('get: the details without environment or header values; an unknown name is exit 1', async () => {
    const h = configure();
    expect(await run(['mcp', 'get', 'proj'], { home: h })).toEqual({
      code: 0,
      stdout: [
        'proj:',
        '  Scope: Project config (shared via .mcp.json)',
        '  Status: not checked: agentd mcp list does not connect to servers (sessions do)',
        '  Type: stdio',
        '  Command: node',
        '  Args: server.js',
        '  Environment (values not shown):',
        '    TOKEN',
        `  Configured in: ${join(h.cwd, '.mcp.json')}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    const web = await run(['mcp', 'get', 'web'], { home: h });
    expect(web.stdout).toContain('  Headers (values not shown):\n    Authorization\n');
    expect(web.stdout).not.toContain('secret');
    expect(await run(['mcp', 'get', 'nope'], { home: h })).toEqual({ code: 1, stdout: '', stderr: 'No MCP server named "nope".\n' });
    expect(await run(['mcp', 'get'], { home: h })).toEqual({ code: 2, stdout: '', stderr: "error: missing required argument 'name'\n" });
  });

  it('login/…: a clear refusal, exit 1; an unknown mcp command is exit 2; bare `mcp` prints help, exit 1', async () => {
    const byHand = 'Use agentd mcp add|add-json|remove, or edit .mcp.json (project) or ~/.claude.json (user) by hand.';
    const refusals: Array<[string[], string]> = [
      [['login', 'x'], "'mcp login' is not available in agentd: OAuth runs inside a session, started by the host (the SDK's mcpAuthenticate, control request mcp_authenticate; mcpClearAuth forgets a grant), or give the server a token in its headers, e.g. agentd mcp add -t http -H 'Authorization: Bearer ${TOKEN}' <name> <url>."],
      [['add-from-claude-desktop'], `'mcp add-from-claude-desktop' is not available in agentd (it is an interactive import of Claude Desktop's servers). ${byHand}`],
    ];
    for (const [sub, message] of refusals) expect(await run(['mcp', ...sub])).toEqual({ code: 1, stdout: '', stderr: `${message}\n` });
    expect(await run(['mcp', 'frobnicate'])).toEqual({ code: 2, stdout: '', stderr: "error: unknown command 'frobnicate' (agentd mcp has: add, add-json, remove, list, get)\n" });
    const bare = await run(['mcp']);
    expect([bare.code, bare.stdout.split('\n')[0]]).toEqual([1, 'Usage: agentd mcp [command]']);
  });

  // The files, messages and exit codes below are what Claude Code 2.1.330 writes and prints for the same commands
  // (driven with a fresh HOME), except that agentd never prints header values.
  it('add: local, project and user scope land in the same files as Claude Code, other keys kept; list/get see them', async () => {
    const h = newHome();
    mkdirSync(h.config, { recursive: true });
    const global = join(h.config, '.claude.json');
    writeFileSync(global, JSON.stringify({ userID: 'u1', projects: { [h.cwd]: { allowedTools: ['Read'] }, '/elsewhere': { mcpServers: { o: { command: 'x' } } } } }));
    expect(await run(['mcp', 'add', 'my', '-e', 'API_KEY=xxx', '-e', 'B=2', '--', 'node', './s.js', '--flag', 'a'], { home: h })).toEqual({
      code: 0,
      stdout: `Added stdio MCP server my with command: node ./s.js --flag a to local config\nFile modified: ${global} [project: ${h.cwd}]\n`,
      stderr: '',
    });
    expect(await run(['mcp', 'add', '-s', 'project', '-t', 'http', 'web', 'http://127.0.0.1:1/mcp', '-H', 'X-Api-Key: abc', '-H', 'Authorization: Bearer x'], { home: h })).toEqual({
      code: 0,
      stdout: [
        'Added HTTP MCP server web with URL: http://127.0.0.1:1/mcp to project config',
        'Headers: {',
        '  "X-Api-Key": "[REDACTED]",',
        '  "Authorization": "[REDACTED]"',
        '}',
        `File modified: ${join(h.cwd, '.mcp.json')}`,
        '',
      ].join('\n'),
      stderr: '',
    });
    // Long options, and commander's attached short form (-suser), as Claude Code accepts them.
    expect(await run(['mcp', 'add', '--scope', 'user', '-tsse', 'ss', 'http://127.0.0.1:2/sse'], { home: h })).toEqual({
      code: 0,
      stdout: `Added SSE MCP server ss with URL: http://127.0.0.1:2/sse to user config\nFile modified: ${global}\n`,
      stderr: '',
    });
    expect(await run(['mcp', 'add-json', 'j', '{"type":"stdio","command":"echo","args":["hi"]}'], { home: h })).toEqual({ code: 0, stdout: 'Added stdio MCP server j to local config\n', stderr: '' });
    expect(await run(['mcp', 'add-json', '-s', 'user', 'k', '-'], { home: h, input: '{"command":"c"}' })).toEqual({ code: 0, stdout: 'Added stdio MCP server k to user config\n', stderr: '' });
    expect(readFileSync(global, 'utf8')).toBe(
      JSON.stringify(
        {
          userID: 'u1',
          projects: {
            [h.cwd]: {
              allowedTools: ['Read'],
              mcpServers: {
                my: { type: 'stdio', command: 'node', args: ['./s.js', '--flag', 'a'], env: { API_KEY: 'xxx', B: '2' } },
                j: { type: 'stdio', command: 'echo', args: ['hi'] },
              },
            },
            '/elsewhere': { mcpServers: { o: { command: 'x' } } },
          },
          mcpServers: { ss: { type: 'sse', url: 'http://127.0.0.1:2/sse' }, k: { command: 'c', args: [] } },
        },
        null,
        2,
      ),
    );
    expect(readFileSync(join(h.cwd, '.mcp.json'), 'utf8')).toBe(
      JSON.stringify({ mcpServers: { web: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { 'X-Api-Key': 'abc', Authorization: 'Bearer x' } } } }, null, 2),
    );
    expect(readdirSync(h.cwd)).toEqual(['.mcp.json']);
    expect(readdirSync(h.config)).toEqual(['.claude.json']);
    const note = 'not checked: agentd mcp list does not connect to servers (sessions do)';
    expect(await run(['mcp', 'list'], { home: h })).toEqual({
      code: 0,
      stdout: [`my: node ./s.js --flag a - ${note}`, `j: echo hi - ${note}`, `web: http://127.0.0.1:1/mcp (HTTP) - ${note}`, `ss: http://127.0.0.1:2/sse (SSE) - ${note}`, `k: c - ${note}`, ''].join('\n'),
      stderr: '',
    });
    const got = await run(['mcp', 'get', 'my'], { home: h });
    expect(got.stdout).toBe(
      ['my:', '  Scope: Local config (private to you in this project)', `  Status: ${note}`, '  Type: stdio', '  Command: node', '  Args: ./s.js --flag a', '  Environment (values not shown):', '    API_KEY', '    B', `  Configured in: ${global}`, ''].join('\n'),
    );
  });

  it('add: a fresh HOME gets a private ~/.claude.json; a URL without --transport is stdio with a warning; the bad cases are exit 1 or 2 and change nothing', async () => {
    const h = newHome();
    const global = join(h.config, '.claude.json');
    expect(await run(['mcp', 'add', 'h', 'https://x/y'], { home: h })).toEqual({
      code: 0,
      stdout: `Added stdio MCP server h with command: https://x/y  to local config\nFile modified: ${global} [project: ${h.cwd}]\n`,
      stderr: [
        'Warning: The command "https://x/y" looks like a URL, but is treated as a stdio server because --transport wasn\'t set.',
        'If this is an HTTP server, use: agentd mcp add --transport http h https://x/y',
        'If this is an SSE server, use: agentd mcp add --transport sse h https://x/y',
        '',
      ].join('\n'),
    });
    expect(statSync(global).mode & 0o777).toBe(0o600);
    const before = readFileSync(global, 'utf8');
    expect(JSON.parse(before)).toEqual({ projects: { [h.cwd]: { mcpServers: { h: { type: 'stdio', command: 'https://x/y', args: [], env: {} } } } } });
    const cases: Array<[string[], Run, string?]> = [
      [['add', 'h', 'node'], { code: 1, stdout: '', stderr: 'MCP server h already exists in local config\n' }],
      [['add', '-s', 'bogus', 'z', 'node'], { code: 1, stdout: '', stderr: 'Invalid scope: bogus. Must be one of: local, user, project, dynamic, enterprise, claudeai, managed, agent\n' }],
      [['add', '-t', 'bogus', 'z', 'node'], { code: 1, stdout: '', stderr: 'Invalid transport type: bogus. Must be one of: stdio, sse, http (or streamable-http)\n' }],
      [['add', '-t', 'http', 'h2', 'u', '-H', 'bad'], { code: 1, stdout: '', stderr: 'Invalid header format: "bad". Expected format: "Header-Name: value"\n' }],
      // -e and -H take every following word, as Claude Code's: without `--` the command is swallowed.
      [['add', 'a', '-e', 'K=v', 'node', 'x'], { code: 2, stdout: '', stderr: "error: missing required argument 'commandOrUrl'\n" }],
      [['add', '-t', 'http'], { code: 2, stdout: '', stderr: "error: missing required argument 'name'\n" }],
      [['add', 'x'], { code: 2, stdout: '', stderr: "error: missing required argument 'commandOrUrl'\n" }],
      [['add', '--frob', 'x', 'y'], { code: 2, stdout: '', stderr: "error: unknown option '--frob'\n" }],
      [['add', '--client-id', 'id', '-t', 'http', 'o', 'http://x'], { code: 1, stdout: '', stderr: '--client-id: OAuth for MCP servers is not available in agentd. Pass a token with -H "Authorization: Bearer …" instead.\n' }],
      [['add-json', '-s', 'user', 'bad', '{nope'], { code: 1, stdout: '', stderr: 'Invalid configuration: not a JSON object. Check its quotes, commas and braces.\n' }],
      [['add-json', 'bad2', '{"type":"ws2"}'], { code: 1, stdout: '', stderr: 'Invalid configuration: unknown "type". Use "stdio", "sse", "http" (or "streamable-http") or "ws".\n' }],
      [['add-json', '-s', 'project', 'j2', '{"url":"http://x/y"}'], { code: 1, stdout: '', stderr: 'Invalid configuration: it has a "url" but no "type". Add "type": "http" (or "sse" / "ws").\n' }],
      [['add-json', 'h', '{"command":"c"}'], { code: 1, stdout: '', stderr: 'MCP server h already exists in local config\n' }],
      [['add', 'bad name', 'node'], { code: 1, stdout: '', stderr: 'Invalid name bad name. Names can only contain letters, numbers, hyphens, and underscores.\n' }],
      [['add-json', 'a.b', '{"command":"x"}'], { code: 1, stdout: '', stderr: 'Invalid name a.b. Names can only contain letters, numbers, hyphens, and underscores.\n' }],
    ];
    for (const [args, want] of cases) expect([args, await run(['mcp', ...args], { home: h })]).toEqual([args, want]);
    expect(readFileSync(global, 'utf8')).toBe(before);
    expect(readdirSync(h.cwd)).toEqual([]);
    // A file that does not parse is never overwritten.
    writeFileSync(join(h.cwd, '.mcp.json'), '{ not json');
    const broken = await run(['mcp', 'add', '-s', 'project', 'p', 'node'], { home: h });
    expect([broken.code, broken.stdout, broken.stderr.startsWith(`Cannot update ${join(h.cwd, '.mcp.json')}: `)]).toEqual([1, '', true]);
    expect(readFileSync(join(h.cwd, '.mcp.json'), 'utf8')).toBe('{ not json');
    // A config directory that cannot be created: exit 1 with the reason, nothing left behind.
    const file = join(h.home, 'not-a-dir');
    writeFileSync(file, '');
    const unwritable = await run(['mcp', 'add', '-s', 'user', 'u', 'node'], { home: h, env: { CLAUDE_CONFIG_DIR: file } });
    expect([unwritable.code, unwritable.stdout, unwritable.stderr.startsWith(`Cannot write ${join(file, '.claude.json')}: `)]).toEqual([1, '', true]);
    expect(readdirSync(h.home).sort()).toEqual(['.claude', 'not-a-dir']);
  });

  it('remove: from the one scope that has it, or the named scope; ambiguous and unknown names are exit 1', async () => {
    const h = newHome();
    const global = join(h.config, '.claude.json');
    for (const args of [['add', 'a', 'node', 'x'], ['add', '-s', 'user', 'a', 'node', 'y'], ['add', '-s', 'project', 'p', 'node', 'z']]) expect((await run(['mcp', ...args], { home: h })).code).toBe(0);
    expect(await run(['mcp', 'remove', 'a'], { home: h })).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'MCP server "a" exists in multiple scopes:',
        `  - Local config (private to you in this project) (${global} [project: ${h.cwd}])`,
        `  - User config (available in all your projects) (${global})`,
        '',
        'To remove from a specific scope, use:',
        '  agentd mcp remove a -s local',
        '  agentd mcp remove a -s user',
        '',
      ].join('\n'),
    });
    expect(await run(['mcp', 'remove', '-s', 'user', 'a'], { home: h })).toEqual({ code: 0, stdout: `Removed MCP server a from user config\nFile modified: ${global}\n`, stderr: '' });
    expect(await run(['mcp', 'remove', 'p'], { home: h })).toEqual({ code: 0, stdout: `Removed MCP server "p" from project config\nFile modified: ${join(h.cwd, '.mcp.json')}\n`, stderr: '' });
    expect(await run(['mcp', 'remove', 'nope'], { home: h })).toEqual({ code: 1, stdout: '', stderr: 'No MCP server named "nope". Configured servers: a\n' });
    expect(await run(['mcp', 'remove', '-s', 'user', 'nope'], { home: h })).toEqual({ code: 1, stdout: '', stderr: 'No MCP server named "nope" in user scope\n' });
    expect(await run(['mcp', 'remove', '-s', 'project', 'nope'], { home: h })).toEqual({ code: 1, stdout: '', stderr: 'No MCP server named "nope" in .mcp.json\n' });
    expect(await run(['mcp', 'remove', 'a'], { home: h })).toEqual({ code: 0, stdout: `Removed MCP server a from local config\nFile modified: ${global} [project: ${h.cwd}]\n`, stderr: '' });
    expect(readFileSync(join(h.cwd, '.mcp.json'), 'utf8')).toBe(JSON.stringify({ mcpServers: {} }, null, 2));
    expect(JSON.parse(readFileSync(global, 'utf8'))).toEqual({ projects: { [h.cwd]: { mcpServers: {} } }, mcpServers: {} });
    expect(await run(['mcp', 'remove', 'a'], { home: h })).toEqual({ code: 1, stdout: '', stderr: 'No MCP server named "a". Run `agentd mcp add` to add one.\n' });
    expect(await run(['mcp', 'list'], { home: h })).toEqual({ code: 0, stdout: 'No MCP servers configured.\n', stderr: '' });
  });
});

describe('doctor', () => {
  /** A PATH with node and a stand-in `rg` (which agentd does not run: it ships its own, tools/ripgrep.ts). */
  function toolPath(withRg: boolean): string {
    const dir = join(root, `bin-${++n}`);
    mkdirSync(dir, { recursive: true });
    if (withRg) {
      writeFileSync(join(dir, 'rg'), '#!/bin/sh\nexit 0\n');
      chmodSync(join(dir, 'rg'), 0o755);
    }
    return `${dir}:${dirname(process.execPath)}:/usr/bin:/bin`;
  }

  it('--json: every check, exit 0 when none failed; the endpoint is not contacted unless asked', async () => {
    const h = newHome();
    const path = toolPath(true);
    mkdirSync(join(h.cwd, '.claude'));
    writeFileSync(join(h.cwd, '.claude', 'settings.json'), '{"permissions":{"allow":["Read"]}}');
    const r = await run(['doctor', '--json'], { home: h, path, env: { ANTHROPIC_API_KEY: KEY } });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({
      ok: true,
      checks: [
        { name: 'Node.js', status: 'ok', detail: `${process.version} (${process.execPath})` },
        { name: 'ripgrep', status: 'ok', detail: `ripgrep 15.0.0 (rev 3a612f88b8), shipped with agentd: ${await shippedRipgrep()}` },
        { name: 'Shell parser (tree-sitter WASM)', status: 'ok', detail: 'loads and parses' },
        {
          name: 'Read-only sandbox',
          status: 'ok',
          detail: 'active: bubblewrap (/usr/bin/bwrap); read-only commands run without network, writes or reads outside the working directories',
        },
        { name: 'Command sandbox (sandbox settings)', status: 'ok', detail: 'available: @anthropic-ai/sandbox-runtime with bubblewrap, socat and ripgrep (shipped with agentd); used when settings enable it' },
        { name: 'Config directory', status: 'ok', detail: `${h.config} (will be created in ${h.home})` },
        { name: 'Transcripts', status: 'ok', detail: `${join(h.config, 'projects')} (will be created in ${h.home})` },
        { name: 'Settings files', status: 'ok', detail: join(h.cwd, '.claude', 'settings.json') },
        { name: 'Credentials', status: 'ok', detail: 'ANTHROPIC_API_KEY' },
        { name: 'Endpoint', status: 'skipped', detail: `${server.url} not contacted (agentd doctor --check-endpoint)` },
      ],
    });
    expect(r.code).toBe(0);
  });

  it('text: problems are FAIL lines and exit 1; --check-endpoint names the cause of an unreachable endpoint', async () => {
    const h = newHome();
    writeFileSync(join(h.home, 'not-a-dir'), '');
    mkdirSync(join(h.cwd, '.claude'));
    writeFileSync(join(h.cwd, '.claude', 'settings.local.json'), '{"permissions": ');
    const r = await run(['doctor', '--check-endpoint'], {
      home: h,
      path: toolPath(false),
      env: { CLAUDE_CONFIG_DIR: join(h.home, 'not-a-dir', 'claude'), ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    const marks = lines.flatMap((l) => {
      const m = /^(ok|warn|FAIL|skip) +([^:]+):/.exec(l);
      return m ? [`${m[1]} ${m[2]}`] : [];
    });
    // ripgrep is the one agentd ships; the sandbox needs socat and bubblewrap from /usr/bin or /bin.
    const sandboxMark = ['socat', 'bwrap'].every((b) => findOnPath(b, '/usr/bin:/bin')) ? 'ok Command sandbox (sandbox settings)' : 'warn Command sandbox (sandbox settings)';
    expect(marks).toEqual(['ok Node.js', 'ok ripgrep', 'ok Shell parser (tree-sitter WASM)', 'ok Read-only sandbox', sandboxMark, 'FAIL Config directory', 'FAIL Transcripts', 'FAIL Settings files', 'FAIL Credentials', 'FAIL Endpoint']);
    expect(lines).toContain('FAIL  Endpoint: http://127.0.0.1:9: ECONNREFUSED 127.0.0.1:9');
    expect(lines).toContain('FAIL  Credentials: none: set ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, CLAUDE_CODE_OAUTH_TOKEN or apiKeyHelper, or select a cloud provider');
    expect(lines.find((l) => l.startsWith('FAIL  Settings files: '))).toMatch(new RegExp(`^FAIL  Settings files: ${join(h.cwd, '.claude', 'settings.local.json')}: `));
    expect(lines.at(-2)).toBe('5 problems found.');
  });

  it('--check-endpoint against an endpoint that answers: ok (a HEAD request, not a model request)', async () => {
    const r = await run(['doctor', '--json', '--check-endpoint'], { path: toolPath(true), env: { ANTHROPIC_API_KEY: KEY } });
    const checks = (JSON.parse(r.stdout) as { checks: Array<{ name: string }> }).checks;
    expect(checks.find((c) => c.name === 'Endpoint')).toEqual({ name: 'Endpoint', status: 'ok', detail: `${server.url} answers (HTTP 200)` });
    expect(r.code).toBe(0);
  });
});

describe('update, install, Claude Code commands agentd lacks, and words that are not commands', () => {
  it('update / upgrade / install print how agentd is updated and installed, exit 0, no network', async () => {
    const u = await run(['update']);
    expect([u.code, u.stdout.split('\n')[0]]).toEqual([0, 'agentd updates with its source tree; it has no self-updater and does not contact any registry.']);
    expect(await run(['upgrade'])).toEqual(u);
    const i = await run(['install', 'stable', '--force']);
    expect([i.code, i.stdout.split('\n')[0]]).toEqual([0, 'agentd is installed from its source tree (Node 20 or newer):']);
  });

  it("Claude Code's other commands are refused (exit 1), never a prompt", async () => {
    for (const word of ['plugin', 'agents', 'setup-token']) {
      expect(await run([word, 'list'])).toEqual({
        code: 1,
        stdout: '',
        stderr: `agentd does not have Claude Code's '${word}' command (agentd's commands: auth, doctor, mcp, trust, update, install; see agentd --help).\n`,
      });
    }
  });

  it('a word that is not a command, without -p: one line, exit 2 (text: stderr; stream-json: one JSON result line)', async () => {
    expect(await run(['hello', 'there'], { env: { ANTHROPIC_API_KEY: KEY } })).toEqual({
      code: 2,
      stdout: '',
      stderr: `agentd: unknown command 'hello'. agentd has no interactive mode: to send a prompt, use agentd -p "hello there" (agentd --help lists the commands).\n`,
    });
    const s = await run(['--output-format', 'stream-json', '--input-format', 'stream-json', 'hello'], { env: { ANTHROPIC_API_KEY: KEY } });
    expect(s.code).toBe(2);
    const lines = s.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ type: 'result', is_error: true, startup_failure_reason: 'unknown_command' });
  });

  it('with -p a subcommand word is a prompt, as in Claude Code (`claude -p doctor` asks the model)', async () => {
    const r = await run(['-p', 'auth', 'status', '--scenario', 'builtin:echo', '--no-session-persistence']);
    expect([r.code, r.stdout]).toEqual([0, 'auth status\n']);
  });

  it('agentd help <command> and --help list the commands', async () => {
    const h = await run(['help', 'mcp']);
    expect([h.code, h.stdout.split('\n')[0]]).toEqual([0, 'Usage: agentd mcp [command]']);
    const all = await run(['--help']);
    for (const c of ['auth', 'doctor', 'mcp', 'update|upgrade', 'install']) expect(all.stdout).toMatch(new RegExp(`^  ${c.replace('|', '\\|')} `, 'm'));
    expect(await run(['help'])).toEqual(all);
  });
});

describe('--help matches what is accepted', () => {
  it('every flag (and alias) is in --help, and every --flag in --help is a flag', async () => {
    const r = await run(['--help']);
    const section = r.stdout.slice(r.stdout.indexOf('\nFlags'), r.stdout.indexOf('\nEnvironment'));
    const listed = new Set([...section.matchAll(/^ {2}(-{1,2}[\w-]+(?:, -{1,2}[\w-]+)*)/gm)].flatMap((m) => (m[1] as string).split(', ')));
    const accepted = new Set(FLAGS.flatMap((f) => [`--${f.name}`, ...(f.aliases ?? []).map((a) => (a.length === 1 ? `-${a}` : `--${a}`))]));
    expect([...listed].sort()).toEqual([...accepted].sort());
  });
});

describe('start-up errors and empty prompts', () => {
  it('a bad flag value: one human line on stderr for text output, one JSON line on stdout for json', async () => {
    expect(await run(['-p', 'hi', '--max-turns', 'lots'])).toEqual({ code: 2, stdout: '', stderr: 'agentd: --max-turns must be an integer, got "lots".\n' });
    const j = await run(['-p', 'hi', '--max-turns', 'lots', '--output-format', 'json']);
    expect([j.code, j.stderr]).toEqual([2, '']);
    expect(j.stdout.endsWith('\n') && j.stdout.trim().split('\n').length === 1).toBe(true);
    expect(JSON.parse(j.stdout)).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true, errors: ['--max-turns must be an integer, got "lots".'], startup_failure_reason: 'invalid_flag_value' });
  });

  it('-p with a blank prompt argument, or an empty stdin, is an error (exit 2), not a model request', async () => {
    const empty = { code: 2, stdout: '', stderr: 'agentd: The prompt is empty: give -p a prompt argument or pipe one on stdin.\n' };
    expect(await run(['-p', '   '], { env: { ANTHROPIC_API_KEY: KEY } })).toEqual(empty);
    expect(await run(['-p'], { env: { ANTHROPIC_API_KEY: KEY }, input: ' \n\n' })).toEqual(empty);
    expect(await run([], { env: { ANTHROPIC_API_KEY: KEY }, input: '' })).toEqual(empty);
  });
});

describe('a terminal, and an unreachable endpoint', () => {
  it('agentd on a terminal with no prompt says in one line how it is used, exit 2 (stdin is a pty via script(1))', async () => {
    // script(1) (util-linux, in every Debian base image) gives the daemon a pseudo-terminal as stdin and stdout.
    const h = newHome();
    const r = await new Promise<Run>((resolve, reject) => {
      const child = spawn('script', ['-qec', `'${process.execPath}' '${AGENTD}'`, '/dev/null'], {
        cwd: h.cwd,
        env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: h.home, CLAUDE_CONFIG_DIR: h.config, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code, stdout, stderr: '' }));
    });
    expect(r.code).toBe(2);
    expect(r.stdout.replace(/\r/g, '')).toBe(
      'agentd: nothing to do: agentd is a headless daemon. Run agentd -p "prompt" (or pipe a prompt on stdin), or let an Agent SDK start it with --input-format stream-json; agentd --help has the rest.\n',
    );
  });

  it('ECONNREFUSED: the turn ends with the endpoint and the cause, after all retries, with no MaxListenersExceededWarning', async () => {
    // Ten retries (Claude Code's count) with 1 ms base delay: enough attempts for Node's 10-listener warning.
    const r = await run(['-p', 'hi', '--no-session-persistence'], {
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', AGENTD_MAX_RETRIES: '10', AGENTD_RETRY_BASE_DELAY_MS: '1', AGENTD_LOG_LEVEL: 'error' },
    });
    expect(r).toEqual({ code: 1, stdout: 'API Error: Connection error (http://127.0.0.1:9): ECONNREFUSED 127.0.0.1:9\n', stderr: '' });
  });
});

describe('no model request, no session', () => {
  it('none of the runs above reached the model or wrote a session, transcript or config file', () => {
    // Only the -p prompt test ran a turn, on the scripted model; everything else was answered locally.
    expect(server.requests).toEqual([]);
    const written: string[] = [];
    const walk = (dir: string): void => {
      for (const e of readdirSync(dir)) {
        const p = join(dir, e);
        if (statSync(p).isDirectory()) walk(p);
        else written.push(relative(root, p));
      }
    };
    for (const h of homes) walk(h);
    // The files the tests themselves wrote (settings, MCP config, a plain file), and nothing else; the two -p runs
    // that built a model request (the scripted turn, the refused connection) made the installation's device id,
    // as Claude Code's first request makes its own.
    expect(written.filter((f) => !/\/\.claude\/(settings|settings\.local|\.claude)\.json$|\/not-a-dir$|\.mcp\.json$/.test(f))).toEqual(
      [expect.stringMatching(/\/\.claude\/agentd\/device-id$/), expect.stringMatching(/\/\.claude\/agentd\/device-id$/)],
    );
  });
});
