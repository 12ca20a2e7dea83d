// Secrets out of reach (issue 9 item 5). bin/agentd, started by the official SDK as hosts start it, moves its
// credentials out of the environment (a pipe on descriptor 3, read by node at start): a Bash tool in bypass mode
// cannot print them through /proc/$PPID/environ, the environ of any ancestor or any process it can read, `ps eww`
// or `env` — while the model calls still carry the key. And the last line of defence: a known secret value a tool
// does get hold of (here: a file holding it) is redacted from the tool result the model sees, the transcript and
// every stdout frame.
import { type SDKMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/util/secrets.js';
import { AGENTD, baseEnv, tappedSpawner, tempDir } from '../support/daemon.js';
import type { FrameTap } from '../support/frames.js';
import { type LoopbackServer, startLoopbackServer } from '../support/loopback-server.js';
import { toolResults } from '../support/sdk-run.js';

const KEY = 'sk-ant-api03-SECRETKEY-0123456789abcdef';
const TOKEN = 'oauth-TOKEN-fedcba9876543210';
const EXTRA = 'extra-SECRET-value-42424242';

/** Every ordinary way a command can look for the daemon's environment. */
const SNOOP = [
  'echo "== env"; env',
  'echo "== parent"; tr "\\0" "\\n" < /proc/$PPID/environ',
  // Every ancestor, up to init.
  'p=$$; while [ "$p" -gt 1 ]; do echo "== ancestor $p"; tr "\\0" "\\n" < /proc/$p/environ 2>/dev/null; p=$(awk \'/^PPid:/{print $2}\' /proc/$p/status); done',
  'echo "== all"; for f in /proc/[0-9]*/environ; do tr "\\0" "\\n" < $f 2>/dev/null; done',
  'echo "== ps"; ps eww -A 2>&1',
  'echo "== cmdlines"; for f in /proc/[0-9]*/cmdline; do tr "\\0" " " < $f 2>/dev/null; echo; done',
].join('; ');
/** The snoop's whole output goes to a file the test reads: the tool result the model sees is capped (and on a busy
 * CI machine the environ dumps of every process run past the cap), so markers and secrets are checked in full. */
const SNOOP_TO_FILE = `{ ${SNOOP}; } > snoop.log 2>&1; echo "== tail"; tail -c 2000 snoop.log`;

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function run(command: string, cwd: string, taps: FrameTap[], home: string, executable = AGENTD): Promise<SDKMessage[]> {
  server = await startLoopbackServer({
    rules: [
      { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_snoop', name: 'Bash', input: { command, description: 'look around' } }] } },
      { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
  });
  const env = baseEnv({ HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), ANTHROPIC_API_KEY: KEY, CLAUDE_CODE_OAUTH_TOKEN: TOKEN, MY_DEPLOY_TOKEN: EXTRA, AGENTD_SECRET_ENV: 'MY_DEPLOY_TOKEN', ANTHROPIC_BASE_URL: server.url });
  const out: SDKMessage[] = [];
  const q = query({
    prompt: 'look around',
    options: { pathToClaudeCodeExecutable: executable, cwd, env, permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true, spawnClaudeCodeProcess: tappedSpawner(taps) },
  });
  for await (const m of q) out.push(m);
  return out;
}

describe('a Bash tool in bypass mode cannot read agentd’s credentials', () => {
  it('not through /proc/*/environ, ps eww, env or command lines; the model calls still carry the key', async () => {
    const cwd = tempDir('agentd-snoop-');
    const home = tempDir('agentd-home-');
    const taps: FrameTap[] = [];
    const msgs = await run(SNOOP_TO_FILE, cwd, taps, home);
    const results = toolResults(msgs);
    expect(results.map(([id, isError]) => [id, isError])).toEqual([['toolu_snoop', false]]);
    const shown = results[0]?.[2] ?? '';
    expect(shown).toContain('== tail');
    const output = readFileSync(join(cwd, 'snoop.log'), 'utf8');
    // The snoop really ran and saw the daemon's (other) variables and its ancestors.
    expect(output).toContain('== parent');
    expect(output).toContain('ANTHROPIC_BASE_URL=');
    expect(output).toMatch(/== ancestor \d+[\s\S]*== ancestor \d+/);
    expect(output).toContain('== ps');
    for (const secret of [KEY, TOKEN, EXTRA]) {
      expect(output).not.toContain(secret);
      expect(shown).not.toContain(secret);
      expect(output).not.toContain('[REDACTED]'); // unreachable, not merely scrubbed
    }
    const req = server?.requests ?? [];
    expect(req).toHaveLength(2);
    expect(String(req[0]?.headers['authorization'] ?? req[0]?.headers['x-api-key'])).toContain(KEY);
    expect(JSON.stringify(req[1]?.body)).not.toContain(KEY);
  }, 60_000);

  it('started without the shell lines (`node bin/agentd`, as the native executable starts): the environment block is scrubbed', async () => {
    const cwd = tempDir('agentd-snoop-');
    const home = tempDir('agentd-home-');
    // node runs bin/agentd as JavaScript: the credentials reach node's environment block, and the launcher's
    // scrubEnvironBlock must overwrite them there (through /proc/self/mem) before any tool starts.
    const wrapper = join(tempDir('agentd-wrap-'), 'agentd-via-node');
    writeFileSync(wrapper, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(AGENTD)} "$@"\n`, { mode: 0o755 });
    const taps: FrameTap[] = [];
    const msgs = await run(SNOOP_TO_FILE, cwd, taps, home, wrapper);
    const shown = toolResults(msgs)[0]?.[2] ?? '';
    expect(shown).toContain('== tail');
    const output = readFileSync(join(cwd, 'snoop.log'), 'utf8');
    expect(output).toContain('== parent');
    // The scrubbed variables are still there, as asterisks: proof the block was written, not the variables dropped.
    expect(output).toMatch(/ANTHROPIC_API_KEY=\*{8,}/);
    for (const secret of [KEY, TOKEN, EXTRA]) {
      expect(output).not.toContain(secret);
      expect(shown).not.toContain(secret);
    }
    const req = server?.requests ?? [];
    expect(req).toHaveLength(2);
    expect(String(req[0]?.headers['x-api-key'])).toBe(KEY);
  }, 60_000);

  it('a secret value a tool does reach is redacted from the model request, the transcript and stdout', async () => {
    const cwd = tempDir('agentd-leak-');
    const home = tempDir('agentd-home-');
    writeFileSync(join(cwd, 'leaked.txt'), `key=${KEY}\ntoken=${TOKEN}\nextra=${EXTRA}\n`);
    const taps: FrameTap[] = [];
    const msgs = await run('cat leaked.txt', cwd, taps, home);
    const output = toolResults(msgs)[0]?.[2] ?? '';
    expect(output).toBe('key=[REDACTED]\ntoken=[REDACTED]\nextra=[REDACTED]');
    // What the model was sent.
    const body = JSON.stringify(server?.requests[1]?.body);
    expect(body).toContain('key=[REDACTED]');
    for (const secret of [KEY, TOKEN, EXTRA]) expect(body).not.toContain(secret);
    // Every frame on stdout, and the transcript.
    const stdout = taps.flatMap((t) => t.frames).map((f) => JSON.stringify(f)).join('\n');
    expect(stdout).toContain('key=[REDACTED]');
    const projects = join(home, '.claude', 'projects');
    const transcript = readdirSync(projects).flatMap((d) => readdirSync(join(projects, d)).filter((f) => f.endsWith('.jsonl')).map((f) => readFileSync(join(projects, d, f), 'utf8'))).join('\n');
    expect(transcript).toContain('key=[REDACTED]');
    for (const secret of [KEY, TOKEN, EXTRA]) {
      expect(stdout).not.toContain(secret);
      expect(transcript).not.toContain(secret);
    }
  }, 60_000);
});

describe('createRedactor', () => {
  it('replaces each secret, raw and JSON-escaped; is the identity without secrets', () => {
    const r = createRedactor(['short', 'a-long-secret-1', 'quote"d\\secret']);
    expect(r('x a-long-secret-1 y a-long-secret-1 short')).toBe('x [REDACTED] y [REDACTED] short');
    expect(r(JSON.stringify({ v: 'quote"d\\secret' }))).toBe('{"v":"[REDACTED]"}');
    const none = createRedactor(['short']);
    const s = 'nothing to hide';
    expect(none(s)).toBe(s);
  });
});

describe('the launcher moves every credential the daemon knows', () => {
  it('bin/agentd names exactly SECRET_ENV_NAMES, on the pipe and in the unset line', async () => {
    const { SECRET_ENV_NAMES } = await import('../../src/tools/environment.js');
    const text = readFileSync(AGENTD, 'utf8');
    const piped = [...text.matchAll(/^\/\/\$\{([A-Z_]+)\+\1=\}\$\{\1-\}$/gm)].map((m) => m[1]);
    expect(piped).toEqual([...SECRET_ENV_NAMES]);
    const unset = /^":" \/\/; unset ([A-Z_ ]+);/m.exec(text)?.[1]?.split(' ');
    expect(unset).toEqual([...SECRET_ENV_NAMES]);
  });

  it('odd AGENTD_SECRET_ENV lists (bad names, empty items, PATH, globs) do not stop the launcher', () => {
    const r = spawnSync(AGENTD, ['--version'], { env: baseEnv({ AGENTD_SECRET_ENV: 'FOO-BAR,, MY_TOKEN ,1X,PATH,*', MY_TOKEN: 'abcdefghijkl', ANTHROPIC_API_KEY: KEY }), encoding: 'utf8', cwd: tempDir() });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout).toContain('agentd');
  });
});
