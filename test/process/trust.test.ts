// `agentd trust` at the process level: it records Claude Code's trust for a folder in the global config file (every
// other key kept, a new file private), says what covers a folder (`--check`, and a folder below a trusted one in no
// git repository is covered), removes a record (`--revoke`), refuses a file it cannot parse without touching it,
// and never reaches a model. Then a session in the folder it trusted runs the repository's SessionStart hook.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTD, baseEnv, tempDir } from '../support/daemon.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';

let server: LoopbackServer;
beforeAll(async () => {
  server = await startLoopbackServer({ rules: [{ reply: { content: [{ type: 'text', text: 'done' }] } }] });
});
afterAll(() => server.close());

interface Place {
  cwd: string;
  env: Record<string, string>;
  /** $CLAUDE_CONFIG_DIR/.claude.json */
  file: string;
}

function place(): Place {
  const cwd = realpathSync(tempDir('agentd-trust-cwd-'));
  const env = baseEnv({ ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-ant-test-000000000', AGENTD_LOG_LEVEL: 'error' });
  const config = env['CLAUDE_CONFIG_DIR'] as string;
  mkdirSync(config, { recursive: true });
  return { cwd, env, file: join(config, '.claude.json') };
}

function run(p: Place, args: string[], cwd = p.cwd): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AGENTD, ...args], { cwd, env: p.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const json = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

describe('agentd trust', () => {
  it('records the folder, keeps every other key, and a new file is private (0600)', async () => {
    const p = place();
    expect(await run(p, ['trust'])).toEqual({ code: 0, stdout: `Trusted ${p.cwd}: projects[${JSON.stringify(p.cwd)}].hasTrustDialogAccepted = true in ${p.file}.\n`, stderr: '' });
    expect(json(p.file)).toEqual({ projects: { [p.cwd]: { hasTrustDialogAccepted: true } } });
    expect(statSync(p.file).mode & 0o777).toBe(0o600);
    writeFileSync(p.file, JSON.stringify({ numStartups: 3, projects: { '/elsewhere': { allowedTools: [] }, [p.cwd]: { hasTrustDialogAccepted: false, history: ['x'] } } }));
    expect((await run(p, ['trust', '.'])).code).toBe(0);
    expect(json(p.file)).toEqual({ numStartups: 3, projects: { '/elsewhere': { allowedTools: [] }, [p.cwd]: { hasTrustDialogAccepted: true, history: ['x'] } } });
    expect(await run(p, ['trust'])).toEqual({ code: 0, stdout: `${p.cwd} is already trusted (${p.file}).\n`, stderr: '' });
  });

  it('--check: the folder, a folder below it (no git repository between), and after --revoke neither', async () => {
    const p = place();
    const sub = join(p.cwd, 'pkg', 'deep');
    mkdirSync(sub, { recursive: true });
    expect(await run(p, ['trust', '--check'])).toEqual({ code: 1, stdout: `${p.cwd} is not trusted (no record in ${p.file} covers it). Run \`agentd trust ${p.cwd}\` to trust it.\n`, stderr: '' });
    expect((await run(p, ['trust', p.cwd], sub)).code).toBe(0);
    expect(await run(p, ['trust', '--check'])).toEqual({ code: 0, stdout: `${p.cwd} is trusted (its own record in ${p.file}).\n`, stderr: '' });
    expect(await run(p, ['trust', '--check', 'pkg/deep'])).toEqual({ code: 0, stdout: `${sub} is trusted (by the record of ${p.cwd} in ${p.file}).\n`, stderr: '' });
    // A git repository below the trusted folder is its own: a record above it does not reach in.
    mkdirSync(join(sub, '.git'));
    expect((await run(p, ['trust', '--check', sub])).code).toBe(1);
    expect(await run(p, ['trust', '--revoke'])).toEqual({ code: 0, stdout: `Removed the trust record of ${p.cwd} (projects[${JSON.stringify(p.cwd)}].hasTrustDialogAccepted = false in ${p.file}).\n`, stderr: '' });
    expect((await run(p, ['trust', '--check'])).code).toBe(1);
    expect(await run(p, ['trust', '--revoke'])).toEqual({ code: 0, stdout: `${p.cwd} has no trust record in ${p.file}; nothing to remove.\n`, stderr: '' });
  });

  it('refuses a folder that does not exist and a config file it cannot parse (left as it was); usage errors exit 2', async () => {
    const p = place();
    expect(await run(p, ['trust', join(p.cwd, 'nope')])).toEqual({ code: 1, stdout: '', stderr: `${join(p.cwd, 'nope')} does not exist.\n` });
    writeFileSync(p.file, '{ not json');
    const r = await run(p, ['trust']);
    expect([r.code, r.stdout, r.stderr.startsWith(`Cannot update ${p.file}: `), r.stderr.endsWith('. Fix or remove it first.\n')]).toEqual([1, '', true, true]);
    expect(readFileSync(p.file, 'utf8')).toBe('{ not json');
    expect(await run(p, ['trust', '--bogus'])).toEqual({ code: 2, stdout: '', stderr: "error: unknown option '--bogus'\n" });
    expect(await run(p, ['trust', 'a', 'b'])).toEqual({ code: 2, stdout: '', stderr: "error: too many arguments for 'trust'. Expected 1 argument but got 2.\n" });
  });

  it('--help, and `agentd help trust`', async () => {
    const p = place();
    const help = await run(p, ['trust', '--help']);
    expect([help.code, help.stdout.split('\n')[0], help.stderr]).toEqual([0, 'Usage: agentd trust [options] [dir]', '']);
    expect((await run(p, ['help', 'trust'])).stdout).toBe(help.stdout);
    expect(server.requests).toEqual([]);
  });

  it('a session in the folder it trusted runs the repository\'s SessionStart hook; before, it did not', async () => {
    const p = place();
    const marker = join(tempDir('agentd-trust-out-'), 'session-started');
    mkdirSync(join(p.cwd, '.claude'));
    writeFileSync(join(p.cwd, '.claude', 'settings.json'), JSON.stringify({ hooks: { SessionStart: [{ hooks: [{ type: 'command', command: `touch ${marker}` }] }] } }));
    expect((await run(p, ['-p', 'hi', '--no-session-persistence'])).code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect((await run(p, ['trust'])).code).toBe(0);
    expect((await run(p, ['-p', 'hi', '--no-session-persistence'])).code).toBe(0);
    expect(existsSync(marker)).toBe(true);
  });
});
