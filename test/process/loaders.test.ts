// Every start-up trick has a plain fallback (src/cli/launch.ts, AGENTD_LOADER): the vm code-cache loader with
// the V8 flags (the default), Node's own compile cache (Node ≥ 22.1; `vm-cache` where Node lacks it), and
// `plain` — Node's require with none of the tricks. The same session gives the same frames on each path.
import { describe, expect, it } from 'vitest';
import { chooseLoader } from '../../src/cli/launch.js';
import { STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';
import { normalize } from '../support/frames.js';

async function session(loader: string, cwd: string): Promise<unknown[]> {
  const d = startDaemon({
    args: [...STREAM_ARGS, '--scenario', 'builtin:demo', '--no-session-persistence'],
    cwd,
    env: baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted', AGENTD_LOADER: loader }),
  });
  d.send(initializeFrame());
  d.send(userFrame('hello', { uuid: '00000000-0000-4000-8000-000000000001' }));
  await d.waitFor((f) => f['type'] === 'result', 30_000);
  d.endInput();
  const { code } = await d.exited;
  expect({ code, stderr: d.stderr() }).toEqual({ code: 0, stderr: '' });
  return d.tap.frames.map(normalize);
}

describe('start-up loaders', () => {
  it('vm-cache (default), compile-cache and plain serve the same session, frame for frame', async () => {
    const cwd = tempDir('agentd-loaders-');
    const tuned = await session('vm-cache', cwd);
    expect(tuned.some((f) => (f as { type?: unknown }).type === 'result')).toBe(true);
    expect(await session('compile-cache', cwd)).toEqual(tuned);
    expect(await session('plain', cwd)).toEqual(tuned);
  }, 90_000);

  it('each loader finds the log bundle (dist/agentd-log.js): a debug line is written as JSON on stderr', async () => {
    for (const loader of ['vm-cache', 'compile-cache', 'plain']) {
      const d = startDaemon({
        args: [...STREAM_ARGS, '--scenario', 'builtin:demo', '--no-session-persistence', '--log-level', 'debug'],
        cwd: tempDir('agentd-loaders-'),
        env: baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted', AGENTD_LOADER: loader }),
      });
      d.send(initializeFrame());
      await d.waitFor((f) => f['type'] === 'control_response', 30_000);
      d.endInput();
      const { code } = await d.exited;
      const first = d.stderr().split('\n')[0] ?? '';
      expect({ loader, code, line: JSON.parse(first) as unknown }).toEqual({ loader, code: 0, line: expect.objectContaining({ name: 'agentd', level: 20 }) });
    }
  }, 90_000);

  it('chooses by AGENTD_LOADER, and compile-cache only where Node has it', () => {
    const has = (): undefined => undefined;
    expect(chooseLoader({}, has)).toBe('vm-cache');
    expect(chooseLoader({ AGENTD_LOADER: 'plain' }, undefined)).toBe('plain');
    expect(chooseLoader({ AGENTD_LOADER: 'compile-cache' }, has)).toBe('compile-cache');
    expect(chooseLoader({ AGENTD_LOADER: 'compile-cache' }, undefined)).toBe('vm-cache');
    expect(chooseLoader({ AGENTD_LOADER: 'nonsense' }, has)).toBe('vm-cache');
  });
});
