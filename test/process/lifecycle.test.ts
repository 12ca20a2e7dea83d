// The process edge of the built daemon: stdin EOF with a turn running, signals and their exit codes, the host
// closing stdout, the parent dying, kill -9 mid-turn followed by --resume.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTD, STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';

function scenarioFile(scenario: unknown): string {
  const p = join(tempDir('agentd-scn-'), 'scenario.json');
  writeFileSync(p, JSON.stringify(scenario));
  return p;
}

const SLOW = scenarioFile({
  rules: [{ reply: { content: [{ type: 'text', text: 'slowly streaming an answer that takes a while' }], chunkSize: 2, delays: { chunkMs: 40 } } }],
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

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
      const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', SLOW] });
      d.send(initializeFrame());
      d.send(userFrame('go'));
      await d.waitFor((f) => f['type'] === 'system' && f['subtype'] === 'init');
      const t0 = Date.now();
      d.child.kill(sig);
      const r = await d.exited;
      expect(r.code).toBe(code);
      expect(Date.now() - t0).toBeLessThan(1500);
    });
  }

  it('the host closing stdout makes the daemon stop within a second (exit 3), no crash loop', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', SLOW, '--include-partial-messages'] });
    d.send(initializeFrame());
    d.send(userFrame('go'));
    await d.waitFor((f) => f['type'] === 'stream_event');
    const t0 = Date.now();
    d.child.stdout?.destroy();
    const r = await d.exited;
    expect(r.code).toBe(3);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(d.stderr()).not.toMatch(/Uncaught|UnhandledPromiseRejection|at .*\.mjs:\d+/);
  });

  it('the parent dying makes the daemon stop (its tools are not left running)', async () => {
    const cwd = tempDir('agentd-cwd-');
    // An intermediate process starts agentd with our stdin pipe (so no EOF), prints its pid and exits.
    const launcher = spawn(
      process.execPath,
      [
        '-e',
        `const c=require('child_process').spawn(process.execPath,[${JSON.stringify(AGENTD)},...${JSON.stringify([...STREAM_ARGS, '--scenario', SLOW])}],{stdio:['inherit','ignore','ignore']});process.stdout.write(String(c.pid));setTimeout(()=>process.exit(0),300);`,
      ],
      { cwd, env: baseEnv(), stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    launcher.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    await new Promise((r) => launcher.on('exit', r));
    const pid = Number(out);
    expect(pid).toBeGreaterThan(0);
    const deadline = Date.now() + 3000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive(pid)).toBe(false);
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
