// Stdio servers that misbehave, through the hub with real processes: a command that does not exist, garbage on
// stdout, a handshake that hangs, a server that dies mid-call (redialling off here, except in its own test). Each is bounded, answered, and leaves nothing running.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProcessGroupTracker } from '../../../src/tools/environment.js';
import { groupAlive, killGroup } from '../../../src/tools/process-groups.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { callCtx, makeHub } from './support.js';
import type { AnyTool, ToolCallContext } from '../../../src/tools/tool.js';
import { ROOT } from '../../support/daemon.js';
import { until } from '../../support/wait.js';

const FIXTURE = join(ROOT, 'test/fixtures/mcp-stdio-server.mjs');

function setup(connectTimeoutMs = 20_000, redialDelaysMs: readonly number[] = []) {
  const tools = new ToolRegistry([]);
  const tracker = new ProcessGroupTracker();
  const groups: number[] = [];
  const hub = makeHub(tools, {
    cwd: ROOT,
    childEnv: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    trackProcessGroup: (pgid) => {
      groups.push(pgid);
      return tracker.track(pgid);
    },
    killGroup: (pgid) => killGroup(pgid, { graceMs: 1000 }),
    connectTimeoutMs,
    redialDelaysMs,
  });
  hub.start();
  return { hub, tools, groups, tracker };
}

const stdio = (name: string, command: string, args: string[]) => ({ kind: 'stdio' as const, name, source: 'dynamic' as const, config: { command, args } });
const ctx = (): ToolCallContext => callCtx();

describe('misbehaving stdio servers', () => {
  it('a command that does not exist is failed with the reason', async () => {
    const { hub } = setup();
    hub.add([stdio('nope', '/nonexistent/mcp-server', [])]);
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([{ name: 'nope', status: 'failed', source: 'dynamic', error: expect.stringContaining('ENOENT') }]);
  });

  it('garbage on stdout before the protocol starts does not stop a working server', async () => {
    const { hub, tools } = setup();
    hub.add([stdio('noisy', 'sh', ['-c', `echo 'this is not json'; exec "${process.execPath}" "${FIXTURE}"`])]);
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([{ name: 'noisy', status: 'connected', source: 'dynamic' }]);
    expect((await (tools.get('mcp__noisy__echo') as AnyTool).call({ text: 'ok' }, ctx())).content).toBe('echo:ok');
    await hub.close();
  });

  it('a handshake that hangs is failed after MCP_TIMEOUT and its process group is killed', async () => {
    const { hub, groups } = setup(300);
    hub.add([stdio('hang', 'sh', ['-c', 'echo waiting >&2; sleep 60'])]);
    await hub.settled(20_000);
    expect(hub.initList()).toEqual([{ name: 'hang', status: 'failed', source: 'dynamic', error: expect.stringMatching(/timed out.*stderr: waiting/is) }]);
    const [pgid] = groups;
    await until(() => !groupAlive(pgid as number), 'the hung server to be gone', 10_000);
  });

  it('a 5 MB answer is cut to MAX_MCP_OUTPUT_TOKENS; a 100 MB one ends the connection with the reason, and the call is answered', async () => {
    const { hub, tools } = setup();
    const big = (name: string, bytes: number) => ({ ...stdio(name, process.execPath, [FIXTURE]), config: { command: process.execPath, args: [FIXTURE], env: { MCP_FIXTURE_ECHO_BYTES: String(bytes) } } });
    hub.add([big('five', 5_000_000), big('huge', 100_000_000)]);
    await hub.settled(20_000);
    const five = await (tools.get('mcp__five__echo') as AnyTool).call({ text: 'a' }, ctx());
    expect(five.content).toBe(`${'x'.repeat(100_000)}\n\n[agentd: MCP tool output cut at 100000 of 5000000 characters (MAX_MCP_OUTPUT_TOKENS)]`);
    const huge = (tools.get('mcp__huge__echo') as AnyTool).call({ text: 'a' }, ctx());
    await expect(huge).rejects.toThrow(/^MCP server "huge" failed to run echo: MCP error -32000: Connection closed: the server sent a message over the 67108864-byte limit$/);
    await until(() => hub.initList().find((s) => s.name === 'huge')?.status === 'failed', 'the server to be reported failed', 10_000);
    expect(hub.initList().find((s) => s.name === 'huge')?.error).toMatch(/^disconnected: the server sent a message over the 67108864-byte limit/);
    await hub.close();
  }, 60_000);

  it('two servers whose tool names normalise alike: each name has one owner (the first to connect), both are connected', async () => {
    const { hub, tools } = setup();
    hub.add([stdio('f.x', process.execPath, [FIXTURE]), stdio('f_x', process.execPath, [FIXTURE])]);
    await hub.settled(20_000);
    expect(hub.initList().map((x) => [x.name, x.status])).toEqual([
      ['f.x', 'connected'],
      ['f_x', 'connected'],
    ]);
    expect(tools.names().filter((n) => n === 'mcp__f_x__echo')).toEqual(['mcp__f_x__echo']);
    expect((await (tools.get('mcp__f_x__echo') as AnyTool).call({ text: 'one' }, ctx())).content).toBe('echo:one');
    await hub.close();
  });

  it('a server that dies mid-call: the call is an error naming the server, and the server is failed', async () => {
    const { hub, tools, groups } = setup();
    hub.add([stdio('fx', process.execPath, [FIXTURE])]);
    await hub.settled(20_000);
    const call = (tools.get('mcp__fx__slow') as AnyTool).call({ ms: 60_000 }, ctx());
    const outcome = call.then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    process.kill(-(groups[0] as number), 'SIGKILL');
    expect(await outcome).toMatch(/^MCP server "fx" failed to run slow: MCP error -32000: Connection closed/);
    await until(() => hub.initList()[0]?.status === 'failed', 'the server to be reported failed', 10_000);
    expect(hub.initList()[0]?.error).toMatch(/^disconnected: /);
    expect(tools.get('mcp__fx__slow')).toBeUndefined();
    await hub.close();
  });

  it('a server whose process goes away is redialled: connected again with its tools; failed with its stderr line once it cannot start', async () => {
    const mark = join(ROOT, `.redial-mark-${process.pid}`);
    const { hub, tools, groups } = setup(20_000, [20, 20, 20]);
    try {
      hub.add([stdio('fx', 'sh', ['-c', `if [ -e "${mark}" ]; then echo "gone for good" >&2; exit 4; fi; exec "${process.execPath}" "${FIXTURE}"`])]);
      await hub.settled(20_000);
      expect(hub.initList()).toEqual([{ name: 'fx', status: 'connected', source: 'dynamic' }]);
      process.kill(-(groups[0] as number), 'SIGKILL');
      await until(() => groups.length === 2 && hub.initList()[0]?.status === 'connected', 'the server to be redialled', 20_000);
      expect(hub.initList()).toEqual([{ name: 'fx', status: 'connected', source: 'dynamic' }]);
      expect((await (tools.get('mcp__fx__echo') as AnyTool).call({ text: 'back' }, ctx())).content).toBe('echo:back');
      writeFileSync(mark, '');
      process.kill(-(groups[1] as number), 'SIGKILL');
      await until(() => hub.initList()[0]?.status === 'failed', 'the server to be failed after its redials', 20_000);
      expect(hub.initList()).toEqual([{ name: 'fx', status: 'failed', source: 'dynamic', error: expect.stringMatching(/^disconnected: .*; redialling failed \(3 of 3\), the last: .*exited with code 4.*gone for good/s) }]);
      // The first drop used one of the three redials (the server had not stayed up a minute): two tries are left.
      expect([groups.length, tools.get('mcp__fx__echo')]).toEqual([4, undefined]);
    } finally {
      rmSync(mark, { force: true });
      await hub.close();
    }
  });

  it('toggle off disconnects (status disabled, tools gone, process gone); on and reconnect connect again', async () => {
    const { hub, tools, groups } = setup();
    hub.add([stdio('fx', process.execPath, [FIXTURE])]);
    await hub.settled(20_000);
    expect(await hub.toggle('fx', false)).toBeUndefined();
    expect([hub.initList(), tools.names()]).toEqual([[{ name: 'fx', status: 'disabled', source: 'dynamic' }], []]);
    await until(() => !groupAlive(groups[0] as number), 'the disabled server to be gone', 10_000);
    expect(await hub.toggle('fx', true)).toBeUndefined();
    expect(hub.initList()).toEqual([{ name: 'fx', status: 'connected', source: 'dynamic' }]);
    expect(await hub.reconnect('fx')).toBeUndefined();
    expect(groups).toHaveLength(3);
    expect((await (tools.get('mcp__fx__echo') as AnyTool).call({ text: 'again' }, ctx())).content).toBe('echo:again');
    await expect(hub.reconnect('nope')).rejects.toThrow('No MCP server named "nope".');
    await hub.close();
  });

  it('reconnecting a server that still fails answers with the reason', async () => {
    const { hub } = setup();
    hub.add([stdio('bad', 'sh', ['-c', 'echo still broken >&2; exit 1'])]);
    await hub.settled(20_000);
    expect(await hub.reconnect('bad')).toMatch(/exited with code 1.*still broken/);
  });

  it('an elicitation with no host to ask is declined (fails closed)', async () => {
    const { hub, tools } = setup();
    hub.add([stdio('fx', process.execPath, [FIXTURE])]);
    await hub.settled(20_000);
    expect((await (tools.get('mcp__fx__ask') as AnyTool).call({}, ctx())).content).toBe('decline');
    await hub.close();
  });

  it('resources: ListMcpResourcesTool and ReadMcpResourceTool appear with a server that has resources', async () => {
    const { hub, tools } = setup();
    hub.add([stdio('fx', process.execPath, [FIXTURE])]);
    await hub.settled(20_000);
    const list = tools.get('ListMcpResourcesTool') as AnyTool;
    const read = tools.get('ReadMcpResourceTool') as AnyTool;
    expect([list.isConcurrencySafe({}), read.isReadOnly({ server: 'fx', uri: 'fixture://notes' })]).toEqual([true, true]);
    expect((await list.call({}, ctx())).data).toEqual([{ uri: 'fixture://notes', name: 'notes', mimeType: 'text/plain', description: 'Some notes', server: 'fx' }]);
    expect((await read.call({ server: 'fx', uri: 'fixture://notes' }, ctx())).content).toBe(
      JSON.stringify({ contents: [{ uri: 'fixture://notes', mimeType: 'text/plain', text: 'contents of fixture://notes' }] }),
    );
    expect(await read.call({ server: 'nope', uri: 'x' }, ctx())).toMatchObject({ isError: true, content: 'No connected MCP server named "nope" offers resources.' });
    await hub.close();
  });
});
