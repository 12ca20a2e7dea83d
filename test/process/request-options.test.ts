// A bad effort value stops the start-up naming it, in each output form (Claude Code 2.1.330 warns and runs at the
// default effort instead: agentd refuses, so a typo never silently changes cost or depth; protocol/CHANGELOG.md).
import { describe, expect, it } from 'vitest';
import { STREAM_ARGS, baseEnv, startDaemon } from '../support/daemon.js';

describe('a bad effort value is a start-up error', () => {
  it('--effort under stream-json (the SDK\'s effort option): exit 2 and one error result naming it', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--effort', 'extreme', '--scenario', 'builtin:echo'] });
    d.endInput();
    expect((await d.exited).code).toBe(2);
    expect(d.tap.frames.map((f) => [f['type'], f['subtype'], f['startup_failure_reason'], f['errors']])).toEqual([
      ['result', 'error_during_execution', 'invalid_flag_value', ['--effort must be one of low, medium, high, xhigh, max, got "extreme".']],
    ]);
  });

  it('-p with text output: exit 2 and one stderr line; CLAUDE_CODE_EFFORT_LEVEL likewise', async () => {
    const flag = startDaemon({ args: ['-p', 'hi', '--effort', 'loud', '--scenario', 'builtin:echo'] });
    flag.endInput();
    const env = startDaemon({ args: ['-p', 'hi', '--scenario', 'builtin:echo'], env: baseEnv({ CLAUDE_CODE_EFFORT_LEVEL: 'loud' }) });
    env.endInput();
    const lines = (d: typeof flag) => d.stderr().trim().split('\n').filter((l) => l.startsWith('agentd: '));
    expect([(await flag.exited).code, flag.tap.frames, lines(flag), (await env.exited).code, env.tap.frames, lines(env)]).toEqual([
      2,
      [],
      ['agentd: --effort must be one of low, medium, high, xhigh, max, got "loud".'],
      2,
      [],
      ['agentd: CLAUDE_CODE_EFFORT_LEVEL must be one of low, medium, high, xhigh, max, auto, got "loud".'],
    ]);
  });
});
