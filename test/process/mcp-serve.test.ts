// `agentd mcp serve` driven by the MCP SDK's client over stdio: the built-in tools are listed with their
// schemas; each call is judged as in a session that cannot ask (reads in the project run, a write asks and is
// therefore refused, --permission-mode acceptEdits lets it run, a deny rule wins); settings with tool hooks make
// it refuse to start (exit 1) rather than bypass them; it exits 0 when the client closes stdin.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENTD, baseEnv, tempDir } from '../support/daemon.js';

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

async function serve(cwd: string, globalArgs: string[] = [], env = baseEnv()): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: AGENTD, args: [...globalArgs, 'mcp', 'serve'], cwd, env, stderr: 'pipe' });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const text = (r: Awaited<ReturnType<Client['callTool']>>): string =>
  (Array.isArray(r.content) ? r.content : []).map((b: { type: string; text?: string }) => (b.type === 'text' ? (b.text ?? '') : `[${b.type}]`)).join('');

describe('agentd mcp serve', () => {
  it('lists the built-in tools; a read in the project runs; a write is refused without a prompt; a deny rule wins', async () => {
    const cwd = tempDir('agentd-serve-');
    writeFileSync(join(cwd, 'a.txt'), 'hello from a file\n');
    const { client } = await serve(cwd, ['--disallowedTools', 'Bash(curl:*)']);
    expect(client.getServerVersion()?.name).toBe('agentd');
    const { tools } = await client.listTools();
    expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint])).toEqual([
      ['Bash', false],
      ['Glob', true],
      ['Grep', true],
      ['Read', true],
      ['Edit', false],
      ['Write', false],
      ['NotebookEdit', false],
    ]);
    expect(tools.find((t) => t.name === 'Read')?.inputSchema).toMatchObject({ type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] });

    const read = await client.callTool({ name: 'Read', arguments: { file_path: join(cwd, 'a.txt') } });
    expect(read.isError).toBeFalsy();
    expect(text(read)).toContain('hello from a file');

    const write = await client.callTool({ name: 'Write', arguments: { file_path: join(cwd, 'b.txt'), content: 'x' } });
    expect(write.isError).toBe(true);
    expect(text(write)).toMatch(/^Write was denied: it needs permission .*no one can be asked/);
    expect(existsSync(join(cwd, 'b.txt'))).toBe(false);

    const denied = await client.callTool({ name: 'Bash', arguments: { command: 'curl http://127.0.0.1:9/' } });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toBe('Permission to use Bash(curl http://127.0.0.1:9/) has been denied by the rule Bash(curl:*) (cliArg).');
    const rm = await client.callTool({ name: 'Bash', arguments: { command: `rm -rf ${join(cwd, 'a.txt')}` } });
    expect(rm.isError).toBe(true);
    expect(text(rm)).toMatch(/^Bash was denied: it needs permission .*no one can be asked/);
    expect(existsSync(join(cwd, 'a.txt'))).toBe(true);

    const unknown = await client.callTool({ name: 'WebSearch', arguments: {} });
    expect(unknown).toEqual({ content: [{ type: 'text', text: 'No such tool available: WebSearch' }], isError: true });
  });

  it('--permission-mode acceptEdits (before `mcp`): a write in the project runs', async () => {
    const cwd = tempDir('agentd-serve-');
    const { client } = await serve(cwd, ['--permission-mode', 'acceptEdits']);
    const write = await client.callTool({ name: 'Write', arguments: { file_path: join(cwd, 'b.txt'), content: 'written over MCP' } });
    expect(write.isError).toBeFalsy();
    expect(readFileSync(join(cwd, 'b.txt'), 'utf8')).toBe('written over MCP');
  });

  it('exits 0 when the client closes stdin', async () => {
    const { client, transport } = await serve(tempDir('agentd-serve-'));
    const pid = transport.pid;
    expect(pid).toBeTypeOf('number');
    await client.close();
    const t0 = Date.now();
    while (Date.now() - t0 < 10_000) {
      try {
        process.kill(pid as number, 0);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('agentd mcp serve still running 10 s after its stdin closed');
  });

  it('settings with PreToolUse hooks: refuses to start (exit 1), naming them', async () => {
    const env = baseEnv();
    const home = env['HOME'] as string;
    mkdirSync(join(home, '.claude'), { recursive: true });
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true' }] }] } }));
    const r = await promisify(execFile)(AGENTD, ['mcp', 'serve'], { env, cwd: tempDir('agentd-serve-') }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^agentd mcp serve does not run hooks, and the settings define PreToolUse hooks \(user.*\): refusing/);
  });
});
