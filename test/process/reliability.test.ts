// The reliability defects of issue 9, each at the process edge: what the built daemon does when the host sends
// odd input, odd answers or odd flags, when a tool escapes its process group, when the host dies mid-tool and
// when the disk is full. Each of these tests failed before its fix.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { transcriptPath } from '../../src/store/paths.js';
import { type Socket, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTD, STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';
import { startLoopbackServer } from '../support/loopback-server.js';

function scenarioFile(scenario: unknown): string {
  const p = join(tempDir('agentd-scn-'), 'scenario.json');
  writeFileSync(p, JSON.stringify(scenario));
  return p;
}

const frameKinds = (frames: Array<Record<string, unknown>>): string[] =>
  frames.map((f) => `${String(f['type'])}${f['subtype'] ? `/${String(f['subtype'])}` : ''}`);
const toolResults = (frames: Array<Record<string, unknown>>) =>
  frames
    .filter((f) => f['type'] === 'user')
    .flatMap((f) => ((f['message'] as { content: unknown }).content as Array<Record<string, unknown>>).filter((b) => b['type'] === 'tool_result'))
    .map((b) => ({ content: b['content'], is_error: b['is_error'] === true }));

describe('whitespace-only input lines', () => {
  it('are skipped silently, as blank lines are (Claude Code does the same)', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', 'builtin:echo'] });
    d.send(initializeFrame('i1'));
    d.sendRaw('   \n\t\t\n \r\n \t \r \n');
    d.send(userFrame('hello'));
    d.sendRaw('  \t');
    d.endInput();
    expect((await d.exited).code).toBe(0);
    expect(frameKinds(d.tap.frames)).toEqual(['control_response', 'system/init', 'assistant', 'result/success']);
    expect(d.stderr()).not.toContain('inbound line rejected');
  });
});

describe('a permission answer that is not an object', () => {
  const touch = scenarioFile({
    rules: [
      { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_t1', name: 'Bash', input: { command: 'touch made-by-bash' } }] } },
      { reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
  });
  for (const answer of ['"allow"', 'true', '42', '["allow"]']) {
    it(`${answer}: the call is denied at once with a typed message, the turn goes on`, async () => {
      const cwd = tempDir('agentd-cwd-');
      const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', touch, '--permission-prompt-tool', 'stdio'], cwd });
      d.send(initializeFrame());
      d.send(userFrame('touch it'));
      const req = await d.waitFor((f) => f['type'] === 'control_request');
      d.sendRaw(`{"type":"control_response","response":{"subtype":"success","request_id":${JSON.stringify(req['request_id'])},"response":${answer}}}\n`);
      // No stdin EOF before the result: the denial must not wait for the channel to close.
      const result = await d.waitFor((f) => f['type'] === 'result', 15_000);
      d.endInput();
      expect((await d.exited).code).toBe(0);
      expect(result['subtype']).toBe('success');
      expect(toolResults(d.tap.frames)).toEqual([
        {
          content: 'Tool permission request failed: the host answered with a response that is not an object (expected {behavior: "allow", updatedInput?} or {behavior: "deny", message}). The call was denied.',
          is_error: true,
        },
      ]);
      expect(d.tap.frames.filter((f) => f['subtype'] === 'protocol_error').map((f) => f['error_code'])).toEqual(['invalid_frame']);
    });
  }
});

describe('-p with --input-format stream-json', () => {
  it('serves NDJSON frames (initialize, user messages) as without -p', async () => {
    const d = startDaemon({ args: ['-p', ...STREAM_ARGS, '--scenario', 'builtin:echo'] });
    d.send(initializeFrame('i1'));
    d.send(userFrame('first'));
    const init = await d.waitFor((f) => f['type'] === 'control_response', 15_000);
    expect(init['response']).toMatchObject({ subtype: 'success', request_id: 'i1' });
    await d.waitFor((f) => f['type'] === 'result');
    d.send(userFrame('second'));
    d.endInput();
    expect((await d.exited).code).toBe(0);
    expect(d.tap.frames.filter((f) => f['type'] === 'result').map((f) => f['result'])).toEqual(['first', 'second']);
  });

  it('with --output-format text or json is refused at start-up, as Claude Code refuses it', async () => {
    for (const format of ['text', 'json']) {
      const d = startDaemon({ args: ['-p', '--input-format', 'stream-json', '--output-format', format, '--scenario', 'builtin:echo'] });
      d.endInput();
      expect((await d.exited).code).toBe(2);
      // One start-up error form per output format: text → one human line on stderr; json → one zeroed result.
      const message = '--input-format stream-json requires --output-format stream-json.';
      if (format === 'text') {
        expect([d.tap.frames, d.stderr().trim().split('\n').filter((l) => l.startsWith('agentd: '))]).toEqual([[], [`agentd: ${message}`]]);
      } else {
        expect(d.tap.frames.map((f) => [f['type'], f['startup_failure_reason'], f['errors']])).toEqual([['result', 'invalid_flag_value', [message]]]);
      }
    }
  });

  it('a positional prompt is ignored with stream-json input (as Claude Code does), with a warning', async () => {
    const d = startDaemon({ args: ['-p', 'ignored prompt', ...STREAM_ARGS, '--scenario', 'builtin:echo'] });
    d.send(initializeFrame('i1'));
    d.send(userFrame('from stdin'));
    d.endInput();
    expect((await d.exited).code).toBe(0);
    expect(d.tap.frames.filter((f) => f['type'] === 'result').map((f) => f['result'])).toEqual(['from stdin']);
    expect(d.stderr()).toContain('prompt argument ignored');
  });
});

describe('listeners', () => {
  it('no MaxListenersExceededWarning after 30 sequential tool calls and a batch of 12 in one turn', async () => {
    const scenario = scenarioFile({
      rules: [
        { reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo one' } }] }, times: 30 },
        {
          reply: { content: Array.from({ length: 12 }, (_, i) => ({ type: 'tool_use', name: 'Bash', input: { command: `echo batch ${i}` } })) },
          times: 1,
        },
        { reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
    });
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', scenario, '--allowedTools', 'Bash'] });
    d.send(initializeFrame());
    d.send(userFrame('go'));
    const result = await d.waitFor((f) => f['type'] === 'result', 60_000);
    d.endInput();
    expect((await d.exited).code).toBe(0);
    expect(result['num_turns']).toBe(32);
    expect(toolResults(d.tap.frames)).toHaveLength(42);
    expect(d.stderr()).not.toContain('MaxListenersExceededWarning');
    expect(d.stderr()).not.toContain('memory leak');
  }, 90_000);
});

describe('command hook exit codes (0 ok, 2 block with stderr, other = non-blocking error)', () => {
  const touch = scenarioFile({
    rules: [
      { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_h1', name: 'Bash', input: { command: 'touch made-by-bash' } }] } },
      { reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
  });
  const run = async (event: string, command: string) => {
    const cwd = tempDir('agentd-cwd-');
    mkdirSync(join(cwd, '.claude'));
    writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify({ hooks: { [event]: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } }));
    // The project's hooks run in a trusted repository (here for this run).
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', touch, '--allowedTools', 'Bash(touch:*)', '--include-hook-events', '--trust-workspace'], cwd });
    d.send(initializeFrame());
    d.send(userFrame('touch it'));
    await d.waitFor((f) => f['type'] === 'result', 15_000);
    d.endInput();
    expect((await d.exited).code).toBe(0);
    const hookResponses = d.tap.frames.filter((f) => f['subtype'] === 'hook_response').map((f) => [f['hook_event'], f['exit_code'], f['outcome']]);
    return { results: toolResults(d.tap.frames), hookResponses, cwd };
  };

  it('PreToolUse exit 1: reported as a hook error, the call runs (as Claude Code does)', async () => {
    const r = await run('PreToolUse', 'echo "hook trouble" >&2; exit 1');
    expect(r.hookResponses).toEqual([['PreToolUse', 1, 'error']]);
    expect(r.results).toEqual([{ content: '(Bash completed with no output)', is_error: false }]);
  });

  it('PreToolUse exit 3: the same', async () => {
    const r = await run('PreToolUse', 'exit 3');
    expect(r.results).toEqual([{ content: '(Bash completed with no output)', is_error: false }]);
  });

  it('PreToolUse exit 2: blocks the call with the hook stderr', async () => {
    const r = await run('PreToolUse', 'echo "not this one" >&2; exit 2');
    expect(r.hookResponses).toEqual([['PreToolUse', 2, 'success']]);
    expect(r.results).toEqual([{ content: 'not this one', is_error: true }]);
  });

  it('PostToolUse exit 1: non-blocking, the result is unchanged', async () => {
    const r = await run('PostToolUse', 'echo oops >&2; exit 1');
    expect(r.results).toEqual([{ content: '(Bash completed with no output)', is_error: false }]);
  });
});

describe('ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN both set', () => {
  it('an API key alone goes as x-api-key, as Claude Code sends it (the SDK would send Authorization: Bearer)', async () => {
    const server = await startLoopbackServer({ rules: [{ reply: { content: [{ type: 'text', text: 'hello' }] } }] });
    try {
      const d = startDaemon({ env: baseEnv({ ANTHROPIC_API_KEY: 'sk-test-key-000000', ANTHROPIC_BASE_URL: server.url }) });
      d.send(initializeFrame());
      d.send(userFrame('hi'));
      d.endInput();
      expect((await d.exited).code).toBe(0);
      expect(server.requests.map((r) => [r.headers['x-api-key'], r.headers['authorization']])).toEqual([['sk-test-key-000000', undefined]]);
    } finally {
      await server.close();
    }
  });

  it('one request with both credentials, as Claude Code sends them (x-api-key and Authorization: Bearer), no retries', async () => {
    const server = await startLoopbackServer({ rules: [{ reply: { content: [{ type: 'text', text: 'hello' }] } }] });
    try {
      const d = startDaemon({
        env: baseEnv({ ANTHROPIC_API_KEY: 'sk-test-key-000000', ANTHROPIC_AUTH_TOKEN: 'tok-test-000000', ANTHROPIC_BASE_URL: server.url, AGENTD_RETRY_BASE_DELAY_MS: '20' }),
      });
      d.send(initializeFrame());
      d.send(userFrame('hi'));
      d.endInput();
      expect((await d.exited).code).toBe(0);
      expect(frameKinds(d.tap.frames.filter((f) => f['type'] !== 'control_response'))).toEqual(['system/init', 'assistant', 'result/success']);
      expect(server.requests.map((r) => [r.headers['x-api-key'], r.headers['authorization']])).toEqual([['sk-test-key-000000', 'Bearer tok-test-000000']]);
      expect(d.tap.frames.find((f) => f['subtype'] === 'init')?.['apiKeySource']).toBe('ANTHROPIC_API_KEY');
    } finally {
      await server.close();
    }
  });
});

/** Alive and not a zombie (an orphan re-parented to a slow-reaping init may linger as one). */
function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function waitUntil(pred: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('processes that leave their process group (setsid)', () => {
  // Two escapes: `setsid cmd &` (a new session, still a child of the shell until it exits) and `setsid -f`
  // (forks: the new session's process is orphaned at once). Each writes its pid, then execs sleep.
  const escape = scenarioFile({
    rules: [
      {
        when: { hasToolResults: false },
        reply: {
          content: [
            {
              type: 'tool_use',
              name: 'Bash',
              input: { command: "setsid sh -c 'echo $$ > a.pid; exec sleep 1000' >/dev/null 2>&1 & setsid -f sh -c 'echo $$ > b.pid; exec sleep 1000' >/dev/null 2>&1; sleep 0.2; echo started" },
            },
          ],
        },
      },
      { reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
  });
  const start = async () => {
    const cwd = tempDir('agentd-cwd-');
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', escape, '--allowedTools', 'Bash'], cwd });
    d.send(initializeFrame());
    d.send(userFrame('escape'));
    await d.waitFor((f) => f['type'] === 'result', 15_000);
    await waitUntil(() => existsSync(join(cwd, 'a.pid')) && existsSync(join(cwd, 'b.pid')), 5000, 'the pid files');
    const pids = ['a.pid', 'b.pid'].map((f) => Number(readFileSync(join(cwd, f), 'utf8')));
    for (const pid of pids) expect(processAlive(pid)).toBe(true);
    return { d, pids };
  };
  const cleanup = (pids: number[]): void => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
  };

  it('are killed with their call when it is stopped (timeout), while the daemon goes on', async () => {
    const cwd = tempDir('agentd-cwd-');
    const scenario = scenarioFile({
      rules: [
        {
          when: { hasToolResults: false },
          reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: "setsid sh -c 'echo $$ > a.pid; exec sleep 1000' >/dev/null 2>&1 & sleep 30", timeout: 800 } }] },
        },
        { reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
    });
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', scenario, '--allowedTools', 'Bash'], cwd });
    d.send(initializeFrame());
    d.send(userFrame('escape, then time out'));
    await d.waitFor((f) => f['type'] === 'result', 15_000);
    const pid = Number(readFileSync(join(cwd, 'a.pid'), 'utf8'));
    try {
      await waitUntil(() => !processAlive(pid), 5000, 'the setsid process of the stopped call to be gone').catch(() => undefined);
      expect(processAlive(pid)).toBe(false);
      expect(d.child.exitCode).toBeNull();
      d.endInput();
      expect((await d.exited).code).toBe(0);
    } finally {
      cleanup([pid]);
    }
  });

  it('are killed when the daemon exits at stdin EOF', async () => {
    const { d, pids } = await start();
    try {
      d.endInput();
      expect((await d.exited).code).toBe(0);
      await waitUntil(() => pids.every((p) => !processAlive(p)), 3000, 'the setsid processes to be gone').catch(() => undefined);
      expect(pids.filter(processAlive)).toEqual([]);
    } finally {
      cleanup(pids);
    }
  });

  it('are killed when the daemon exits on SIGTERM', async () => {
    const { d, pids } = await start();
    try {
      d.child.kill('SIGTERM');
      expect((await d.exited).code).toBe(143);
      await waitUntil(() => pids.every((p) => !processAlive(p)), 3000, 'the setsid processes to be gone').catch(() => undefined);
      expect(pids.filter(processAlive)).toEqual([]);
    } finally {
      cleanup(pids);
    }
  });
});

describe('the host dies while a tool runs', () => {
  // A host process starts the daemon (directly, or through a shell that stays alive, so that the daemon's parent
  // outlives the host and only the closed stdio tells), starts a Bash `sleep 30`, then SIGKILLs itself.
  const HOST = `
    const { spawn } = require('node:child_process');
    const [agentd, scenario, cwd, viaShell] = process.argv.slice(1);
    const args = ['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json', '--scenario', scenario, '--allowedTools', 'Bash'];
    const c = viaShell === '1'
      ? spawn('/bin/sh', ['-c', '"$0" "$@"; echo shell still here >/dev/null', process.execPath, agentd, ...args], { cwd, stdio: ['pipe', 'pipe', 'inherit'] })
      : spawn(process.execPath, [agentd, ...args], { cwd, stdio: ['pipe', 'pipe', 'inherit'] });
    c.stdout.resume();
    c.stdin.write(JSON.stringify({ request_id: 'i', type: 'control_request', request: { subtype: 'initialize' } }) + '\\n');
    c.stdin.write(JSON.stringify({ type: 'user', session_id: '', message: { role: 'user', content: 'go' }, parent_tool_use_id: null }) + '\\n');
    process.stdout.write(String(c.pid) + '\\n');
  `;
  const sleeper = scenarioFile({
    rules: [
      { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo $$ > tool.pid; sleep 30' } }] } },
      { reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
  });

  for (const viaShell of [false, true]) {
    it(`the daemon and its tool are gone promptly (${viaShell ? 'parent outlives the host: closed stdio tells' : 'the host is the parent'})`, async () => {
      const cwd = tempDir('agentd-cwd-');
      const host = spawn(process.execPath, ['-e', HOST, AGENTD, sleeper, cwd, viaShell ? '1' : '0'], {
        env: baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted' }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let hostOut = '';
      host.stdout.on('data', (c: Buffer) => (hostOut += c.toString()));
      let hostErr = '';
      host.stderr.on('data', (c: Buffer) => (hostErr += c.toString()));
      const toolPidFile = join(cwd, 'tool.pid');
      await waitUntil(() => existsSync(toolPidFile) && readFileSync(toolPidFile, 'utf8').endsWith('\n') && hostOut.endsWith('\n'), 15_000, `the tool to start (${hostErr.slice(-300)})`);
      const daemonPid = Number(hostOut.trim());
      const toolPid = Number(readFileSync(toolPidFile, 'utf8'));
      expect(processAlive(daemonPid) && processAlive(toolPid)).toBe(true);
      const t0 = Date.now();
      host.kill('SIGKILL');
      try {
        await waitUntil(() => !processAlive(daemonPid) && !processAlive(toolPid), 10_000, 'the daemon and its tool to be gone');
        const ms = Date.now() - t0;
        console.info(`host gone (${viaShell ? 'via a shell' : 'parent'}): daemon and tool gone after ${ms} ms`);
        // The goal is under 1 s (measured: see the report of issue 9); the bound is generous for loaded machines.
        expect(ms).toBeLessThan(3000);
      } finally {
        for (const pid of [daemonPid, toolPid]) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
    }, 30_000);
  }
});

describe('one socket as both stdin and stdout (socat, inetd-style)', () => {
  it('every frame is served: stdout is not read for the host-gone watch then', async () => {
    const dir = tempDir('agentd-sock-');
    const path = join(dir, 's');
    const server = createServer();
    await new Promise<void>((r) => server.listen(path, r));
    const accepted = new Promise<Socket>((r) => server.once('connection', r));
    const host = connect(path);
    const conn = await accepted;
    const child = spawn(process.execPath, [AGENTD, ...STREAM_ARGS, '--scenario', 'builtin:echo'], {
      cwd: tempDir('agentd-cwd-'),
      env: baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted' }),
      stdio: [conn, conn, 'pipe'],
    });
    conn.destroy();
    server.close();
    let out = '';
    host.on('data', (c: Buffer) => (out += c.toString()));
    host.write(`${JSON.stringify(initializeFrame())}\n`);
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setTimeout(r, 10));
      host.write(`${JSON.stringify(userFrame(`m${i}`))}\n`);
    }
    // Messages that arrive while a turn runs are folded into the next one (as Claude Code does): the echo of a
    // folded turn is its prompts' text blocks joined by newlines (each but the last ends in one already, Claude
    // Code's join), so the answered prompts are counted line by line, blank lines aside.
    const answered = (): string[] =>
      out
        .split('\n')
        .filter((l) => l.includes('"type":"result"'))
        .flatMap((l) => String((JSON.parse(l) as Record<string, unknown>)['result']).split('\n'))
        .filter(Boolean);
    await waitUntil(() => answered().length === 20, 15_000, 'twenty answered prompts').catch(() => undefined);
    host.end();
    await new Promise((r) => child.once('exit', r));
    host.destroy();
    expect(answered()).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
  });
});

describe('the disk refuses the transcript', () => {
  it('the host is told at the first failure (agentd_warning), and at exit what stayed unwritten (session_writes_lost, Claude Code\'s); the session goes on', async () => {
    // The transcript file is /dev/full: every write fails with ENOSPC, for good. (Failing and recovering is the
    // e2e test in test/e2e/sdk-reliability.test.ts; the torn-line part is test/unit/store/writer.test.ts.)
    const cwd = tempDir('agentd-cwd-');
    const env = baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted' });
    const sessionId = '0b7e6a52-51a4-4b7e-9d2c-3f1e2a4b5c6d';
    const file = transcriptPath(env['CLAUDE_CONFIG_DIR'] as string, cwd, sessionId, env);
    mkdirSync(dirname(file), { recursive: true });
    symlinkSync('/dev/full', file);
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', 'builtin:echo', '--session-id', sessionId], env, cwd });
    d.send(initializeFrame());
    d.send(userFrame('one', { uuid: '11111111-1111-4111-8111-111111111111' }));
    d.send(userFrame('two'));
    d.endInput();
    expect((await d.exited).code).toBe(0);
    const notices = d.tap.frames.filter((f) => f['subtype'] === 'session_writes_lost' || f['subtype'] === 'agentd_warning' || f['type'] === 'result');
    expect(notices.map((f) => (f['type'] === 'result' ? ['result', f['result']] : f))).toEqual([
      {
        type: 'system',
        subtype: 'agentd_warning',
        code: 'transcript_write_failed',
        message: 'The session transcript could not be written (ENOSPC); its lines are held in memory and appended, in order, when writes succeed again.',
        path: file,
        uuid: expect.any(String),
        session_id: sessionId,
      },
      ['result', 'one'],
      ['result', 'two'],
      {
        type: 'system',
        subtype: 'session_writes_lost',
        error_code: 'ENOSPC',
        lost: ['transcript'],
        transcript_session_ids: [sessionId],
        first_lost_uuid: '11111111-1111-4111-8111-111111111111',
        uuid: expect.any(String),
        session_id: sessionId,
      },
    ]);
  });
});

export { AGENTD, baseEnv, spawn };
