// The process edge of the built daemon: stdin EOF with a turn running, signals and their exit codes, the host
// closing stdout, the parent dying, kill -9 mid-turn followed by --resume.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTD, STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';
import { until, processAlive } from '../support/wait.js';

function scenarioFile(scenario: unknown): string {
  const p = join(tempDir('agentd-scn-'), 'scenario.json');
  writeFileSync(p, JSON.stringify(scenario));
  return p;
}

const SLOW = scenarioFile({
  rules: [{ reply: { content: [{ type: 'text', text: 'slowly streaming an answer that takes a while' }], chunkSize: 2, delays: { chunkMs: 40 } } }],
});

// The first block, then a minute's pause: a test that acts once 'started' has arrived acts mid-turn, however
// loaded the machine is, and only what it does can end the turn within the test's time.
const PAUSED = scenarioFile({
  rules: [{ reply: { content: [{ type: 'text', text: 'started' }, { type: 'text', text: 'never reached' }], delays: { afterBlockMs: { '0': 60_000 } } } }],
});
// A reply that keeps streaming for ~40 s: there is always a next write when the test acts.
const STREAMING = scenarioFile({
  rules: [{ reply: { content: [{ type: 'text', text: 'streaming '.repeat(200) }], chunkSize: 2, delays: { chunkMs: 40 } } }],
});
const startedBlock = (f: Record<string, unknown>): boolean => f['type'] === 'assistant';

const alive = processAlive;

describe('lifecycle', () => {
  it('stdin EOF with a turn running: the turn finishes, its result is written, exit 0', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', SLOW] });
    d.send(initializeFrame());
    d.send(userFrame('go'));
    d.endInput();
    const { code } = await d.exited;
    expect(code).toBe(0);
    expect(d.tap.frames.filter((f) => f['type'] === 'result')).toEqual([
      expect.objectContaining({ subtype: 'success', result: 'slowly streaming an answer that takes a while' }),
    ]);
  });

  for (const [sig, code] of [
    ['SIGTERM', 143],
    ['SIGINT', 130],
    ['SIGHUP', 129],
  ] as const) {
    it(`${sig} mid-turn exits ${code} promptly`, async () => {
      const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', PAUSED] });
      d.send(initializeFrame());
      d.send(userFrame('go'));
      // Readiness: the turn is running (its first block is out, the reply is paused).
      await d.waitFor(startedBlock);
      const t0 = Date.now();
      d.child.kill(sig);
      const r = await d.exited;
      expect(r).toEqual({ code, signal: null });
      // Well inside the reply's one-minute pause: the signal ended the turn (a bound loose enough for any load).
      expect(Date.now() - t0).toBeLessThan(20_000);
      expect(d.tap.frames.filter((f) => f['type'] === 'result' && f['subtype'] === 'success')).toEqual([]);
    });
  }

  it('the host closing stdout makes the daemon stop promptly (exit 3), no crash loop', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', STREAMING, '--include-partial-messages'] });
    d.send(initializeFrame());
    d.send(userFrame('go'));
    await d.waitFor((f) => f['type'] === 'stream_event');
    const t0 = Date.now();
    d.child.stdout?.destroy();
    const r = await d.exited;
    expect(r.code).toBe(3);
    // Its next write fails (the reply streams a chunk every 40 ms for ~40 s); a bound loose enough for any load.
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(d.stderr()).not.toMatch(/Uncaught|UnhandledPromiseRejection|at .*\.mjs:\d+/);
  });

  it('the parent dying makes the daemon stop (its tools are not left running)', async () => {
    const cwd = tempDir('agentd-cwd-');
    const out = join(cwd, 'daemon-stdout.ndjson');
    // An intermediate process starts agentd with our stdin pipe (so no EOF) and its stdout in a file, prints its
    // pid, and exits once agentd has answered initialize. That answer is the readiness signal: agentd has taken
    // note of its parent by then (an exit before it would leave a daemon already re-parented at start-up).
    const launcher = spawn(
      process.execPath,
      [
        '-e',
        `const fs=require('fs');const c=require('child_process').spawn(process.execPath,[${JSON.stringify(AGENTD)},...${JSON.stringify([...STREAM_ARGS, '--scenario', SLOW])}],{stdio:['inherit',fs.openSync(${JSON.stringify(out)},'w'),'ignore']});process.stdout.write(String(c.pid));const t=setInterval(()=>{if(fs.readFileSync(${JSON.stringify(out)},'utf8').includes('control_response'))process.exit(0)},20);`,
      ],
      { cwd, env: baseEnv(), stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let pidText = '';
    launcher.stdout.on('data', (c: Buffer) => {
      pidText += c.toString();
    });
    launcher.stdin.write(`${JSON.stringify(initializeFrame())}\n`);
    await new Promise((r) => launcher.on('exit', r));
    const pid = Number(pidText);
    expect(pid).toBeGreaterThan(0);
    await until(() => !alive(pid), `agentd (pid ${pid}) to stop after its parent exited`);
    launcher.stdin.end();
  });

  it('kill -9 mid-turn, then --resume: the transcript is repaired and the conversation goes on', async () => {
    const scenario = scenarioFile({
      rules: [
        {
          when: { lastUserText: 'list' },
          reply: {
            content: [
              { type: 'tool_use', id: 'toolu_orphan', name: 'Glob', input: { pattern: '*' } },
              { type: 'text', text: 'still streaming…' },
            ],
            delays: { afterBlockMs: { '0': 30000 } },
          },
        },
        { when: { lastUserText: 'again' }, reply: { content: [{ type: 'text', text: 'resumed fine' }] } },
      ],
    });
    const cwd = tempDir('agentd-cwd-');
    const env = baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted' });
    const record = join(tempDir('agentd-rec-'), 'requests.ndjson');
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', scenario, '--scenario-record', record], cwd, env });
    d.send(initializeFrame());
    d.send(userFrame('list the files'));
    const assistant = await d.waitFor((f) => f['type'] === 'assistant');
    const sessionId = String(assistant['session_id']);
    d.child.kill('SIGKILL');
    await d.exited;

    const r = startDaemon({ args: [...STREAM_ARGS, '--scenario', scenario, '--scenario-record', record, '--resume', sessionId], cwd, env });
    r.send(initializeFrame());
    r.send(userFrame('again please'));
    r.endInput();
    expect((await r.exited).code).toBe(0);
    expect(r.tap.frames.find((f) => f['type'] === 'result')).toMatchObject({ subtype: 'success', result: 'resumed fine', session_id: sessionId });
    const requests = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { messages: Array<{ role: string; content: unknown }> });
    const resumed = requests.at(-1)?.messages ?? [];
    expect(resumed.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(resumed[1]?.content).toEqual([{ type: 'tool_use', id: 'toolu_orphan', name: 'Glob', input: { pattern: '*' } }]);
    const repaired = JSON.stringify(resumed[2]?.content);
    expect(repaired).toContain('"tool_use_id":"toolu_orphan"');
    expect(repaired).toContain('Aborted');
    expect(repaired).toContain('again please');
  });
});
