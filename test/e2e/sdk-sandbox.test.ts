// The `sandbox` option of the official SDK (issue 14, "Done when"): Bash runs inside the command sandbox
// (@anthropic-ai/sandbox-runtime: bubblewrap and a filtering proxy), and a required sandbox that cannot start
// fails start-up with a clear message. Needs bwrap, socat and curl (.ci/run installs them); not ripgrep, which
// agentd ships (one test runs with a PATH that has no rg at all).
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOnPath } from '../../src/util/find-on-path.js';
import { tempDir } from '../support/daemon.js';
import { collect, query, scriptedRun, toolResults } from '../support/sdk-run.js';

let hits = 0;
const server = createServer((req, res) => {
  hits++;
  res.end(`hello from ${req.headers.host}`);
});
let port = 0;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command } });
type BashCall = ReturnType<typeof bash>;
/** A scripted model that calls these Bash commands in one message, then answers "checked". */
const bashTurn = (calls: BashCall[], env?: Record<string, string>) =>
  scriptedRun(
    {
      rules: [
        { when: { hasToolResults: false }, reply: { content: calls } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'checked' }] } },
      ],
    },
    env ? { env } : {},
  );

/** A PATH directory with every program of /usr/bin and /bin (node's too) except rg: a machine without ripgrep. */
function pathWithoutRg(): string {
  const bin = join(tempDir('agentd-norg-'), 'bin');
  mkdirSync(bin, { recursive: true });
  for (const dir of [process.execPath.slice(0, process.execPath.lastIndexOf('/')), '/usr/bin', '/bin']) {
    for (const name of readdirSync(dir)) {
      if (name === 'rg' || existsSync(join(bin, name))) continue;
      symlinkSync(join(dir, name), join(bin, name));
    }
  }
  return bin;
}

describe('the sandbox option through the SDK', () => {
  it('with sandbox.enabled, Bash cannot write outside the working directory nor reach a host that is not allowed', async () => {
    const outside = tempDir('agentd-outside-');
    hits = 0;
    const run = bashTurn([
      bash('out', `touch ${outside}/escaped; echo rc=$?`),
      bash('in', 'touch inside.txt && echo written'),
      // 127.0.0.1 is not in allowedDomains: the sandbox's proxy refuses it (403), the server sees nothing,
      // and the result names the refusal as Claude Code does (<sandbox_violations> after the output).
      bash('denied', `curl --noproxy '' -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/; echo " rc=$?"`),
      // Around the proxy: the sandbox has no network of its own.
      bash('direct', `curl --noproxy '*' -sS -m 5 http://127.0.0.1:${port}/ 2>/dev/null; echo "rc=$?"`),
      // localhost is allowed: through the proxy it reaches the loopback server.
      bash('allowed', `curl --noproxy '' -sS http://localhost:${port}/`),
    ]);
    const msgs = await collect(
      query({
        prompt: 'go',
        options: run.options({
          sandbox: { enabled: true, autoAllowBashIfSandboxed: true, network: { allowedDomains: ['localhost'] } },
          permissionMode: 'default',
        }),
      }),
    );
    // autoAllowBashIfSandboxed: no prompt was needed (there is no canUseTool); every command ran sandboxed.
    const violations = `<sandbox_violations>\ndeny network-outbound 127.0.0.1:${port} (host is not on the allow list)\n</sandbox_violations>`;
    expect(toolResults(msgs)).toEqual([
      ['out', false, `touch: cannot touch '${outside}/escaped': Read-only file system\nrc=1`],
      ['in', false, 'written'],
      ['denied', false, `403 rc=0\n${violations}`],
      ['direct', false, 'rc=7'],
      ['allowed', false, `hello from localhost:${port}`],
    ]);
    // The structured result carries the block as its stderr (Claude Code's shape).
    const denied = msgs.find((m) => m.type === 'user' && Array.isArray(m.message.content) && m.message.content.some((b) => b.type === 'tool_result' && b.tool_use_id === 'denied'));
    expect(denied?.type === 'user' ? denied.tool_use_result : undefined).toMatchObject({ stdout: '403 rc=0', stderr: violations, interrupted: false });
    expect(existsSync(join(outside, 'escaped'))).toBe(false);
    expect(existsSync(join(run.cwd, 'inside.txt'))).toBe(true);
    expect(hits).toBe(1);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'checked' });
  });

  it('with sandbox.enabled and no host allowed, Bash reaches nothing (it runs without the proxy relays) and still cannot write outside', async () => {
    const outside = tempDir('agentd-outside-');
    hits = 0;
    const run = bashTurn([
      bash('out', `touch ${outside}/escaped; echo rc=$?`),
      // Through the proxy the environment names: nothing listens on the sandbox's own loopback.
      bash('proxied', `curl --noproxy '' -sS -m 5 http://localhost:${port}/ 2>/dev/null; echo "rc=$?"`),
      bash('direct', `curl --noproxy '*' -sS -m 5 http://127.0.0.1:${port}/ 2>/dev/null; echo "rc=$?"`),
      bash('outside', `(echo > /dev/tcp/192.0.2.1/80) 2>/dev/null; echo "rc=$?"`),
      bash('in', 'touch inside.txt && echo written'),
      // The shell inside is the unconfined one's: stderr merged in order, exit codes, bash's own
      // messages (from `eval`, as in Claude Code), and the working directory kept for the next command.
      // (A failed Bash call cancels the calls queued behind it: the failing one is last.)
      bash('merged', 'echo one; echo two >&2; echo three'),
      bash('cd', 'mkdir -p sub && cd sub && echo moved'),
      bash('pwd', 'pwd'),
      bash('syntax', 'echo "open'),
    ]);
    const msgs = await collect(query({ prompt: 'go', options: run.options({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true }, permissionMode: 'default' }) }));
    expect(toolResults(msgs)).toEqual([
      ['out', false, `touch: cannot touch '${outside}/escaped': Read-only file system\nrc=1`],
      ['proxied', false, 'rc=7'],
      ['direct', false, 'rc=7'],
      ['outside', false, 'rc=1'],
      ['in', false, 'written'],
      ['merged', false, 'one\ntwo\nthree'],
      ['cd', false, 'moved'],
      ['pwd', false, join(run.cwd, 'sub')],
      // The runtime starts that shell by the path `which bash` gives (so does Claude Code's sandboxed Bash).
      ['syntax', true, `Exit code 2\n${execFileSync('which', ['bash'], { encoding: 'utf8' }).trim()}: eval: line 1: unexpected EOF while looking for matching \`"'`],
    ]);
    expect(hits).toBe(0);
    expect(existsSync(join(outside, 'escaped'))).toBe(false);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'checked' });
  });

  it('needs only bubblewrap and socat: with no rg on PATH, Bash runs confined (the scan runs the ripgrep agentd ships)', async () => {
    const bin = pathWithoutRg();
    // The machine this describes: bwrap and socat there, no rg anywhere on the PATH.
    expect({ bwrap: findOnPath('bwrap', bin) !== undefined, socat: findOnPath('socat', bin) !== undefined, rg: findOnPath('rg', bin) }).toEqual({ bwrap: true, socat: true, rg: undefined });
    const outside = tempDir('agentd-outside-');
    hits = 0;
    const run = bashTurn(
      [
        bash('out', `touch ${outside}/escaped; echo rc=$?`),
        bash('in', 'touch inside.txt && echo written'),
        bash('net', `curl --noproxy '*' -sS -m 5 http://127.0.0.1:${port}/ 2>/dev/null; echo "rc=$?"`),
        bash('rg', 'command -v rg; echo "rc=$?"'),
      ],
      { PATH: bin },
    );
    const msgs = await collect(query({ prompt: 'go', options: run.options({ sandbox: { enabled: true, autoAllowBashIfSandboxed: true }, permissionMode: 'default' }) }));
    expect(toolResults(msgs)).toEqual([
      ['out', false, `touch: cannot touch '${outside}/escaped': Read-only file system\nrc=1`],
      ['in', false, 'written'],
      ['net', false, 'rc=7'],
      ['rg', false, 'rc=1'],
    ]);
    expect(hits).toBe(0);
    expect(existsSync(join(outside, 'escaped'))).toBe(false);
    expect(existsSync(join(run.cwd, 'inside.txt'))).toBe(true);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'checked' });
  });

  it('with sandbox.enabled on a machine without bubblewrap, start-up fails with a clear message and nothing runs', async () => {
    // PATH holds node only: no bwrap, socat or rg (nor `which` to find them).
    const bin = tempDir('agentd-nobin-');
    mkdirSync(bin, { recursive: true });
    symlinkSync(process.execPath, join(bin, 'node'));
    const run = scriptedRun({ rules: [{ when: {}, reply: { content: [bash('never', 'touch ran.txt')] } }] }, { env: { PATH: bin } });
    let text = '';
    try {
      for (const m of await collect(query({ prompt: 'go', options: run.options({ sandbox: { enabled: true } }) }))) {
        if (m.type === 'result' && m.subtype !== 'success') text += m.errors.join('\n');
      }
    } catch (e) {
      // The SDK may also throw once the process exits non-zero; the message then carries the result's errors.
      text += e instanceof Error ? e.message : String(e);
    }
    expect(text).toContain('The sandbox is enabled (sandbox.enabled) and required, but it cannot start: ');
    expect(text).toContain('bubblewrap (bwrap) not installed');
    expect(run.requests()).toEqual([]);
    expect(existsSync(join(run.cwd, 'ran.txt'))).toBe(false);
  });
});
