// The command sandbox reuses a wrap only while nothing it was made from changed (src/tools/sandbox/wrap-cache.ts).
// The first part drives the cache through a stand-in runtime that records its wraps; the second through the real
// @anthropic-ai/sandbox-runtime (bubblewrap, socat and rg, as test/e2e/sdk-sandbox.test.ts needs): a protected
// file that appears between two commands is protected in the second, and no mount point is left behind.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandSandbox, createCommandSandbox } from '../../../src/tools/sandbox/runtime.js';
import { resolveSandboxSettings } from '../../../src/tools/sandbox/settings.js';
import { parseQuotedWords } from '../../../src/tools/sandbox/wrap-cache.js';
import { tempDir } from '../../support/daemon.js';

type Runtime = typeof import('@anthropic-ai/sandbox-runtime');

/** The runtime's quote() (dist/utils/shell-quote.js), which parseQuotedWords undoes. */
function quote(args: readonly string[]): string {
  return args.map((a) => (a === '' ? "''" : /^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@+,-]*$/.test(a) ? a : `'${a.replace(/'/g, `'"'"'`)}'`)).join(' ');
}

const settings = (block: Record<string, unknown> = {}) => {
  const r = resolveSandboxSettings({ enabled: true, ...block });
  if (!r.ok || !r.settings) throw new Error('settings');
  return r.settings;
};

describe('parseQuotedWords', () => {
  it('undoes the runtime’s quoting for any words', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ minLength: 0, maxLength: 12 }), { minLength: 1, maxLength: 6 }), (words) => {
        expect(parseQuotedWords(quote(words))).toEqual(words);
      }),
    );
  });
  it('refuses what that quoting never produces', () => {
    expect(parseQuotedWords('bwrap $(id)')).toBeUndefined();
    expect(parseQuotedWords("a 'open")).toBeUndefined();
    expect(parseQuotedWords('a  b')).toBeUndefined();
  });
});

describe('the names the runtime protects', () => {
  it('all begin with a dot or lie in a directory that does (what the fingerprint compares)', async () => {
    // The runtime's own lists (not exported by its index; read from its build for this check only).
    const internal: string = '@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js';
    const u = await import(internal);
    const names = [...(u.DANGEROUS_FILES as string[]), ...(u.getDangerousDirectories() as string[]), '.git/hooks', '.git/config', '.git/HEAD'];
    expect(names.length).toBeGreaterThan(10);
    expect(names.filter((n) => !n.startsWith('.'))).toEqual([]);
  });
});

describe('reuse, with a stand-in runtime', () => {
  let root = '';
  let files = '';
  const wraps: string[][] = [];
  let cleanups = 0;
  const fake = {
    SandboxManager: {
      isSupportedPlatform: () => true,
      checkDependenciesAsync: async () => ({ errors: [], warnings: [] }),
      initialize: async () => undefined,
      cleanupAfterCommand: () => void cleanups++,
      reset: async () => undefined,
      getLinuxHttpSocketPath: () => undefined,
      getLinuxSocksSocketPath: () => undefined,
      wrapWithSandboxArgv: async (script: string, _shell: string, custom: { filesystem: { allowWrite: string[] } }) => {
        const allow = custom.filesystem.allowWrite;
        wraps.push(allow);
        const binds = allow.flatMap((p) => ['--bind', p, p]);
        return { argv: ['bash', '-c', quote(['bwrap', '--ro-bind', '/', '/', ...binds, '--ro-bind', '/dev/null', join(root, '.bashrc'), '--', '/usr/bin/bash', '-c', script])] };
      },
    },
  };
  let sandbox: CommandSandbox;
  const wrap = async (file: string, readOnly = false) => {
    writeFileSync(file, '');
    return sandbox.wrap({ script: 'exec bash -c "$S"', cwd: root, writableDirs: [root], writableFiles: [file], readOnly });
  };

  beforeAll(async () => {
    root = tempDir('agentd-wrapcache-');
    files = tempDir('agentd-wrapcache-files-');
    mkdirSync(join(root, 'a/b/c/d'), { recursive: true });
    mkdirSync(join(root, 'node_modules/x'), { recursive: true });
    sandbox = createCommandSandbox({ settings: settings({ filesystem: { denyWrite: [join(root, 'secret')] } }), load: async () => fake as unknown as Runtime, workingDirectory: () => root });
    expect(await sandbox.start()).toEqual({ state: 'active' });
  });

  it('wraps once per script and set of writable places, then hands out bubblewrap’s own argv with the call’s file in place', async () => {
    wraps.length = 0;
    const one = await wrap(join(files, 'f1'));
    const two = await wrap(join(files, 'f2'));
    one.release();
    two.release();
    expect(wraps).toEqual([[root, join(files, 'f1')]]);
    const argv = (f: string) => ['bwrap', '--ro-bind', '/', '/', '--bind', root, root, '--bind', f, f, '--ro-bind', '/dev/null', join(root, '.bashrc'), '--', '/usr/bin/bash', '-c', 'exec bash -c "$S"'];
    expect(one.argv).toEqual(argv(join(files, 'f1')));
    expect(two.argv).toEqual(argv(join(files, 'f2')));
    // A read-only command is another template, and so is another script.
    (await wrap(join(files, 'f3'), true)).release();
    expect(wraps.length).toBe(2);
    writeFileSync(join(files, 'f4'), '');
    (await sandbox.wrap({ script: 'other', cwd: root, writableDirs: [root], writableFiles: [join(files, 'f4')], readOnly: false })).release();
    expect(wraps.length).toBe(3);
  });

  it('wraps afresh when a directory or a dot entry appears where the runtime walks; not for other files, nor deeper, nor in node_modules', async () => {
    (await wrap(join(files, 'g0'))).release();
    wraps.length = 0;
    writeFileSync(join(root, 'a/b/c/d/.deep'), '');
    writeFileSync(join(root, 'node_modules/x/.y'), '');
    writeFileSync(join(root, 'a/plain.txt'), '');
    (await wrap(join(files, 'g1'))).release();
    expect(wraps.length).toBe(0);
    mkdirSync(join(root, 'a/b/c/.git'));
    (await wrap(join(files, 'g2'))).release();
    expect(wraps.length).toBe(1);
    (await wrap(join(files, 'g3'))).release();
    expect(wraps.length).toBe(1);
    writeFileSync(join(root, 'a/.BashRC'), '');
    (await wrap(join(files, 'g4'))).release();
    expect(wraps.length).toBe(2);
    // Inside a dot directory every entry counts (.git/HEAD makes a repository whose hooks are protected).
    mkdirSync(join(root, 'a/.git'));
    (await wrap(join(files, 'g5'))).release();
    expect(wraps.length).toBe(3);
    writeFileSync(join(root, 'a/.git/HEAD'), '');
    (await wrap(join(files, 'g6'))).release();
    expect(wraps.length).toBe(4);
    mkdirSync(join(root, 'a/b/newdir'));
    (await wrap(join(files, 'g7'))).release();
    expect(wraps.length).toBe(5);
  });

  it('wraps afresh when a configured path appears', async () => {
    (await wrap(join(files, 'h0'))).release();
    wraps.length = 0;
    writeFileSync(join(root, 'secret'), 'x');
    (await wrap(join(files, 'h1'))).release();
    expect(wraps.length).toBe(1);
  });

  it('removes the mount points bubblewrap would leave only once no sandboxed command runs', async () => {
    (await wrap(join(files, 'k0'))).release();
    const a = await wrap(join(files, 'k1'));
    const b = await wrap(join(files, 'k2'));
    writeFileSync(join(root, '.bashrc'), ''); // what bubblewrap does on the host for the first run
    a.release();
    expect(existsSync(join(root, '.bashrc'))).toBe(true);
    b.release();
    expect(existsSync(join(root, '.bashrc'))).toBe(false);
  });

  it('never reuses a wrap whose configuration holds a pattern', async () => {
    const globbed = createCommandSandbox({ settings: settings({ filesystem: { denyRead: ['~/.ssh/*'] } }), load: async () => fake as unknown as Runtime, workingDirectory: () => root });
    await globbed.start();
    wraps.length = 0;
    for (const n of ['p1', 'p2']) {
      writeFileSync(join(files, n), '');
      (await globbed.wrap({ script: 's', cwd: root, writableDirs: [root], writableFiles: [join(files, n)], readOnly: false })).release();
    }
    expect(wraps.length).toBe(2);
  });
});

describe('reuse, with the real runtime', () => {
  let root = '';
  let spill = '';
  let calls = 0;
  let sandbox: CommandSandbox;
  const before = process.cwd();
  // As the Bash tool does: one script, the command in the environment.
  const run = async (command: string): Promise<{ code: number | null; out: string }> => {
    const f = join(spill, `cwd-${Math.random().toString(16).slice(2)}`);
    writeFileSync(f, '');
    const w = await sandbox.wrap({ script: 'exec bash -c "$AGENTD_TEST_COMMAND"', cwd: root, writableDirs: [root], writableFiles: [f], readOnly: false });
    const r = spawnSync(w.argv[0] as string, w.argv.slice(1), { cwd: root, encoding: 'utf8', env: { ...process.env, AGENTD_TEST_COMMAND: command } });
    w.release();
    return { code: r.status, out: `${r.stdout}${r.stderr}` };
  };

  beforeAll(async () => {
    root = tempDir('agentd-wrapcache-real-');
    spill = tempDir('agentd-wrapcache-spill-');
    execFileSync('git', ['init', '-q', root]);
    // The runtime scans its process's working directory (this test file runs in its own process).
    process.chdir(root);
    sandbox = createCommandSandbox({
      settings: settings(),
      workingDirectory: () => process.cwd(),
      load: async () => {
        const rt = await import('@anthropic-ai/sandbox-runtime');
        const m = rt.SandboxManager;
        return { ...rt, SandboxManager: { ...m, wrapWithSandboxArgv: (...a: Parameters<typeof m.wrapWithSandboxArgv>) => (calls++, m.wrapWithSandboxArgv(...a)) } };
      },
    });
    expect(await sandbox.start()).toEqual({ state: 'active' });
  });
  afterAll(async () => {
    await sandbox.stop();
    process.chdir(before);
  });

  it('protects a repository that appeared between two commands, confines writes, and leaves no mount point', async () => {
    const listing = () => readdirSync(root).sort();
    expect(await run('touch one.txt && echo ok')).toEqual({ code: 0, out: 'ok\n' });
    // Ordinary files written by a command keep the wrap.
    expect(await run('touch two.txt && echo ok')).toEqual({ code: 0, out: 'ok\n' });
    expect(calls).toBe(1);
    // Outside the writable places, through a reused wrap.
    const outside = tempDir('agentd-wrapcache-outside-');
    expect((await run(`touch ${outside}/x`)).code).not.toBe(0);
    expect(existsSync(join(outside, 'x'))).toBe(false);
    // A nested repository made by the host: its hooks are denied in the next command.
    execFileSync('git', ['init', '-q', join(root, 'sub')]);
    const hook = await run('echo evil > sub/.git/hooks/pre-commit; echo rc=$?');
    expect(hook).toEqual({ code: 0, out: 'rc=1\nbash: line 1: sub/.git/hooks/pre-commit: Read-only file system\n' });
    expect(existsSync(join(root, 'sub/.git/hooks/pre-commit'))).toBe(false);
    expect(calls).toBe(2);
    expect(await run('echo ok')).toEqual({ code: 0, out: 'ok\n' });
    expect(calls).toBe(2);
    // Only what the commands wrote: no empty files or directories bubblewrap made as mount points.
    expect(listing()).toEqual(['.git', 'one.txt', 'sub', 'two.txt']);
  });
});
