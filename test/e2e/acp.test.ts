// agentd as CLAUDE_CODE_EXECUTABLE under Zed's claude-agent-acp 0.23.1 (SDK 0.2.83), driven as an editor drives it:
// ACP initialize / session/new / session/prompt / session/cancel / session/list / session/load over stdio.
// What the adapter needs from the CLI is protocol.md §10.4: stream events for text, can_use_tool for permissions,
// user replays + result + session_state_changed idle to end a prompt, interrupt for cancel, and Claude-Code
// transcripts for the offline session APIs.
// (The SDK's method signatures go through schema/index.d.ts, whose extensionless re-exports NodeNext cannot resolve,
// so results are typed here with the package's top-level types.)
import type { ListSessionsResponse, SessionUpdate, ToolCallUpdate } from '@agentclientprotocol/sdk';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import type { ModelRequest } from '../../src/model/types.js';
import { type AcpAgent, acpSubagentWorld, acpWorld, agentText } from '../support/acp-client.js';
import { until } from '../support/wait.js';

const running: AcpAgent[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.close()));
});

async function start(world: ReturnType<typeof acpWorld>): Promise<AcpAgent> {
  const agent = await world.start();
  running.push(agent);
  // The adapter logs what went wrong on its side (e.g. "Claude Agent process died") to stderr.
  onTestFailed(() => {
    process.stderr.write(`claude-agent-acp stderr:\n${agent.stderr().slice(-4000)}\n`);
  });
  return agent;
}

const usage = { input_tokens: 100, output_tokens: 7 };
const acpUsage = { inputTokens: 100, outputTokens: 7, cachedReadTokens: 0, cachedWriteTokens: 0, totalTokens: 107 };

function lastUserTexts(r: ModelRequest): string[] {
  const content = r.messages.at(-1)?.content;
  if (typeof content === 'string') return [content];
  return (content ?? []).flatMap((b) => (b.type === 'text' && 'text' in b && typeof b.text === 'string' ? [b.text] : []));
}

function toolUpdates(agent: AcpAgent, id: string): Array<Omit<ToolCallUpdate, 'toolCallId'> & { sessionUpdate: string }> {
  return agent.updates
    .map((n) => n.update)
    .filter((u): u is Extract<SessionUpdate, { toolCallId: string }> => 'toolCallId' in u && u.toolCallId === id)
    .map(({ toolCallId: _id, ...rest }) => rest);
}

describe('agentd under claude-agent-acp', () => {
  it('streams a text reply as agent_message_chunk updates, ends with end_turn, and keeps the session for a second prompt', async () => {
    const first = 'Hello from agentd, streamed to the editor in small pieces.';
    const world = acpWorld({
      rules: [
        { when: { lastUserText: 'hello', assistantTurns: 0 }, reply: { content: [{ type: 'text', text: first }], chunkSize: 8, usage } },
        { when: { lastUserText: 'again', assistantTurns: 1 }, reply: { content: [{ type: 'text', text: 'Second turn, after: {{lastUserText}}' }], usage } },
      ],
      fallback: { content: [{ type: 'text', text: 'unscripted' }] },
    });
    const agent = await start(world);
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });

    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'hello there' }] })).toEqual({ stopReason: 'end_turn', usage: acpUsage });
    const chunks = agentText(agent.updates, sessionId);
    // Rendered from stream_event deltas (8 characters each), not from the final assistant message.
    expect(chunks).toEqual(first.match(/.{1,8}/g));

    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'and again' }] })).toEqual({ stopReason: 'end_turn', usage: acpUsage });
    expect(agentText(agent.updates, sessionId).slice(chunks.length).join('')).toBe('Second turn, after: and again');
    // The second request carried the first exchange: one agentd process, one conversation.
    expect(world.requests().map((r) => r.messages.map((m) => m.role))).toEqual([['user'], ['user', 'assistant', 'user']]);
  });

  it('a scripted Write asks the client through session/request_permission: allow writes the file, reject fails the tool call', async () => {
    const world = acpWorld({
      rules: [
        { when: { lastUserText: 'allowed', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_allow', name: 'Write', input: { file_path: '{{cwd}}/allowed.txt', content: 'written via ACP\n' } }] } },
        { when: { lastUserText: 'rejected', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_reject', name: 'Write', input: { file_path: '{{cwd}}/rejected.txt', content: 'never\n' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Tool said: {{lastToolResult}}' }] } },
      ],
    });
    const agent = await start(world);
    agent.onPermission = (req) => ({ outcome: { outcome: 'selected', optionId: req.toolCall.toolCallId === 'toolu_allow' ? 'allow' : 'reject' } });
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    const allowedPath = join(world.cwd, 'allowed.txt');
    const rejectedPath = join(world.cwd, 'rejected.txt');

    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'write the allowed file' }] })).toMatchObject({ stopReason: 'end_turn' });
    expect(readFileSync(allowedPath, 'utf8')).toBe('written via ACP\n');
    const created = `File created successfully at: ${allowedPath} (file state is current in your context — no need to Read it back)`;
    expect(toolUpdates(agent, 'toolu_allow')).toEqual([
      // content_block_start of the streamed tool_use (input not known yet)
      { sessionUpdate: 'tool_call', _meta: { claudeCode: { toolName: 'Write' } }, rawInput: {}, status: 'pending', title: 'Write', kind: 'edit', content: [], locations: [] },
      // the complete assistant message refines it
      {
        sessionUpdate: 'tool_call_update',
        _meta: { claudeCode: { toolName: 'Write' } },
        rawInput: { file_path: allowedPath, content: 'written via ACP\n' },
        title: 'Write allowed.txt',
        kind: 'edit',
        content: [{ type: 'diff', path: allowedPath, oldText: null, newText: 'written via ACP\n' }],
        locations: [{ path: allowedPath }],
      },
      // the adapter's PostToolUse hook callback, with agentd's tool_response
      {
        sessionUpdate: 'tool_call_update',
        _meta: { claudeCode: { toolName: 'Write', toolResponse: { type: 'create', filePath: allowedPath, content: 'written via ACP\n', structuredPatch: [], originalFile: null, userModified: false } } },
      },
      // the tool_result of the user frame
      { sessionUpdate: 'tool_call_update', _meta: { claudeCode: { toolName: 'Write' } }, status: 'completed', rawOutput: created },
    ]);

    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'write the rejected file' }] })).toMatchObject({ stopReason: 'end_turn' });
    expect(existsSync(rejectedPath)).toBe(false);
    expect(toolUpdates(agent, 'toolu_reject').at(-1)).toEqual({
      sessionUpdate: 'tool_call_update',
      _meta: { claudeCode: { toolName: 'Write' } },
      status: 'failed',
      rawOutput: 'User refused permission to run tool',
      content: [{ type: 'content', content: { type: 'text', text: '```\nUser refused permission to run tool\n```' } }],
    });
    // No PostToolUse for a call that never ran.
    expect(toolUpdates(agent, 'toolu_reject').some((u) => JSON.stringify(u._meta).includes('toolResponse'))).toBe(false);

    expect(agent.permissionRequests.map((r) => ({ id: r.toolCall.toolCallId, title: r.toolCall.title, rawInput: r.toolCall.rawInput, options: r.options.map((o) => o.optionId) }))).toEqual([
      { id: 'toolu_allow', title: 'Write allowed.txt', rawInput: { file_path: allowedPath, content: 'written via ACP\n' }, options: ['allow_always', 'allow', 'reject'] },
      { id: 'toolu_reject', title: 'Write rejected.txt', rawInput: { file_path: rejectedPath, content: 'never\n' }, options: ['allow_always', 'allow', 'reject'] },
    ]);
    expect(agentText(agent.updates, sessionId).join('')).toBe(`Tool said: ${created}Tool said: User refused permission to run tool`);
  });

  it('session/cancel during a slow streamed reply ends the prompt with cancelled, and the session answers the next prompt', async () => {
    const slow = 'This reply trickles out four characters at a time, slowly enough to be cancelled halfway through. '.repeat(3);
    const world = acpWorld({
      rules: [
        { when: { lastUserText: 'slow' }, reply: { content: [{ type: 'text', text: slow }], chunkSize: 4, delays: { chunkMs: 40 } } },
        { when: { lastUserText: 'after' }, reply: { content: [{ type: 'text', text: 'Still here.' }], usage } },
      ],
    });
    const agent = await start(world);
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });

    const prompt = agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'a slow one please' }] });
    await agent.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text !== '');
    await agent.conn.cancel({ sessionId });
    expect(await prompt).toEqual({ stopReason: 'cancelled' });
    const partial = agentText(agent.updates, sessionId).join('');
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(slow.length);
    expect(slow.startsWith(partial)).toBe(true);

    // agentd ends the interrupted turn like the real CLI: result error_during_execution, then session_state_changed
    // idle. claude-agent-acp 0.23.1 returns at that result and leaves the idle unread, so the next prompt resolves at
    // the stale idle with empty usage before its own reply, and every later prompt renders the previous one's
    // reply (fixed upstream in 0.24.1, #480). This pins that 0.23.1 behaviour, and that agentd answered both prompts.
    const before = agentText(agent.updates, sessionId).length;
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'after the cancel' }] })).toEqual({ stopReason: 'end_turn', usage: { ...acpUsage, inputTokens: 0, outputTokens: 0, totalTokens: 0 } });
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'after that' }] })).toEqual({ stopReason: 'end_turn', usage: acpUsage });
    expect(agentText(agent.updates, sessionId).slice(before).join('')).toBe('Still here.');
    // What the model was asked: the interrupted reply stays in the history, with Claude Code's interruption marker.
    // (The third prompt resolved at the second one's idle, so its own request may still be in flight.)
    expect(world.requests().slice(0, 2).map((r) => lastUserTexts(r))).toEqual([['a slow one please'], ['[Request interrupted by user]', 'after the cancel']]);
  });

  it('a prompt sent while another runs is queued, and each prompt ends when its own turn does', async () => {
    const slow = 'The first answer, streamed slowly enough for a second prompt to arrive meanwhile.';
    const world = acpWorld({
      rules: [
        { when: { lastUserText: 'first' }, reply: { content: [{ type: 'text', text: slow }], chunkSize: 4, delays: { chunkMs: 15 }, usage } },
        { when: { lastUserText: 'second' }, reply: { content: [{ type: 'text', text: 'The second answer.' }], usage } },
      ],
    });
    const agent = await start(world);
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    const first = agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'first question' }] });
    await agent.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text !== '');
    const second = agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'second question' }] });
    // agentd runs the queued message as its own turn after the first one's result and idle; the adapter settles the
    // first prompt at that idle and hands the loop to the second.
    expect(await first).toEqual({ stopReason: 'end_turn', usage: acpUsage });
    // 0.23.1 resets its per-session usage sum when the queued prompt arrives, so this one counts both turns.
    expect(await second).toEqual({ stopReason: 'end_turn', usage: { ...acpUsage, inputTokens: 200, outputTokens: 14, totalTokens: 214 } });
    // (The second turn's chunks may reach the client before the first prompt's response: no split point to check.)
    expect(agentText(agent.updates, sessionId).join('')).toBe(`${slow}The second answer.`);
    expect(world.requests().map((r) => lastUserTexts(r))).toEqual([['first question'], ['second question']]);
  });

  it('session/set_mode acceptEdits reaches agentd: a Write then runs without a permission request', async () => {
    const world = acpWorld({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_w', name: 'Write', input: { file_path: '{{cwd}}/auto.txt', content: 'no questions asked\n' } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'ok' }] } },
      ],
    });
    const agent = await start(world);
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    await agent.conn.setSessionMode({ sessionId, modeId: 'acceptEdits' });
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'write it' }] })).toMatchObject({ stopReason: 'end_turn' });
    expect(agent.permissionRequests).toEqual([]);
    expect(readFileSync(join(world.cwd, 'auto.txt'), 'utf8')).toBe('no questions asked\n');
    expect(toolUpdates(agent, 'toolu_w').at(-1)).toMatchObject({ status: 'completed' });
  });

  it('a fresh adapter lists the session from agentd transcripts, loads it with its history, and continues it', async () => {
    const world = acpWorld({
      rules: [
        { when: { lastUserText: 'remember', assistantTurns: 0 }, reply: { content: [{ type: 'text', text: 'Noted: 42.' }], usage } },
        { when: { lastUserText: 'what was it', assistantTurns: 1 }, reply: { content: [{ type: 'text', text: 'It was 42 (from the resumed history).' }], usage } },
        { when: { lastUserText: 'in the fork', assistantTurns: 2 }, reply: { content: [{ type: 'text', text: 'The fork knows both answers.' }], usage } },
      ],
      fallback: { content: [{ type: 'text', text: 'unscripted' }] },
    });
    const first = await start(world);
    const { sessionId } = await first.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    expect(await first.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'remember the number 42' }] })).toMatchObject({ stopReason: 'end_turn' });
    await first.close();

    const second = await start(world);
    const listed = await second.conn.listSessions({ cwd: world.cwd });
    // title = the SDK's summary (the transcript's last prompt); updatedAt = the transcript's mtime.
    expect(listed).toEqual({ sessions: [{ sessionId, cwd: world.cwd, title: 'remember the number 42', updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) }] });

    await second.conn.loadSession({ sessionId, cwd: world.cwd, mcpServers: [] });
    // The history is replayed as session updates before session/load returns.
    const replayed = second.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
    expect(replayed.filter((u) => u.sessionUpdate === 'user_message_chunk' || u.sessionUpdate === 'agent_message_chunk')).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'remember the number 42' } },
      { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Noted: 42.' } },
    ]);

    expect(await second.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'what was it?' }] })).toEqual({ stopReason: 'end_turn', usage: acpUsage });
    expect(agentText(second.updates, sessionId).slice(1).join('')).toBe('It was 42 (from the resumed history).');
    expect(world.requests().at(-1)?.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);

    // session/fork: agentd is started with --resume <id> --fork-session --session-id <new id>.
    const fork = await second.conn.unstable_forkSession({ sessionId, cwd: world.cwd, mcpServers: [] });
    expect(fork.sessionId).not.toBe(sessionId);
    expect(await second.conn.prompt({ sessionId: fork.sessionId, prompt: [{ type: 'text', text: 'and in the fork?' }] })).toEqual({ stopReason: 'end_turn', usage: acpUsage });
    expect(agentText(second.updates, fork.sessionId).join('')).toBe('The fork knows both answers.');
    const after: ListSessionsResponse = await second.conn.listSessions({ cwd: world.cwd });
    expect(Object.fromEntries(after.sessions.map((s) => [s.sessionId, s.title]))).toEqual({ [sessionId]: 'what was it?', [fork.sessionId]: 'and in the fork?' });
  });

  it('subagents: a foreground and a background Agent call (task frames, which this adapter does not know) end as completed tool calls', async () => {
    const world = acpSubagentWorld();
    const agent = await start(world);
    agent.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    expect((await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'delegate the work' }] })).stopReason).toBe('end_turn');
    expect(toolUpdates(agent, 'toolu_fg').flatMap((u) => (u.status ? [u.status] : [])).at(-1)).toBe('completed');
    expect(toolUpdates(agent, 'toolu_bg').flatMap((u) => (u.status ? [u.status] : [])).at(-1)).toBe('completed');
    expect(agentText(agent.updates, sessionId).join('')).toContain('One done, one running.');
    // The background agent's end still runs its turn in agentd (this adapter has no prompt open to show it in).
    await until(() => world.requests().some((r) => lastUserTexts(r).some((t) => t.includes('<task-notification>'))), 'the notification turn', 20_000);
  });
});
