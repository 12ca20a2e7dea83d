// More of the process edge: interrupts when idle / twice / with cancel_queued, SIGTERM while a Bash ignores
// SIGTERM (no process of its group survives), hook events frames, SessionEnd and Notification command hooks.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { groupAlive } from '../../src/tools/process.js';
import { AGENTD, STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';
import { until } from '../support/wait.js';

function scenarioFile(scenario: unknown): string {
  const p = join(tempDir('agentd-scn-'), 'scenario.json');
  writeFileSync(p, JSON.stringify(scenario));
  return p;
}

const SLOW = scenarioFile({
  rules: [{ reply: { content: [{ type: 'text', text: 'a slow answer streamed in many small pieces' }], chunkSize: 2, delays: { chunkMs: 30 } } }],
});
// 'second' is answered at once; anything else with a first block, then a minute's pause: a test that acts once
// that block has arrived acts mid-turn, however loaded the machine is.
const PAUSED = scenarioFile({
  rules: [
    { when: { lastUserText: 'second' }, reply: { content: [{ type: 'text', text: 'second answer' }] } },
    { reply: { content: [{ type: 'text', text: 'started' }, { type: 'text', text: 'never reached' }], delays: { afterBlockMs: { '0': 60_000 } } } },
  ],
});
const interrupt = (id: string, extra: Record<string, unknown> = {}) => ({ type: 'control_request', request_id: id, request: { subtype: 'interrupt', ...extra } });
const responseOf = (frames: Array<Record<string, unknown>>, id: string) =>
  frames.find((f) => f['type'] === 'control_response' && (f['response'] as { request_id: string }).request_id === id)?.['response'];

describe('interrupt edge cases', () => {
  it('when idle: a receipt and nothing else', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', SLOW] });
    d.send(initializeFrame());
    d.send(interrupt('i1'));
    d.endInput();
    await d.exited;
    expect(responseOf(d.tap.frames, 'i1')).toEqual({ subtype: 'success', request_id: 'i1', response: { still_queued: [] } });
    expect(d.tap.frames.filter((f) => f['type'] === 'result')).toEqual([]);
  });

  it('twice during a turn: two receipts, one interrupted result, the next turn runs', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', PAUSED] });
    d.send(initializeFrame());
    d.send(userFrame('first', { uuid: '11111111-1111-4111-8111-111111111111' }));
    await d.waitFor((f) => f['type'] === 'assistant');
    d.send(interrupt('i1'));
    d.send(interrupt('i2'));
    await d.waitFor((f) => f['type'] === 'result');
    d.send(userFrame('second'));
    d.endInput();
    await d.exited;
    expect(responseOf(d.tap.frames, 'i1')).toMatchObject({ subtype: 'success' });
    expect(responseOf(d.tap.frames, 'i2')).toMatchObject({ subtype: 'success' });
    expect(d.tap.frames.filter((f) => f['type'] === 'result').map((f) => f['subtype'])).toEqual(['error_during_execution', 'success']);
  });

  it('cancel_queued drops the queued messages and names them', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', PAUSED] });
    d.send(initializeFrame());
    d.send(userFrame('running'));
    d.send(userFrame('queued one', { uuid: '22222222-2222-4222-8222-222222222222' }));
    await d.waitFor((f) => f['type'] === 'assistant');
    d.send(interrupt('i1', { cancel_queued: true }));
    await d.waitFor((f) => f['type'] === 'result');
    d.endInput();
    await d.exited;
    expect(responseOf(d.tap.frames, 'i1')).toEqual({ subtype: 'success', request_id: 'i1', response: { still_queued: [], cancelled: ['22222222-2222-4222-8222-222222222222'] } });
    expect(d.tap.frames.filter((f) => f['type'] === 'result')).toHaveLength(1);
  });
});

describe('signals and tool processes', () => {
  it('SIGTERM while a Bash ignores SIGTERM: the whole process group is killed, exit 143', async () => {
    const cwd = tempDir('agentd-cwd-');
    // Readiness: pgid.txt appears (atomically, by rename) only once the shell ignores SIGTERM and its background
    // child, which inherits that, has been forked: from then on the group can only end by SIGKILL.
    const scenario = scenarioFile({
      rules: [{ reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'trap "" TERM; (sleep 60) & echo $$ > pgid.tmp && mv pgid.tmp pgid.txt; sleep 60; wait' } }] } }],
    });
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', scenario, '--allowedTools', 'Bash', '--include-partial-messages'], cwd });
    d.send(initializeFrame());
    d.send(userFrame('run it'));
    await until(() => existsSync(join(cwd, 'pgid.txt')), 'the Bash command to be ready (pgid.txt)');
    const pgid = Number(readFileSync(join(cwd, 'pgid.txt'), 'utf8'));
    expect(groupAlive(pgid)).toBe(true);
    const t0 = Date.now();
    d.child.kill('SIGTERM');
    const r = await d.exited;
    expect(r).toEqual({ code: 143, signal: null });
    // SIGTERM is ignored, so only the SIGKILL after the 2 s grace ends the group: well before the 60 s sleeps would.
    expect(Date.now() - t0).toBeLessThan(20_000);
    // SIGKILL was sent before agentd exited; the kernel ends the processes asynchronously (later on a loaded machine).
    await until(() => !groupAlive(pgid), `process group ${pgid} to be gone`, 10_000);
  });
});

describe('bin/agentd executed directly (as the SDKs run it)', () => {
  const probe = scenarioFile({
    rules: [
      { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo "T=[${GLIBC_TUNABLES-unset}] M=[${AGENTD_SET_GLIBC_TUNABLES-unset}]"' } }] } },
      { reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
  });
  const toolOutput = async (env: Record<string, string>): Promise<{ output: unknown; environ: string; cmdline: string[] }> => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', probe, '--allowedTools', 'Bash'], env, direct: true });
    d.send(initializeFrame());
    d.send(userFrame('probe'));
    const result = await d.waitFor((f) => f['type'] === 'user' && f['tool_use_result'] !== undefined);
    const pid = d.child.pid as number;
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    await d.waitFor((f) => f['type'] === 'result');
    d.endInput();
    expect((await d.exited).code).toBe(0);
    return { output: (result['tool_use_result'] as Record<string, unknown>)['stdout'], environ, cmdline };
  };

  it('starts node with one malloc arena; tools do not inherit the tunable', async () => {
    const r = await toolOutput(baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted' }));
    expect(r.output).toBe('T=[unset] M=[unset]');
    // The process itself was started with it (the environment block as exec'd), as `node bin/agentd`.
    expect(r.environ.split('\0')).toContain('GLIBC_TUNABLES=glibc.malloc.arena_max=1');
    expect(r.cmdline.slice(1, 2)).toEqual([AGENTD]);
  });

  it('collects garbage at turn ends under its run-time V8 settings, for a long session, without failing a turn', async () => {
    const cwd = tempDir('agentd-cwd-');
    writeFileSync(join(cwd, 'big.txt'), `${'a line of text that makes each tool result big enough\n'.repeat(1500)}`);
    const scenario = scenarioFile({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: '{{cwd}}/big.txt' } }] } },
        { reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
    });
    const env = baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted', AGENTD_LOG_LEVEL: 'debug' });
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', scenario, '--allowedTools', 'Read'], env, cwd, direct: true });
    d.send(initializeFrame());
    const turns = 40;
    for (let i = 0; i < turns; i++) {
      d.send(userFrame(`read it ${i}`));
      await d.waitFor((f) => f['type'] === 'result' && d.tap.frames.filter((x) => x['type'] === 'result').length === i + 1);
    }
    d.endInput();
    expect((await d.exited).code).toBe(0);
    const results = d.tap.frames.filter((f) => f['type'] === 'result');
    expect(results.map((r) => r['subtype'])).toEqual(Array.from({ length: turns }, () => 'success'));
    // ~80 KiB of history a turn: the old generation passes the 1 MiB floor several times.
    const collections = d.stderr().split('\n').filter((l) => l.includes('turn-end garbage collection'));
    expect(collections.length).toBeGreaterThan(0);
  });

  it("leaves the caller's own GLIBC_TUNABLES alone, for agentd and its tools", async () => {
    const r = await toolOutput(baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted', GLIBC_TUNABLES: 'glibc.malloc.check=0' }));
    expect(r.output).toBe('T=[glibc.malloc.check=0] M=[unset]');
    expect(r.environ.split('\0')).toContain('GLIBC_TUNABLES=glibc.malloc.check=0');
  });
});

describe('hooks at the process level', () => {
  it('--include-hook-events reports SDK callback hooks as hook_started / hook_response frames', async () => {
    const scenario = scenarioFile({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*' } }] } },
        { reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
    });
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', scenario, '--include-hook-events'] });
    d.send(initializeFrame('init', { hooks: { PreToolUse: [{ matcher: 'Glob', hookCallbackIds: ['hook_0'] }] } }));
    d.send(userFrame('go'));
    const req = await d.waitFor((f) => f['type'] === 'control_request');
    expect(req['request']).toMatchObject({ subtype: 'hook_callback', callback_id: 'hook_0', input: { hook_event_name: 'PreToolUse', tool_name: 'Glob', tool_input: { pattern: '*' } } });
    d.send({ type: 'control_response', response: { subtype: 'success', request_id: req['request_id'], response: { continue: true } } });
    await d.waitFor((f) => f['type'] === 'result');
    d.endInput();
    await d.exited;
    const hookFrames = d.tap.frames.filter((f) => f['type'] === 'system' && String(f['subtype']).startsWith('hook_'));
    expect(hookFrames.map((f) => [f['subtype'], f['hook_event'], f['hook_name']])).toEqual([
      ['hook_started', 'PreToolUse', 'callback:hook_0'],
      ['hook_response', 'PreToolUse', 'callback:hook_0'],
    ]);
    expect(hookFrames[1]).toMatchObject({ outcome: 'success' });
  });

  it('command hooks from the project settings of a trusted repository: Notification on a permission prompt, SessionEnd at exit', async () => {
    const cwd = tempDir('agentd-cwd-');
    mkdirSync(join(cwd, '.claude'));
    const log = join(cwd, 'hook.log');
    writeFileSync(
      join(cwd, '.claude/settings.json'),
      JSON.stringify({
        hooks: {
          // One write per event: the Notification hook runs in the background and may still be writing when
          // SessionEnd's runs (a busy machine interleaved `cat` and `echo` of the two into one line).
          Notification: [{ hooks: [{ type: 'command', command: `x=$(cat); printf '%s\\n' "$x" >> ${log}` }] }],
          SessionEnd: [{ hooks: [{ type: 'command', command: `x=$(cat); printf '%s\\n' "$x" >> ${log}` }] }],
        },
      }),
    );
    const scenario = scenarioFile({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: '{{cwd}}/x.txt', content: 'x' } }] } },
        { reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
    });
    // A repository's hooks run only once it is trusted (here for this run).
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', scenario, '--permission-prompt-tool', 'stdio', '--trust-workspace'], cwd });
    d.send(initializeFrame());
    d.send(userFrame('write it'));
    const req = await d.waitFor((f) => f['type'] === 'control_request');
    d.send({ type: 'control_response', response: { subtype: 'success', request_id: req['request_id'], response: { behavior: 'allow', updatedInput: { file_path: join(cwd, 'x.txt'), content: 'x' } } } });
    await d.waitFor((f) => f['type'] === 'result');
    d.endInput();
    expect((await d.exited).code).toBe(0);
    const events = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => e['hook_event_name'])).toEqual(['Notification', 'SessionEnd']);
    expect(events[0]).toMatchObject({ notification_type: 'permission_prompt', message: 'agentd needs your permission to use Write' });
    expect(events[1]).toMatchObject({ reason: 'prompt_input_exit' });
    expect(readFileSync(join(cwd, 'x.txt'), 'utf8')).toBe('x');
  });
});
