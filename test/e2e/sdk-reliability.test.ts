// Reliability under faults (issue 22), through the official TS SDK against fault-injecting loopback Messages
// servers: a rate limit that names a long wait, the host going away mid-tool, temporary files at exit.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { type Options, type SDKMessage, type SDKUserMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { transcriptPath } from '../../src/store/paths.js';
import { AGENTD, baseEnv, tempDir } from '../support/daemon.js';
import { type LoopbackOptions, type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';
import { FrameTap } from '../support/frames.js';
import { collect, promptChannel } from '../support/sdk-run.js';
import { until } from '../support/wait.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const KEY = 'sk-test-reliability-00000';

async function loopback(scenario: Scenario, opts: LoopbackOptions = {}): Promise<{ server: LoopbackServer; options: (extra?: Partial<Options>) => Options; cwd: string; env: Record<string, string> }> {
  server = await startLoopbackServer(scenario, {}, opts);
  const cwd = tempDir('agentd-rel-');
  const env = baseEnv({ ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url, AGENTD_RETRY_BASE_DELAY_MS: '10' });
  return { server, cwd, env, options: (extra = {}) => ({ pathToClaudeCodeExecutable: AGENTD, cwd, env, ...extra }) };
}

/** The user texts of a request (what the user typed, not agentd's reminders), a huge one named by its length. */
function userTexts(body: { messages: ReadonlyArray<{ role: string; content: unknown }> } | undefined): string[] {
  return (body?.messages ?? [])
    .flatMap((m) => {
      if (m.role !== 'user') return [];
      if (typeof m.content === 'string') return [m.content];
      return (m.content as Array<{ type: string; text?: unknown }>).flatMap((b) => (b.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>') ? [b.text] : []));
    })
    .map((t) => (t.length > 1000 ? `<${t.length} chars>` : t));
}

const typeOf = (m: SDKMessage): string => `${m.type}${'subtype' in m && typeof m.subtype === 'string' ? `/${m.subtype}` : ''}`;

describe('a rate limit whose retry-after is beyond what a turn waits for', () => {
  it('429 with retry-after 3600: the turn ends at once with the API message and the time it names, one request, no retries', async () => {
    const s = await loopback({ rules: [{ reply: { error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your hourly rate limit', retryAfter: 3600 } } }] });
    const msgs: SDKMessage[] = [];
    // The session ends with an error result: the SDK ends the iteration by throwing its text (as with Claude Code).
    const thrown = await collect(query({ prompt: 'go', options: s.options() }), (m) => void msgs.push(m)).then(
      () => undefined,
      (e: unknown) => String(e),
    );
    expect(s.server.requests).toHaveLength(1);
    expect(msgs.filter((m) => typeOf(m) === 'system/api_retry')).toEqual([]);
    const result = msgs.find((m) => m.type === 'result') as Record<string, unknown> | undefined;
    const text = expect.stringMatching(
      /^API Error: Request rejected \(429\) · Number of request tokens has exceeded your hourly rate limit \(the API asks to retry after 3600 s, at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z; a turn waits for at most 60 s\)$/,
    );
    expect([thrown, result?.['subtype'], result?.['is_error'], result?.['result'], result?.['agentd_error']]).toEqual([
      expect.stringMatching(/^Error: Claude Code returned an error result: API Error: Request rejected \(429\)/),
      'success',
      true,
      text,
      { category: 'rate_limit', retryable: true, status: 429, resets_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) },
    ]);
  });
});

/**
 * A spawner for the SDK's `spawnClaudeCodeProcess` that keeps the daemon's process: its exit, and a way to close
 * the host's end of its stdout (the host going away while the daemon runs) without the SDK knowing.
 */
function keptSpawner() {
  let child: ChildProcess | undefined;
  let resolveExit: (r: { code: number | null; signal: NodeJS.Signals | null }) => void = () => undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => (resolveExit = r));
  const out = new PassThrough();
  return {
    exited,
    pid: () => child?.pid,
    /** Closes the host's end of the daemon's stdout socket: to the daemon, the host is gone. */
    cutStdout: () => {
      child?.stdout?.destroy();
      out.end();
    },
    spawn: (o: { command: string; args: string[]; cwd?: string; env: Record<string, string | undefined>; signal: AbortSignal }) => {
      const c = spawn(o.command, o.args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
      child = c;
      const tap = new FrameTap();
      c.stdout.on('data', (b: Buffer) => {
        tap.push(b);
        out.write(b);
      });
      c.stdout.on('end', () => out.end());
      c.stderr.resume();
      c.stdin.on('error', () => undefined);
      c.on('exit', (code, signal) => resolveExit({ code, signal }));
      o.signal.addEventListener('abort', () => c.kill('SIGTERM'), { once: true });
      return {
        stdin: c.stdin,
        stdout: out,
        get killed() {
          return c.killed;
        },
        get exitCode() {
          return c.exitCode;
        },
        kill: (s: NodeJS.Signals) => c.kill(s),
        on: (ev: 'exit' | 'error', l: (...a: never[]) => void) => void c.on(ev, l as (...a: unknown[]) => void),
        once: (ev: 'exit' | 'error', l: (...a: never[]) => void) => void c.once(ev, l as (...a: unknown[]) => void),
        off: (ev: 'exit' | 'error', l: (...a: never[]) => void) => void c.off(ev, l as (...a: unknown[]) => void),
        pid: c.pid,
      };
    },
  };
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

const spillFolders = (tmp: string): string[] => readdirSync(tmp).filter((n) => n.startsWith('agentd-spill-'));

/** A Bash call that writes its pid, logs every SIGTERM it gets and otherwise ignores it, and runs until killed. */
const STUBBORN = "trap 'echo TERM >> term.log' TERM; echo $$ > tool.pid.tmp && mv tool.pid.tmp tool.pid; while :; do sleep 0.1; done";

const bashTurn = (command: string): Scenario => ({
  rules: [
    { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_bash', name: 'Bash', input: { command, description: 'run' } }] } },
    { reply: { content: [{ type: 'text', text: 'done' }] } },
  ],
});

describe('the host goes away while a tool runs', () => {
  it('the tool is SIGKILLed at once (no grace period for a host that left), the daemon exits 3, its spill folder is gone', async () => {
    const s = await loopback(bashTurn(STUBBORN));
    const tmp = tempDir('agentd-tmp-');
    const sp = keptSpawner();
    const ch = promptChannel();
    ch.push('go');
    const q = query({ prompt: ch, options: s.options({ env: { ...s.env, TMPDIR: tmp }, allowedTools: ['Bash'], spawnClaudeCodeProcess: sp.spawn }) });
    const reading = collect(q).catch(() => []);
    const pidFile = join(s.cwd, 'tool.pid');
    await until(() => existsSync(pidFile), 'the Bash call to start', 20_000);
    const toolPid = Number(readFileSync(pidFile, 'utf8'));
    expect([alive(toolPid), spillFolders(tmp).length]).toEqual([true, 1]);
    const t0 = Date.now();
    sp.cutStdout();
    const exit = await sp.exited;
    console.info(`host gone mid-tool: daemon exited ${Date.now() - t0} ms after the host's end of stdout closed`);
    ch.close();
    await reading;
    await until(() => !alive(toolPid), 'the tool to be gone', 5000).catch(() => undefined);
    // No TERM line: the tool never got a SIGTERM it could sit out, only the SIGKILL.
    expect({ exit, toolAlive: alive(toolPid), termLog: existsSync(join(s.cwd, 'term.log')), spills: spillFolders(tmp) }).toEqual({
      exit: { code: 3, signal: null },
      toolAlive: false,
      termLog: false,
      spills: [],
    });
  }, 30_000);
});

describe('temporary files', () => {
  it('a session that ran Bash leaves no spill folder after a normal end (stdin EOF)', async () => {
    const s = await loopback(bashTurn('echo hello'));
    const tmp = tempDir('agentd-tmp-');
    const sp = keptSpawner();
    const msgs = await collect(query({ prompt: 'go', options: s.options({ env: { ...s.env, TMPDIR: tmp }, allowedTools: ['Bash'], spawnClaudeCodeProcess: sp.spawn }) }));
    expect(msgs.filter((m) => m.type === 'result').map((m) => [m.subtype, 'result' in m ? m.result : undefined])).toEqual([['success', 'done']]);
    expect(await sp.exited).toEqual({ code: 0, signal: null });
    expect(spillFolders(tmp)).toEqual([]);
  });

  it('nor when the host stops it with SIGTERM while Bash runs (the SDK aborting the query)', async () => {
    const s = await loopback(bashTurn(STUBBORN));
    const tmp = tempDir('agentd-tmp-');
    const sp = keptSpawner();
    const abort = new AbortController();
    const reading = collect(query({ prompt: 'go', options: s.options({ env: { ...s.env, TMPDIR: tmp }, allowedTools: ['Bash'], spawnClaudeCodeProcess: sp.spawn, abortController: abort }) })).catch(() => []);
    await until(() => existsSync(join(s.cwd, 'tool.pid')), 'the Bash call to start', 20_000);
    expect(spillFolders(tmp)).toHaveLength(1);
    abort.abort();
    expect(await sp.exited).toEqual({ code: 143, signal: null });
    await reading;
    expect(spillFolders(tmp)).toEqual([]);
  }, 30_000);
});

describe('a prompt the API refuses as too long', () => {
  const TOO_LONG = { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 1310734 tokens > 200000 maximum' };
  const HUGE = `HUGE ${'x'.repeat(5 * 1024 * 1024)}`;

  it('does not stay in the conversation: the next short turn succeeds, and so does a resume of the session', async () => {
    const s = await loopback({ rules: [], fallback: { content: [{ type: 'text', text: 'short answer' }] } }, { refuse: ({ bytes }) => (bytes > 1_000_000 ? TOO_LONG : undefined) });
    const ch = promptChannel();
    ch.push(HUGE);
    const results: Array<Record<string, unknown>> = [];
    await collect(query({ prompt: ch, options: s.options() }), (m) => {
      if (m.type !== 'result') return;
      results.push(m);
      if (results.length === 1) ch.push('hello, a short one');
      else ch.close();
    });
    // Claude Code 2.1.330's words for it (measured with the same 5 MiB prompt and refusal).
    expect(results.map((r) => [r['is_error'], r['terminal_reason'], r['result']])).toEqual([
      [
        true,
        'prompt_too_long',
        "Prompt is too long · the request is ~1310734 tokens (limit 200000) and this conversation's own content is most of it. A single-exchange conversation cannot be compacted; start with less content (smaller files or pasted text).",
      ],
      [false, 'completed', 'short answer'],
    ]);
    const last = s.server.requests.at(-1);
    expect([last?.outcome, userTexts(last?.body)]).toEqual(['completed', ['hello, a short one']]);

    // A new process resumes the conversation the session had: the refused prompt is not in it.
    const sessionId = String(results[1]?.['session_id']);
    const resumed = await collect(query({ prompt: 'and again', options: s.options({ resume: sessionId }) }));
    expect(resumed.filter((m) => m.type === 'result').map((m) => [m.is_error, 'result' in m ? m.result : undefined])).toEqual([[false, 'short answer']]);
    expect(userTexts(s.server.requests.at(-1)?.body)).toEqual(['hello, a short one', 'and again']);
  });
});

describe('a transcript with a broken parent link', () => {
  it('resume keeps every intact turn and says which entry it relinked (system/agentd_transcript_relinked)', async () => {
    const s = await loopback({ rules: [], fallback: { content: [{ type: 'text', text: 'ok' }] } });
    let sessionId = '';
    for (const prompt of ['turn one', 'turn two', 'turn three']) {
      const msgs = await collect(query({ prompt, options: s.options(sessionId ? { resume: sessionId } : {}) }));
      sessionId = String((msgs.at(-1) as { session_id: string }).session_id);
    }
    const path = transcriptPath(s.env['CLAUDE_CONFIG_DIR'] as string, s.cwd, sessionId, s.env);
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const at = lines.findIndex((l) => l.includes('"type":"user"') && l.includes('turn three'));
    const entry = JSON.parse(lines[at] ?? '{}') as { uuid: string; parentUuid: string };
    lines[at] = JSON.stringify({ ...entry, parentUuid: '00000000-dead-4bad-8bad-000000000000' });
    writeFileSync(path, `${lines.join('\n')}\n`);

    const msgs = await collect(query({ prompt: 'turn four', options: s.options({ resume: sessionId }) }));
    const texts = userTexts(s.server.requests.at(-1)?.body);
    expect(texts).toEqual(['turn one', 'turn two', 'turn three', 'turn four']);
    expect(msgs.filter((m) => typeOf(m) === 'system/agentd_transcript_relinked')).toEqual([
      {
        type: 'system',
        subtype: 'agentd_transcript_relinked',
        transcript_path: path,
        message: '1 entry of the resumed transcript named a parent that could not be followed; each was linked to the entry before it, so the earlier turns are kept.',
        links: [{ line: at + 1, entry_uuid: entry.uuid, parent_uuid: '00000000-dead-4bad-8bad-000000000000', problem: 'parent_missing', linked_to_uuid: entry.parentUuid }],
        uuid: expect.any(String),
        session_id: sessionId,
      },
    ]);
  });
});

describe('a disk that fills up and frees up again', () => {
  it('the turn written while writes fail is appended once they succeed: a resume has every turn; the host is told both times', async () => {
    const s = await loopback({ rules: [], fallback: { content: [{ type: 'text', text: 'ok' }] } });
    // Test-only fault (src/cli/fatal.ts): transcript writes fail with ENOSPC while this file exists.
    const full = join(tempDir('agentd-fault-'), 'disk-full');
    const env = { ...s.env, AGENTD_TEST_FAULT: `transcript_enospc_while:${full}` };
    const ch = promptChannel();
    ch.push('turn one');
    const prompts = ['turn two', 'turn three'];
    let results = 0;
    const msgs = await collect(query({ prompt: ch, options: s.options({ env }) }), (m) => {
      if (m.type !== 'result') return;
      results++;
      if (results === 1) writeFileSync(full, ''); // the disk is full for turn two
      if (results === 2) rmSync(full); // and has room again for turn three
      const next = prompts.shift();
      if (next) ch.push(next);
      else ch.close();
    });
    const sessionId = String((msgs.at(-1) as { session_id: string }).session_id);
    const path = transcriptPath(s.env['CLAUDE_CONFIG_DIR'] as string, s.cwd, sessionId, s.env);
    expect(msgs.filter((m) => m.type === 'system' && ['agentd_warning', 'session_writes_lost'].includes(m.subtype)).map((m) => ({ ...m, uuid: '<uuid>' }))).toEqual([
      {
        type: 'system',
        subtype: 'agentd_warning',
        code: 'transcript_write_failed',
        message: 'The session transcript could not be written (ENOSPC); its lines are held in memory and appended, in order, when writes succeed again.',
        path,
        uuid: '<uuid>',
        session_id: sessionId,
      },
      {
        type: 'system',
        subtype: 'agentd_warning',
        code: 'transcript_writes_recovered',
        message: expect.stringMatching(/^Transcript writes succeed again: the \d+ held lines were appended; nothing is missing\.$/),
        path,
        uuid: '<uuid>',
        session_id: sessionId,
      },
    ]);
    // Every line of the file is whole JSON, and a new process resumes the whole conversation.
    expect(() => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown)).not.toThrow();
    await collect(query({ prompt: 'turn four', options: s.options({ resume: sessionId }) }));
    const texts = userTexts(s.server.requests.at(-1)?.body);
    expect(texts).toEqual(['turn one', 'turn two', 'turn three', 'turn four']);
  });
});

/**
 * An async-iterable prompt of whole SDK user messages; `written()` resolves once the SDK has taken every message
 * pushed so far (it writes each to the daemon's stdin before asking for the next).
 */
function messageChannel() {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let idle: (() => void) | undefined;
  let closed = false;
  return {
    push(uuid: string, content: SDKUserMessage['message']['content']) {
      queue.push({ type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: '', uuid: uuid as SDKUserMessage['uuid'] });
      wake?.();
    },
    close() {
      closed = true;
      wake?.();
    },
    written: () => new Promise<void>((r) => (queue.length === 0 && wake !== undefined ? r() : (idle = r))),
    async *[Symbol.asyncIterator](): AsyncGenerator<SDKUserMessage> {
      for (;;) {
        const m = queue.shift();
        if (m) {
          yield m;
          continue;
        }
        if (closed) return;
        await new Promise<void>((r) => {
          wake = r;
          idle?.();
          idle = undefined;
        });
        wake = undefined;
      }
    },
  };
}

const uuidN = (i: number): string => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

describe('user messages sent while a turn runs (as Claude Code 2.1.330 handles them)', () => {
  it('those still queued when the turn ends are folded into the next turn: one request, one result, each replayed', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    const s = await loopback(
      { rules: [{ when: { requestIndex: 0 }, reply: { content: [{ type: 'text', text: 'answer one' }] } }], fallback: { content: [{ type: 'text', text: 'answer two' }] } },
      { gate: ({ index }) => (index === 0 ? held : undefined) },
    );
    const ch = messageChannel();
    ch.push(uuidN(0), 'm0');
    const q = query({ prompt: ch, options: s.options({ extraArgs: { 'replay-user-messages': null } }) });
    const msgs: SDKMessage[] = [];
    const reading = collect(q, (m) => {
      msgs.push(m);
      if (m.type === 'result' && msgs.filter((x) => x.type === 'result').length === 2) ch.close();
    });
    await until(() => s.server.requests.length === 1, 'the first request');
    for (let i = 1; i <= 3; i++) ch.push(uuidN(i), `m${i}`);
    await ch.written();
    // Lines are handled in order: once this control request is answered, m1..m3 are queued in the daemon.
    await q.mcpServerStatus();
    release();
    await reading;
    expect(s.server.requests.map((r) => userTexts(r.body))).toEqual([['m0'], ['m0', 'm1\nm2\nm3']]);
    const seen = msgs.flatMap((m): unknown[][] => {
      if (m.type === 'result') return [['result', 'result' in m ? m.result : undefined, (m as unknown as { user_message_uuids: string[] }).user_message_uuids]];
      if (m.type === 'user') return [['user', m.uuid, m.message.content]];
      return [];
    });
    expect(seen).toEqual([
      ['user', uuidN(0), 'm0'],
      ['result', 'answer one', [uuidN(0)]],
      ['user', uuidN(1), 'm1'],
      ['user', uuidN(2), 'm2'],
      ['user', uuidN(3), 'm1\nm2\nm3'],
      ['result', 'answer two', [uuidN(1), uuidN(2), uuidN(3)]],
    ]);
  });

  it('those sent while a tool runs join the running turn after its result, each as a reminder: no second turn', async () => {
    const s = await loopback({
      rules: [
        { when: { requestIndex: 0 }, reply: { content: [{ type: 'tool_use', id: 'toolu_wait', name: 'Bash', input: { command: 'while [ ! -f go ]; do sleep 0.02; done; echo went', description: 'wait' } }] } },
      ],
      fallback: { content: [{ type: 'text', text: 'all answered' }] },
    });
    const ch = messageChannel();
    ch.push(uuidN(0), 'm0');
    const q = query({ prompt: ch, options: s.options({ allowedTools: ['Bash'], extraArgs: { 'replay-user-messages': null } }) });
    const msgs: SDKMessage[] = [];
    const reading = collect(q, (m) => {
      msgs.push(m);
      if (m.type === 'result') ch.close();
    });
    await until(() => s.server.requests.length === 1 && msgs.some((m) => m.type === 'assistant'), 'the Bash call');
    ch.push(uuidN(1), 'm1');
    ch.push(uuidN(2), [{ type: 'text', text: 'm2' }]);
    await ch.written();
    await q.mcpServerStatus();
    writeFileSync(join(s.cwd, 'go'), '');
    await reading;
    expect(s.server.requests).toHaveLength(2);
    const last = s.server.requests[1]?.body.messages.at(-1);
    const reminder = (text: string): string =>
      `<system-reminder>\nThe user sent a new message while you were working:\n${text}\n\nThis is how agentd surfaces messages the user sends mid-turn — within the running turn, often alongside the next tool result, rather than as a separate conversation turn. Address the message above as you continue this turn.\n</system-reminder>`;
    expect(last).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_wait', content: 'went' },
        { type: 'text', text: reminder('m1') },
        { type: 'text', text: reminder('m2'), cache_control: { type: 'ephemeral' } },
      ],
    });
    const seen = msgs.flatMap((m): unknown[][] => {
      if (m.type === 'result') return [['result', 'result' in m ? m.result : undefined, (m as unknown as { user_message_uuids: string[] }).user_message_uuids]];
      if (m.type === 'user' && 'isReplay' in m && m.isReplay) return [['replay', m.uuid, m.message.content]];
      if (m.type === 'user') return [['tool_result']];
      return [];
    });
    expect(seen).toEqual([
      ['replay', uuidN(0), 'm0'],
      ['tool_result'],
      ['replay', uuidN(1), 'm1'],
      ['replay', uuidN(2), [{ type: 'text', text: 'm2' }]],
      ['result', 'all answered', [uuidN(0), uuidN(1), uuidN(2)]],
    ]);
  });
});
