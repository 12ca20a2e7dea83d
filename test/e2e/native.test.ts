// agentd with no `node` on PATH, driven by the official TypeScript SDK (its own spawn, PATH empty in the
// child's environment): the native executable built by scripts/build-native.mjs (built here, 2-6 s, so every
// `npm test` proves the build), bin/agentd with AGENTD_NODE, and bin/agentd under its parent's node. One turn
// each: Bash calls that run commands by name, a Read, a Grep that runs the ripgrep agentd ships (no rg on the
// empty PATH; the native executable carries it), then the result. Plus bin/agentd's one-line errors.
import { type SDKMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { DEFAULT_CHILD_PATH } from '../../src/tools/environment.js';
import { AGENTD, ROOT } from '../support/daemon.js';
import { toolResults } from '../support/sdk-run.js';

const SCENARIO: Scenario = {
  rules: [
    {
      when: { hasToolResults: false },
      reply: {
        content: [
          { type: 'text', text: 'Looking.' },
          // Commands by name: tools get a default PATH (agentd's own is empty). `ls` is allowed as read-only, which
          // takes the shell parser (tree-sitter's WASM); the echo of a variable by the allow rule.
          { type: 'tool_use', id: 'toolu_ls', name: 'Bash', input: { command: 'ls' } },
          { type: 'tool_use', id: 'toolu_path', name: 'Bash', input: { command: 'echo "tools: PATH=$PATH"' } },
          { type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: '{{cwd}}/notes.md' } },
          { type: 'tool_use', id: 'toolu_grep', name: 'Grep', input: { pattern: 'be.a', output_mode: 'count' } },
        ],
      },
    },
    { reply: { content: [{ type: 'text', text: 'Both ran.' }] } },
  ],
};

let top: string;
beforeAll(() => {
  top = mkdtempSync(join(tmpdir(), 'agentd-native-test-'));
});
afterAll(() => {
  rmSync(top, { recursive: true, force: true });
});

function workspace(name: string): { cwd: string; env: Record<string, string> } {
  const dir = join(top, name);
  const cwd = join(dir, 'ws');
  const home = join(dir, 'home');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  mkdirSync(join(dir, 'tmp'));
  writeFileSync(join(cwd, 'notes.md'), 'alpha\nbeta\n');
  const scenario = join(dir, 'scenario.json');
  writeFileSync(scenario, JSON.stringify(SCENARIO));
  return {
    cwd,
    // TMPDIR inside the test's directory: whatever agentd leaves there goes with it.
    env: { PATH: '', HOME: home, TMPDIR: join(dir, 'tmp'), CLAUDE_CONFIG_DIR: join(home, '.claude'), XDG_CACHE_HOME: join(dir, 'cache'), AGENTD_SCENARIO: scenario, AGENTD_LOG_LEVEL: 'warn' },
  };
}

async function turn(executable: string, ws: { cwd: string; env: Record<string, string> }): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  let stderr = '';
  const q = query({
    prompt: 'Look at the workspace.',
    options: { pathToClaudeCodeExecutable: executable, cwd: ws.cwd, env: ws.env, allowedTools: ['Bash(echo:*)'], stderr: (s) => (stderr += s) },
  });
  try {
    for await (const m of q) out.push(m);
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}; agentd's stderr: ${stderr}`);
  }
  return out;
}

function expectTurn(msgs: SDKMessage[]): void {
  // tool_progress frames come while a command runs longer than a moment: how many depends on the machine's load.
  const kinds = msgs.filter((m) => m.type !== 'tool_progress').map((m) => `${m.type}${'subtype' in m ? `/${m.subtype}` : ''}`);
  expect(kinds).toEqual([
    'system/init',
    'assistant',
    'assistant',
    'assistant',
    'assistant',
    'assistant',
    'user',
    'user',
    'user',
    'user',
    'assistant',
    'result/success',
  ]);
  const cwd = (msgs[0] as { cwd: string }).cwd;
  // Read and Grep may finish in either order (both run concurrently): compared by id.
  expect(toolResults(msgs).sort((a, b) => a[0].localeCompare(b[0]))).toEqual([
    ['toolu_grep', false, `${join(cwd, 'notes.md')}:1\n\nFound 1 total occurrence across 1 file.`],
    ['toolu_ls', false, 'notes.md'],
    ['toolu_path', false, `tools: PATH=${DEFAULT_CHILD_PATH}`],
    ['toolu_read', false, '1\talpha\n2\tbeta\n3\t'],
  ]);
  // ripgrep answered (the JS engine would say 'js'): the one agentd ships, as nothing on PATH is named rg.
  const grep = msgs.find((m) => m.type === 'user' && m.parent_tool_use_id === null && Array.isArray(m.message.content) && m.message.content.some((b) => b.type === 'tool_result' && b.tool_use_id === 'toolu_grep'));
  expect(grep?.type === 'user' ? grep.tool_use_result : undefined).toMatchObject({ mode: 'count', engine: 'ripgrep' });
  expect(msgs.at(-1)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: 'Both ran.', num_turns: 2 });
}

describe('the native executable', () => {
  let exe: string;
  beforeAll(() => {
    exe = join(top, 'agentd');
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build-native.mjs'), '--out', exe, '--quiet'], { encoding: 'utf8', timeout: 170_000 });
    if (r.status !== 0) throw new Error(`build-native failed (exit ${String(r.status)} ${r.error?.message ?? ''}): ${r.stderr}`);
  }, 180_000);

  it('is one executable file that runs a turn through the SDK with PATH empty (Bash, Read, result)', async () => {
    expect(statSync(exe).mode & 0o111).not.toBe(0);
    const ws = workspace('native');
    expectTurn(await turn(exe, ws));
    // Its files were extracted once, into one directory per build under XDG_CACHE_HOME, and nothing half-done
    // was left beside it; a second start uses that directory as it is.
    const cacheRoot = join(ws.env['XDG_CACHE_HOME'] as string, 'agentd');
    const builds = readdirSync(cacheRoot);
    expect(builds).toEqual([expect.stringMatching(/^0\.1\.0-[0-9a-f]{16}$/)]);
    const dir = join(cacheRoot, builds[0] as string);
    // (Code caches: those dist/ had when it was built; agentd-sdk.js's once any test made a model call over HTTP.)
    const files = readdirSync(dir);
    expect(files.filter((f) => !f.endsWith('.js.cache')).sort()).toEqual(['.agentd-native', 'agentd-cli.js', 'agentd-log.js', 'agentd-mcp.js', 'agentd-sdk.js', 'agentd-tools.js', 'agentd.js', 'node_modules', 'package.json']);
    expect(files).toEqual(expect.arrayContaining(['agentd.js.cache', 'agentd-tools.js.cache']));
    expect(readdirSync(join(dir, 'node_modules')).sort()).toEqual(['@vscode', 'ajv', 'picomatch', 'tree-sitter-bash', 'turndown', 'web-tree-sitter']);
    // ripgrep, extracted executable.
    const rg = join(dir, 'node_modules', '@vscode', `ripgrep-linux-${process.arch}`, 'bin', 'rg');
    expect(statSync(rg).mode & 0o777).toBe(0o755);
    expect(spawnSync(rg, ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0]).toBe('ripgrep 15.0.0 (rev 3a612f88b8)');
    // WebFetch's converter (turndown with its DOM) is one self-contained file there.
    const md = spawnSync(process.execPath, ['-e', 'process.stdout.write(new (require(process.argv[1]))().turndown("<h1>x</h1><p>a <b>b</b></p>"))', join(dir, 'node_modules/turndown')], { encoding: 'utf8', cwd: top });
    expect(md.stdout).toBe('x\n=\n\na **b**');
    const before = statSync(join(dir, 'agentd.js')).mtimeMs;
    expectTurn(await turn(exe, ws));
    expect(readdirSync(cacheRoot)).toEqual(builds);
    expect(statSync(join(dir, 'agentd.js')).mtimeMs).toBe(before);
    // A file removed behind its back (a cleaner of old files) is noticed at the next start: extracted again.
    rmSync(join(dir, 'agentd-tools.js'));
    expectTurn(await turn(exe, ws));
    expect(readdirSync(cacheRoot)).toEqual(builds);
    expect(statSync(join(dir, 'agentd-tools.js')).size).toBeGreaterThan(100_000);
  }, 60_000);

  it('does not carry the command sandbox: settings that enable it fail start-up (closed), with the reason', () => {
    const home = join(top, 'sandbox-home');
    mkdirSync(home, { recursive: true });
    const r = spawnSync(exe, ['-p', 'hi', '--output-format', 'json', '--settings', '{"sandbox":{"enabled":true}}'], { encoding: 'utf8', env: { HOME: home, PATH: process.env['PATH'] ?? '' }, cwd: home });
    expect(r.status).toBe(2);
    const result = JSON.parse(r.stdout.trim()) as { startup_failure_reason: string; errors: string[] };
    expect(result.startup_failure_reason).toBe('sandbox_required_unavailable');
    expect(result.errors[0]).toMatch(/^The sandbox is enabled \(sandbox\.enabled\) and required, but it cannot start: .*sandbox-runtime/);
  });

  it('answers --version with no environment at all (cache in $HOME/.cache)', () => {
    const home = join(top, 'bare-home');
    mkdirSync(home);
    const r = spawnSync(exe, ['--version'], { encoding: 'utf8', env: { HOME: home } });
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 0, stdout: expect.stringMatching(/^\S+ \(Claude Code compatible; agentd 0\.1\.0\)\n$/), stderr: '' });
    expect(readdirSync(join(home, '.cache', 'agentd'))).toHaveLength(1);
  });

  it('extracts atomically: first starts racing each other all run, and leave one directory', async () => {
    const cache = join(top, 'race-cache');
    const runs = Array.from({ length: 4 }, () =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const c = spawn(exe, ['--version'], { env: { PATH: '', HOME: top, XDG_CACHE_HOME: cache }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        c.stdout.on('data', (d: Buffer) => (out += d.toString()));
        c.stderr.on('data', (d: Buffer) => (out += d.toString()));
        c.on('exit', (code) => resolve({ code, out }));
      }),
    );
    const results = await Promise.all(runs);
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    expect(results.every((r) => r.out.includes('agentd 0.1.0'))).toBe(true);
    expect(readdirSync(join(cache, 'agentd'))).toEqual([expect.stringMatching(/^0\.1\.0-[0-9a-f]{16}$/)]);
  }, 60_000);
});

describe('bin/agentd without node on PATH', () => {
  it('runs under the node AGENTD_NODE names, driven by the SDK with PATH empty', async () => {
    const ws = workspace('agentd-node');
    // A wrapper that notes it was used: the parent (this test's node) would do as well, so prove AGENTD_NODE won.
    const wrapper = join(top, 'agentd-node-wrapper');
    writeFileSync(wrapper, `#!/bin/sh\necho used > "${join(top, 'agentd-node-used')}"\nexec "${process.execPath}" "$@"\n`, { mode: 0o755 });
    expectTurn(await turn(AGENTD, { ...ws, env: { ...ws.env, AGENTD_NODE: wrapper } }));
    expect(readFileSync(join(top, 'agentd-node-used'), 'utf8')).toBe('used\n');
  }, 60_000);

  it("runs under its parent's node when the host sets nothing (the SDK's process is node)", async () => {
    const ws = workspace('parent-node');
    expectTurn(await turn(AGENTD, ws));
  }, 60_000);

  it('says in one line what to set, and exits 127, when it cannot find node', () => {
    // Started by a shell (not by node), with no node on PATH and no AGENTD_NODE.
    const none = spawnSync('/bin/sh', ['-c', `"${AGENTD}" --version; exit $?`], { encoding: 'utf8', env: { PATH: '' } });
    expect({ status: none.status, stdout: none.stdout, stderr: none.stderr }).toEqual({
      status: 127,
      stdout: '',
      stderr:
        `agentd: Node.js not found: AGENTD_NODE is not set, there is no "node" on PATH and the parent process is not node; set AGENTD_NODE to a node binary (e.g. the host's process.execPath) or use the native executable (npm run build:native)\n`,
    });
    const bad = spawnSync(AGENTD, ['--version'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', AGENTD_NODE: join(top, 'no-such-node') } });
    expect({ status: bad.status, stdout: bad.stdout, stderr: bad.stderr }).toEqual({
      status: 127,
      stdout: '',
      stderr: `agentd: AGENTD_NODE=${join(top, 'no-such-node')} is not an executable file; point it at a node binary (e.g. the host's process.execPath)\n`,
    });
  });
});
