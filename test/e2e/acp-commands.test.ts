// Slash commands under the current ACP adapter (@agentclientprotocol/claude-agent-acp 0.101.0): a project command
// appears in available_commands_update and reaches the model expanded; /context, /usage, /mcp are answered by
// agentd without a model request and /compact runs the compaction (before, each went to the model as chat text).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import type { ModelRequest } from '../../src/model/types.js';
import { type AcpAgent, acpWorld, currentAcp } from '../support/acp-client.js';

const ADAPTER = currentAcp();
const running: AcpAgent[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.close()));
});

function lastUserTexts(r: ModelRequest): string[] {
  const content = r.messages.at(-1)?.content;
  if (typeof content === 'string') return [content];
  return (content ?? []).flatMap((b) => (b.type === 'text' && 'text' in b && typeof b.text === 'string' ? [b.text] : []));
}

describe('slash commands under @agentclientprotocol/claude-agent-acp 0.101.0', () => {
  it('lists the project command, expands it for the model, and answers built-ins locally', async () => {
    const world = acpWorld({ rules: [{ reply: { content: [{ type: 'text', text: 'Model answer.' }] } }] }, { adapter: ADAPTER });
    mkdirSync(join(world.cwd, '.claude', 'commands'), { recursive: true });
    writeFileSync(join(world.cwd, '.claude', 'commands', 'hello.md'), '---\ndescription: Say hello\nargument-hint: <name>\n---\nHello $ARGUMENTS from the project command.\n');
    const agent = await world.start();
    running.push(agent);
    onTestFailed(() => {
      process.stderr.write(`claude-agent-acp stderr:\n${agent.stderr().slice(-4000)}\n`);
    });
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    const update = (await agent.waitForUpdate((u) => u.sessionUpdate === 'available_commands_update')) as Extract<SessionUpdate, { sessionUpdate: 'available_commands_update' }>;
    expect(update.availableCommands.find((c) => c.name === 'hello')).toEqual({ name: 'hello', description: 'Say hello (project)', input: { hint: '<name>' } });
    expect(update.availableCommands.map((c) => c.name)).toEqual(expect.arrayContaining(['compact', 'context', 'usage', 'model', 'init', 'mcp']));

    for (const text of ['/context', '/usage', '/mcp']) {
      const r = await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text }] });
      expect(r.stopReason).toBe('end_turn');
    }
    expect(world.requests()).toEqual([]);
    // /compact runs the compaction, which refuses an empty conversation (the adapter reports the error result as
    // the prompt's error): no request, and never `/compact` as chat text.
    await expect(agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: '/compact' }] })).rejects.toThrow(/Nothing to compact/);
    expect(world.requests()).toEqual([]);

    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: '/hello Ada' }] })).toMatchObject({ stopReason: 'end_turn' });
    expect(world.requests().map(lastUserTexts)).toEqual([
      ['<command-message>hello</command-message>\n<command-name>/hello</command-name>\n<command-args>Ada</command-args>\n', 'Hello Ada from the project command.\n'],
    ]);
  }, 90_000);
});
