// Start-up stays lean (issue 15's bench criterion, issue 12's initialize target): the Node built-ins that only a
// tool, a hook, a helper or a model call needs are not loaded by the time `initialize` is answered. Each costs
// milliseconds of CPU at every start (node:crypto and node:child_process ~3 ms each, node:fs/promises with its
// readline modules ~1.5 ms), and an import at the top of a start-up module is enough to load one: that is how
// start-up regressed by ~20 ms before this test existed. A structural check, not a timing: it cannot be flaky.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENTD, baseEnv, tempDir } from '../support/daemon.js';

/** Built-ins agentd needs only after start-up (a tool, a hook, an apiKeyHelper, a model call, an agent id). */
const NOT_AT_STARTUP = ['child_process', 'crypto', 'dgram', 'fs/promises', 'http', 'http2', 'https', 'readline', 'tls', 'zlib'];

/** Runs the daemon with a preload that writes process.moduleLoadList when the initialize response is written. */
async function modulesAtInitialize(cwd: string, env: Record<string, string>): Promise<{ loaded: string[]; stderr: string }> {
  const dir = tempDir('agentd-modules-');
  const out = join(dir, 'modules.txt');
  const hook = join(dir, 'hook.cjs');
  writeFileSync(
    hook,
    // stdout is a pipe here, which agentd writes through its own net.Socket on fd 1: Duplex.prototype.write sees it.
    `const fs = require('fs'); const { Duplex } = require('stream'); const write = Duplex.prototype.write; let done = false;
Duplex.prototype.write = function (chunk, ...rest) {
  if (!done && String(chunk).includes('"control_response"')) { done = true; fs.writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')); }
  return write.call(this, chunk, ...rest);
};\n`,
  );
  const child = spawn(AGENTD, ['--output-format', 'stream-json', '--verbose', '--input-format', 'stream-json'], {
    cwd,
    env: { ...env, NODE_OPTIONS: `--require ${hook}` },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  child.stdin.end(`${JSON.stringify({ type: 'control_request', request_id: 'init', request: { subtype: 'initialize' } })}\n`);
  const code = await exited;
  // One object, so a failure shows everything at once (exit, stderr, whether initialize was answered).
  expect({ code, answered: stdout.includes('"request_id":"init"'), stderr: code === 0 ? '' : stderr }).toEqual({ code: 0, answered: true, stderr: '' });
  const loaded = readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('NativeModule ') && !l.startsWith('NativeModule internal/'))
    .map((l) => l.slice('NativeModule '.length));
  return { loaded, stderr };
}

describe('start-up loads only the built-ins initialize needs', () => {
  it('in an empty project, with an API key', async () => {
    const cwd = tempDir('agentd-empty-');
    const { loaded, stderr } = await modulesAtInitialize(cwd, baseEnv({ ANTHROPIC_API_KEY: 'sk-test' }));
    // The hook really saw the list (fs); nothing was logged, so pino (dist/agentd-log.js, which needs
    // node:worker_threads) was not loaded either.
    expect({ sawFs: loaded.includes('fs'), forbidden: loaded.filter((m) => NOT_AT_STARTUP.includes(m) || m === 'worker_threads'), stderr }).toEqual({ sawFs: true, forbidden: [], stderr: '' });
  }, 30_000);

  it('in a project with CLAUDE.md, commands, skills, agents and settings (the loaders run before initialize is answered)', async () => {
    const cwd = tempDir('agentd-project-');
    const files: Record<string, string> = {
      'CLAUDE.md': '# Project\nUse tabs. @docs/notes.md\n',
      'docs/notes.md': 'notes\n',
      '.claude/commands/review.md': '---\ndescription: Review\n---\nReview $ARGUMENTS\n',
      '.claude/skills/fmt/SKILL.md': '---\nname: fmt\ndescription: Format code\n---\nRun the formatter.\n',
      '.claude/agents/reader.md': '---\nname: reader\ndescription: Reads\ntools: Read\n---\nYou read.\n',
      '.claude/settings.json': JSON.stringify({ permissions: { allow: ['Read'] } }),
      '.git/HEAD': 'ref: refs/heads/main\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(dirname(join(cwd, rel)), { recursive: true });
      writeFileSync(join(cwd, rel), text);
    }
    const { loaded, stderr } = await modulesAtInitialize(cwd, baseEnv({ ANTHROPIC_API_KEY: 'sk-test' }));
    // The untrusted project's allow rule is reported (a log line: the log bundle is loaded for it).
    expect({ sawFs: loaded.includes('fs'), forbidden: loaded.filter((m) => NOT_AT_STARTUP.includes(m)), warned: stderr.includes('settings not honoured') }).toEqual({ sawFs: true, forbidden: [], warned: true });
  }, 30_000);
});
