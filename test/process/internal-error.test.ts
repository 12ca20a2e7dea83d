// An error that escapes every handler (a bug) ends the daemon with exit 70 after one system/internal_error frame
// (cli/fatal.ts). Driven through AGENTD_TEST_FAULT, the test-only fault injection (inert unless set).
import { describe, expect, it } from 'vitest';
import { STREAM_ARGS, baseEnv, initializeFrame, startDaemon } from '../support/daemon.js';

describe('internal errors', () => {
  for (const [fault, origin] of [
    ['unhandled_rejection', 'unhandledRejection'],
    ['uncaught_exception', 'uncaughtException'],
  ] as const) {
    it(`${fault}: a final internal_error frame on stdout, a log line on stderr, exit 70`, async () => {
      const d = startDaemon({ args: STREAM_ARGS, env: baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted', AGENTD_TEST_FAULT: fault }) });
      const { code, signal } = await d.exited;
      expect({ code, signal }).toEqual({ code: 70, signal: null });
      expect(d.tap.frames).toEqual([
        {
          type: 'system',
          subtype: 'internal_error',
          error_code: 'internal',
          message: 'Error: test fault (AGENTD_TEST_FAULT)',
          exit_code: 70,
          uuid: expect.any(String),
          session_id: expect.any(String),
        },
      ]);
      expect(d.stderr()).toContain(origin);
      expect(d.stderr()).toContain('internal error: exiting');
    });
  }

  it('without the variable the same daemon serves normally (the injection is inert)', async () => {
    const d = startDaemon({ args: STREAM_ARGS, env: baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted', AGENTD_TEST_FAULT: 'something_else' }) });
    d.send(initializeFrame());
    await d.waitFor((f) => f['type'] === 'control_response');
    d.endInput();
    const { code } = await d.exited;
    expect(code).toBe(0);
    expect(d.tap.frames.some((f) => f['subtype'] === 'internal_error')).toBe(false);
  });
});
