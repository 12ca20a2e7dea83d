// The real Python Claude Agent SDK (vendored 0.2.143, installed into .venv-py by scripts/setup-python.mjs) drives
// bin/agentd on the scripted model: query(), ClaudeSDKClient multi-turn with interrupt(), can_use_tool, PreToolUse
// callback hooks, include_partial_messages, resume by id, an in-process MCP server (`type: "sdk"` in --mcp-config,
// tunnelled through mcp_message). test/e2e/python/scenarios.py runs every scenario at once
// (one interpreter start, ~0.7 s of imports) and prints one JSON summary line each; here each is compared whole,
// together with what the scripted model was asked.
// A missing python3, vendored SDK or package index fails these tests with the reason; they never skip.
import { execFile, spawn } from 'node:child_process';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import type { ModelRequest } from '../../src/model/types.js';
import { recordedRequests } from '../support/sdk-run.js';
import { AGENTD, ROOT, baseEnv, tempDir } from '../support/daemon.js';
import { withoutContext } from '../support/context.js';

const SCENARIOS: Record<string, Scenario> = {
  query: { rules: [{ reply: { content: [{ type: 'text', text: 'Hello, {{lastUserText}}!' }] } }] },
  client_interrupt: {
    rules: [
      { when: { lastUserText: 'first question' }, reply: { content: [{ type: 'text', text: 'Answer one.' }] } },
      {
        when: { lastUserText: 'slow story' },
        // After the first block the reply pauses for 30 s: the turn ends early only if the interrupt works.
        reply: { content: [{ type: 'text', text: 'Once upon a time' }, { type: 'text', text: 'never reached' }], delays: { afterBlockMs: { '0': 30_000 } } },
      },
      { when: { lastUserText: 'second question' }, reply: { content: [{ type: 'text', text: 'Answer two.' }] } },
    ],
  },
  can_use_tool: {
    rules: [
      {
        when: { hasToolResults: false },
        reply: {
          content: [
            { type: 'tool_use', id: 'toolu_allowed', name: 'Write', input: { file_path: '{{cwd}}/allowed.txt', content: 'allowed\n' } },
            { type: 'tool_use', id: 'toolu_denied', name: 'Write', input: { file_path: '{{cwd}}/denied.txt', content: 'denied\n' } },
          ],
        },
      },
      { reply: { content: [{ type: 'text', text: 'Done.' }] } },
    ],
  },
  hooks: {
    rules: [
      {
        when: { hasToolResults: false },
        reply: {
          content: [
            { type: 'tool_use', id: 'toolu_bash', name: 'Bash', input: { command: 'echo from bash > bash.txt' } },
            { type: 'tool_use', id: 'toolu_write', name: 'Write', input: { file_path: '{{cwd}}/hooked.txt', content: 'written\n' } },
          ],
        },
      },
      { reply: { content: [{ type: 'text', text: 'Done.' }] } },
    ],
  },
  partial_messages: { rules: [{ reply: { content: [{ type: 'text', text: 'Streamed in pieces.' }], chunkSize: 8 } }] },
  sdk_mcp: {
    rules: [
      { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_add', name: 'mcp__calc__add', input: { a: 2, b: 3 } }] } },
      { reply: { content: [{ type: 'text', text: 'The tool said {{lastToolResult}}.' }] } },
    ],
  },
  agent_tasks: {
    rules: [
      { when: { lastUserText: 'task-notification' }, reply: { content: [{ type: 'text', text: 'The background agent reported.' }] } },
      { when: { system: 'tester agent', lastUserText: 'in the foreground' }, reply: { content: [{ type: 'text', text: 'Foreground report.' }] } },
      { when: { system: 'tester agent', lastUserText: 'in the background' }, reply: { content: [{ type: 'text', text: 'Background report.' }], delays: { firstTokenMs: 2000 } } },
      {
        when: { lastUserText: 'delegate twice', hasToolResults: false },
        reply: {
          content: [
            { type: 'tool_use', id: 'toolu_fg', name: 'Agent', input: { description: 'Fore', prompt: 'Work in the foreground', subagent_type: 'tester' } },
            { type: 'tool_use', id: 'toolu_bg', name: 'Agent', input: { description: 'Back', prompt: 'Work in the background', subagent_type: 'tester', run_in_background: true } },
          ],
        },
      },
      { when: { lastUserText: 'delegate twice', hasToolResults: true }, reply: { content: [{ type: 'text', text: 'One done, one running.' }] } },
    ],
  },
  resume: {
    rules: [
      // Matches only when the conversation already holds one assistant turn: i.e. the history was resumed.
      { when: { lastUserText: 'what was the word', assistantTurns: 1 }, reply: { content: [{ type: 'text', text: 'It was PELICAN.' }] } },
      { when: { lastUserText: 'remember' }, reply: { content: [{ type: 'text', text: 'I will remember it.' }] } },
    ],
  },
};

interface World {
  cwd: string;
  env: Record<string, string>;
  requests(): ModelRequest[];
}

function world(scenario: Scenario): World {
  const dir = tempDir('agentd-py-');
  const scenarioPath = join(dir, 'scenario.json');
  const recordPath = join(dir, 'requests.ndjson');
  writeFileSync(scenarioPath, JSON.stringify(scenario));
  return {
    // Real path: agentd reports (and keys sessions by) its resolved working directory.
    cwd: realpathSync(tempDir('agentd-py-ws-')),
    env: baseEnv({ AGENTD_SCENARIO: scenarioPath, AGENTD_SCENARIO_RECORD: recordPath }),
    requests: () => recordedRequests(recordPath),
  };
}

type Line = { scenario: string; summary?: unknown; error?: string };

const worlds = Object.fromEntries(Object.keys(SCENARIOS).map((name) => [name, world(SCENARIOS[name] as Scenario)])) as Record<string, World>;
const lines = new Map<string, Line>();
let sdkVersion: string | undefined;
let stderr = '';

/** Installs (or finds) the venv; a missing prerequisite is an error naming it. */
async function pythonSdk(): Promise<{ python: string; version: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'scripts/setup-python.mjs')], { timeout: 600_000 });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as { python: string; version: string };
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    throw new Error(`The Python SDK tests cannot run: ${(err.stderr ?? '').trim() || err.message}`);
  }
}

beforeAll(async () => {
  const { python } = await pythonSdk();
  const planPath = join(tempDir('agentd-py-plan-'), 'plan.json');
  writeFileSync(planPath, JSON.stringify({ cli_path: AGENTD, scenarios: Object.fromEntries(Object.entries(worlds).map(([n, w]) => [n, { cwd: w.cwd, env: w.env }])) }));
  const child = spawn(python, [join(ROOT, 'test/e2e/python/scenarios.py'), planPath], {
    // The interpreter's own environment is clean too (the SDK passes it on to agentd under options.env).
    env: baseEnv({ PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  for (const l of out.split('\n').filter(Boolean)) {
    const v = JSON.parse(l) as Line & { sdk_version?: string };
    if (v.sdk_version) sdkVersion = v.sdk_version;
    else lines.set(v.scenario, v);
  }
  if (code !== 0) throw new Error(`scenarios.py exited ${code}; stderr: ${stderr.slice(-3000)}`);
}, 300_000);

/** The summary a scenario printed; its error (a Python traceback) or a missing line fails the test with it. */
function summary(name: string): unknown {
  const l = lines.get(name);
  if (!l) throw new Error(`scenarios.py printed no line for ${name}; stderr: ${stderr.slice(-3000)}`);
  if (l.error !== undefined) throw new Error(`${name} failed in Python:\n${l.error}`);
  return l.summary;
}

const success = (result: string, num_turns = 1, permission_denials: unknown[] = []) => ({
  subtype: 'success',
  is_error: false,
  result,
  num_turns,
  stop_reason: 'end_turn',
  permission_denials,
});
/** A user prompt as it is sent in the request that carries it (the last one gets the cache breakpoint). */
const prompt = (text: string) => ({ role: 'user', content: [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] });
const created = (path: string) => `File created successfully at: ${path} (file state is current in your context — no need to Read it back)`;

describe('the Python Agent SDK drives agentd', () => {
  it('is the vendored version', () => {
    expect(sdkVersion).toBe('0.2.143');
  });

  it('query(): a one-shot prompt, its answer and a success result', () => {
    const w = worlds['query'] as World;
    expect(summary('query')).toEqual({
      kinds: ['system/init', 'assistant:text', 'result/success'],
      texts: ['Hello, hello from python!'],
      result: success('Hello, hello from python!'),
      one_session: true,
      init: { cwd: w.cwd, permissionMode: 'default' },
    });
    expect(w.requests().map((r) => withoutContext(r.messages))).toEqual([[prompt('hello from python')]]);
  });

  it('ClaudeSDKClient: three turns on one connection, the second interrupted mid-reply', () => {
    const w = worlds['client_interrupt'] as World;
    expect(summary('client_interrupt')).toEqual({
      turns: [
        { kinds: ['system/init', 'assistant:text', 'result/success'], texts: ['Answer one.'], user_texts: [], result: success('Answer one.') },
        {
          kinds: ['system/init', 'assistant:text', 'user:text', 'result/error_during_execution'],
          texts: ['Once upon a time'],
          user_texts: ['[Request interrupted by user]'],
          result: { subtype: 'error_during_execution', is_error: true, result: null, num_turns: 1, stop_reason: null, permission_denials: [] },
        },
        { kinds: ['system/init', 'assistant:text', 'result/success'], texts: ['Answer two.'], user_texts: [], result: success('Answer two.') },
      ],
      one_session: true,
    });
    // The third request carries the whole conversation: the interrupted reply up to its first block and the marker.
    expect(w.requests().map((r) => withoutContext(r.messages))).toEqual([
      [prompt('first question')],
      [{ role: 'user', content: 'first question' }, { role: 'assistant', content: [{ type: 'text', text: 'Answer one.' }] }, prompt('tell me a slow story')],
      [
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: [{ type: 'text', text: 'Answer one.' }] },
        { role: 'user', content: 'tell me a slow story' },
        { role: 'assistant', content: [{ type: 'text', text: 'Once upon a time' }] },
        { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }, { type: 'text', text: 'second question', cache_control: { type: 'ephemeral' } }] },
      ],
    ]);
  });

  it('can_use_tool: the callback is asked for each call; allowed runs, denied is an error result and a denial', () => {
    const w = worlds['can_use_tool'] as World;
    expect(summary('can_use_tool')).toEqual({
      asked: [
        ['Write', 'allowed.txt', 'toolu_allowed'],
        ['Write', 'denied.txt', 'toolu_denied'],
      ],
      tool_results: [
        ['toolu_allowed', false, created(join(w.cwd, 'allowed.txt'))],
        ['toolu_denied', true, 'Not that one.'],
      ],
      files: ['allowed.txt'],
      texts: ['Done.'],
      result: success('Done.', 2, [{ tool_name: 'Write', tool_use_id: 'toolu_denied' }]),
    });
    expect(readFileSync(join(w.cwd, 'allowed.txt'), 'utf8')).toBe('allowed\n');
    expect(w.requests()[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_allowed', content: created(join(w.cwd, 'allowed.txt')) },
        { type: 'tool_result', tool_use_id: 'toolu_denied', content: 'Not that one.', is_error: true, cache_control: { type: 'ephemeral' } },
      ],
    });
  });

  it('PreToolUse callback hooks: each matcher sees only its tool; one blocks Bash, one allows Write without a prompt', () => {
    const w = worlds['hooks'] as World;
    expect(summary('hooks')).toEqual({
      hook_calls: [
        ['block_bash', 'PreToolUse', 'Bash', 'toolu_bash'],
        ['allow_write', 'PreToolUse', 'Write', 'toolu_write'],
      ],
      tool_results: [
        ['toolu_bash', true, 'No shell commands from this hook.'],
        ['toolu_write', false, created(join(w.cwd, 'hooked.txt'))],
      ],
      // No bash.txt: the blocked command never ran. (Without the allowing hook, Write would have been refused:
      // default mode, no can_use_tool to ask.)
      files: ['hooked.txt'],
      result: success('Done.', 2, [{ tool_name: 'Bash', tool_use_id: 'toolu_bash' }]),
    });
  });

  it('include_partial_messages: StreamEvents for every raw event, the assembled message at its block end', () => {
    expect(summary('partial_messages')).toEqual({
      kinds: [
        'system/init',
        'system/status',
        'stream/message_start',
        'stream/content_block_start',
        'stream/content_block_delta',
        'stream/content_block_delta',
        'stream/content_block_delta',
        'assistant:text',
        'stream/content_block_stop',
        'stream/message_delta',
        'stream/message_stop',
        'result/success',
      ],
      deltas: ['Streamed', ' in piec', 'es.'],
      texts: ['Streamed in pieces.'],
      one_session: true,
      result: success('Streamed in pieces.'),
    });
  });

  it('resume: a second client resumes the first session by id and the model is asked with its history', () => {
    const w = worlds['resume'] as World;
    expect(summary('resume')).toEqual({
      first: { texts: ['I will remember it.'], result: success('I will remember it.') },
      // 'It was PELICAN.' only answers a conversation that already holds an assistant turn.
      second: { kinds: ['system/init', 'assistant:text', 'result/success'], texts: ['It was PELICAN.'], result: success('It was PELICAN.') },
      same_session: true,
    });
    expect(w.requests().map((r) => withoutContext(r.messages))).toEqual([
      [prompt('remember the word PELICAN')],
      [{ role: 'user', content: 'remember the word PELICAN' }, { role: 'assistant', content: [{ type: 'text', text: 'I will remember it.' }] }, prompt('what was the word?')],
    ]);
  });

  it('an in-process MCP server (create_sdk_mcp_server + @tool): the model calls its tool, the handler answers', () => {
    const w = worlds['sdk_mcp'] as World;
    expect(summary('sdk_mcp')).toEqual({
      calls: [[2, 3]],
      mcp_servers: [{ name: 'calc', status: 'connected', source: 'sdk' }],
      has_tool: true,
      tool_results: [['toolu_add', false, 'sum=5']],
      result: success('The tool said sum=5.', 2),
    });
    const [first, second] = w.requests();
    expect(first?.tools?.find((t) => t.name === 'mcp__calc__add')).toEqual({
      name: 'mcp__calc__add',
      description: 'Adds two integers',
      input_schema: { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] },
    });
    expect(second?.messages.at(-1)?.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_add', content: 'sum=5', cache_control: { type: 'ephemeral' } }]);
  });

  it('subagent tasks: TaskStartedMessage / TaskNotificationMessage for a foreground and a background agent; the background end starts a turn', () => {
    expect(summary('agent_tasks')).toEqual({
      first_turn_kinds_sorted: [
        'assistant:text',
        'assistant:tool_use',
        'assistant:tool_use',
        'result/success',
        'system/background_tasks_changed',
        'system/init',
        'system/task_notification',
        'system/task_started',
        'system/task_started',
        'system/task_updated',
        'user:text',
        'user:tool_result',
        'user:tool_result',
      ],
      first_turn_texts: ['One done, one running.'],
      second_turn: { kinds: ['system/task_updated', 'system/task_notification', 'system/background_tasks_changed', 'system/init', 'assistant:text', 'result/success'], texts: ['The background agent reported.'] },
      started: [
        ['toolu_fg', 'Fore', 'local_agent', false],
        ['toolu_bg', 'Back', 'local_agent', true],
      ],
      ended: [
        ['toolu_fg', 'completed', 'Foreground report.', true],
        ['toolu_bg', 'completed', 'Background report.', true],
      ],
      launched: [true],
    });
  });
});
