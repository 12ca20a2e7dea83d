// MCP stdio servers at the process edge: each runs in its own process group, which is gone after the daemon
// exits, whatever the exit path (stdin EOF, SIGTERM, -p).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTD, ROOT, STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';
import { until, processAlive } from '../support/wait.js';

const FIXTURE = join(ROOT, 'test/fixtures/mcp-stdio-server.mjs');

const alive = processAlive;

function setup(): { dir: string; args: string[]; childPidFile: string; scenario: string } {
  const dir = tempDir('agentd-mcp-');
  const childPidFile = join(dir, 'child.pid');
  const scenario = join(dir, 'scenario.json');
  writeFileSync(
    scenario,
    JSON.stringify({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'e1', name: 'mcp__fx__echo', input: { text: 'x' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'got {{lastToolResult}}' }] } },
      ],
    }),
  );
  const config = { mcpServers: { fx: { command: process.execPath, args: [FIXTURE], env: { MCP_FIXTURE_CHILD_PID_FILE: childPidFile } } } };
  return { dir, childPidFile, scenario, args: ['--scenario', scenario, '--no-session-persistence', '--allowedTools', 'mcp__fx', '--mcp-config', JSON.stringify(config)] };
}

describe('MCP stdio servers and the daemon’s exit', () => {
  for (const how of ['stdin EOF', 'SIGTERM'] as const) {
    it(`${how}: the server's whole process group is gone`, async () => {
      const s = setup();
      const d = startDaemon({ args: [...STREAM_ARGS, ...s.args] });
      d.send(initializeFrame());
      d.send(userFrame('go'));
      const result = await d.waitFor((f) => f['type'] === 'result', 30_000);
      expect(result).toMatchObject({ subtype: 'success', result: 'got echo:x' });
      const child = Number(readFileSync(s.childPidFile, 'utf8'));
      expect(alive(child)).toBe(true);
      if (how === 'stdin EOF') d.endInput();
      else d.child.kill('SIGTERM');
      const { code } = await d.exited;
      expect(code).toBe(how === 'stdin EOF' ? 0 : 143);
      await until(() => !alive(child), `the server's child ${child} to be gone`, 10_000);
    });
  }

  it('-p: the server is used and its process group is gone after exit', async () => {
    const s = setup();
    const child = spawn(process.execPath, [AGENTD, '-p', 'go', ...s.args], { cwd: s.dir, env: baseEnv({}), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const code = await new Promise<number | null>((r) => child.on('exit', r));
    expect({ code, out: out.trim() }).toEqual({ code: 0, out: 'got echo:x' });
    expect(existsSync(s.childPidFile)).toBe(true);
    const grandchild = Number(readFileSync(s.childPidFile, 'utf8'));
    await until(() => !alive(grandchild), `the server's child ${grandchild} to be gone`, 10_000);
  });
});
