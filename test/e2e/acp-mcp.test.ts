// An MCP server the editor hands to the agent in ACP session/new (issue 11, "Done when"): through both adapters
// (the current @agentclientprotocol/claude-agent-acp 0.101.0 and Zed's @zed-industries/claude-agent-acp 0.23.1)
// it reaches agentd, the model calls its tool and the answer reaches the model.
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import { type AcpAdapter, type AcpAgent, ZED_ACP, acpWorld, currentAcp } from '../support/acp-client.js';
import { ROOT } from '../support/daemon.js';

const FIXTURE = join(ROOT, 'test/fixtures/mcp-stdio-server.mjs');
const running: AcpAgent[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.close()));
});

const ADAPTERS: Array<[string, () => AcpAdapter]> = [
  ['@agentclientprotocol/claude-agent-acp 0.101.0', currentAcp],
  ['@zed-industries/claude-agent-acp 0.23.1', () => ZED_ACP],
];

describe.each(ADAPTERS)('MCP through %s', (_name, adapter) => {
  it('a stdio server from session/new is connected, its tool called, and the answer reaches the model', async () => {
    const world = acpWorld(
      {
        rules: [
          { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_echo', name: 'mcp__editor__echo', input: { text: 'from zed' } }] } },
          { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Tool said: {{lastToolResult}}' }] } },
        ],
      },
      { adapter: adapter() },
    );
    const agent = await world.start();
    running.push(agent);
    onTestFailed(() => {
      process.stderr.write(`claude-agent-acp stderr:\n${agent.stderr().slice(-4000)}\n`);
    });
    // The fixture's echo is marked readOnlyHint, which decides nothing about permission (a hint): the editor is asked
    // and allows once, by whichever option id this adapter offers for that (allow-once, or allow in 0.23.1).
    agent.onPermission = (req) => ({ outcome: { outcome: 'selected', optionId: req.options.find((o) => o.kind === 'allow_once')?.optionId ?? 'allow-once' } });
    const { sessionId } = await agent.conn.newSession({
      cwd: world.cwd,
      mcpServers: [{ name: 'editor', command: process.execPath, args: [FIXTURE], env: [] }],
    });
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'use the editor tool' }] })).toMatchObject({ stopReason: 'end_turn' });
    const [first, second] = world.requests();
    expect(first?.tools?.map((t) => t.name)).toContain('mcp__editor__echo');
    const last = second?.messages.at(-1);
    expect(Array.isArray(last?.content) ? last.content[0] : undefined).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_echo', content: 'echo:from zed' });
  });
});
