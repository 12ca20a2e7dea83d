// The second wall through the daemon (scripted model): a read-only command that nobody approved runs inside
// the read-only sandbox and reads the working directory as usual; approved by a rule, it runs unconfined;
// AGENTD_READONLY_SANDBOX=required without bubblewrap makes it ask (denied here: nobody can be asked).
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';
import { findOnPath } from '../../src/util/find-on-path.js';

// `test -w` asks the kernel: false on the sandbox's read-only bind, true for the owner outside it.
const COMMAND = 'cat notes.txt && test -w notes.txt || echo read-only-mount';

function scenario(): string {
  const p = join(tempDir('agentd-scn-'), 'scenario.json');
  writeFileSync(
    p,
    JSON.stringify({
      rules: [
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_ro', name: 'Bash', input: { command: COMMAND } }] } },
        { reply: { content: [{ type: 'text', text: 'done' }] } },
      ],
    }),
  );
  return p;
}

async function runOnce(opts: { extraArgs?: string[]; env?: Record<string, string> } = {}): Promise<{ result: Record<string, unknown>; meta: unknown; stderr: string }> {
  const cwd = tempDir('agentd-cwd-');
  writeFileSync(join(cwd, 'notes.txt'), 'hello from the project\n');
  const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', scenario(), ...(opts.extraArgs ?? [])], cwd, env: opts.env ?? baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted' }) });
  d.send(initializeFrame());
  d.send(userFrame('read the notes'));
  const user = await d.waitFor((f) => f['type'] === 'user' && f['tool_use_result'] !== undefined, 20_000);
  await d.waitFor((f) => f['type'] === 'result', 20_000);
  d.endInput();
  expect((await d.exited).code).toBe(0);
  return { result: user, meta: user['tool_use_result'], stderr: d.stderr() };
}

describe('read-only sandbox through the daemon', () => {
  it('a read-only cat nobody approved runs in the sandbox: the file is read, the mount is read-only', async () => {
    const r = await runOnce();
    expect(r.meta).toMatchObject({ stdout: 'hello from the project\nread-only-mount', stderr: '', interrupted: false });
    expect(r.stderr).not.toContain('read-only sandbox unavailable');
  });

  it('the same command allowed by a rule runs unconfined', async () => {
    const r = await runOnce({ extraArgs: ['--allowedTools', 'Bash'] });
    expect(r.meta).toMatchObject({ stdout: 'hello from the project', stderr: '', interrupted: false });
  });

  it('AGENTD_READONLY_SANDBOX=required without bubblewrap: the read-only command is not run unasked', async () => {
    // A PATH with bash and cat but no bwrap.
    const bin = join(tempDir('agentd-bin-'), 'bin');
    mkdirSync(bin);
    for (const p of ['bash', 'cat', 'test']) {
      const real = findOnPath(p, process.env['PATH']);
      if (!real) throw new Error(`${p} is not on PATH`);
      symlinkSync(real, join(bin, p));
    }
    const r = await runOnce({ env: baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted', AGENTD_READONLY_SANDBOX: 'required', PATH: bin }) });
    expect(typeof r.meta).toBe('string');
    expect(r.meta).toContain('AGENTD_READONLY_SANDBOX=required');
    expect(r.meta).toContain('bubblewrap (bwrap) is not installed');
    expect(r.stderr).toContain('read-only sandbox unavailable');
  });

  it('an AGENTD_READONLY_SANDBOX value that is not a policy stops start-up', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', scenario()], env: baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted', AGENTD_READONLY_SANDBOX: 'yes' }) });
    d.endInput();
    const r = await d.waitFor((f) => f['type'] === 'result', 20_000);
    expect(r).toMatchObject({ is_error: true, startup_failure_reason: 'invalid_env_value' });
    expect(JSON.stringify(r)).toContain('AGENTD_READONLY_SANDBOX must be one of required, auto, off');
    expect((await d.exited).code).toBe(2);
  });
});
