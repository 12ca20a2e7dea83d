// Grep is tested with both engines against the same expectations: ripgrep (the one agentd ships, found whatever
// PATH holds) and the JS fallback (forced with createGrepTool({ forceFallback: true })).
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GrepOutput as SdkGrepOutput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { gitignoreToGlobs } from '../../../src/tools/builtin/grep-js.js';
import { comparePaths, splitGlobs } from '../../../src/tools/builtin/grep-query.js';
import { type GrepOutput, createGrepTool } from '../../../src/tools/builtin/grep.js';
import { runRg } from '../../../src/tools/builtin/rg-run.js';
import { shippedRipgrep } from '../../../src/tools/ripgrep.js';
import { type Sandbox, ok, run, sandbox } from './support.js';

let sb: Sandbox;
let D: string;

function put(rel: string, content: string | Buffer, age: number): void {
  const p = join(D, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, content);
  const t = new Date(Date.UTC(2025, 0, 1) - age * 1000);
  utimesSync(p, t, t);
}

beforeAll(() => {
  sb = sandbox();
  D = sb.dir;
  put('a.txt', 'one\nfoo two\nthree\nfour\nfive\nsix foo\nseven\n', 30);
  put('sub/b.ts', 'const foo = 1;\n', 20);
  put('sub/c.js', 'FOO bar\n', 5);
  put('.hidden/h.txt', 'foo hidden\n', 10);
  put('.git/config', 'foo in git\n', 1);
  put('.gitignore', 'ignored/\n', 1);
  put('ignored/x.txt', 'foo ignored\n', 1);
  put('bin.dat', Buffer.from('foo\u0000bar'), 2);
});
afterAll(() => sb.cleanup());

const engines = [
  { engine: 'ripgrep' as const, tool: createGrepTool() },
  { engine: 'js' as const, tool: createGrepTool({ forceFallback: true }) },
];

it('runs the ripgrep agentd ships, with no rg on PATH (a fresh machine)', async () => {
  expect(await shippedRipgrep()).toMatch(/\/node_modules\/@vscode\/ripgrep-linux-[a-z0-9]+\/bin\/rg$/);
  const bare = sandbox({ PATH: '/nonexistent' });
  try {
    writeFileSync(join(bare.dir, 'a.txt'), 'foo two\n');
    const out = await ok<GrepOutput>(createGrepTool(), { pattern: 'foo t' }, bare);
    expect(out.data).toEqual({ mode: 'files_with_matches', numFiles: 1, filenames: [join(bare.dir, 'a.txt')], engine: 'ripgrep' });
  } finally {
    bare.cleanup();
  }
});

describe.each(engines)('Grep ($engine)', ({ engine, tool }) => {
  const p = (rel: string): string => join(D, rel);

  it('lists matching files newest first, skipping .git, gitignored and binary files (default mode)', async () => {
    const files = [p('.hidden/h.txt'), p('sub/b.ts'), p('a.txt')];
    expect(await ok<GrepOutput>(tool, { pattern: 'foo' }, sb)).toEqual({
      data: { mode: 'files_with_matches', numFiles: 3, filenames: files, engine },
      content: `Found 3 files\n${files.join('\n')}`,
    });
  });

  it('searches case-insensitively with -i', async () => {
    const out = await ok<GrepOutput>(tool, { pattern: 'foo', '-i': true }, sb);
    expect(out.data.filenames).toEqual([p('sub/c.js'), p('.hidden/h.txt'), p('sub/b.ts'), p('a.txt')]);
  });

  it('shows matching lines with line numbers; no file name for a single file', async () => {
    expect(await ok<GrepOutput>(tool, { pattern: 'foo', path: p('a.txt'), output_mode: 'content' }, sb)).toEqual({
      data: { mode: 'content', numFiles: 0, filenames: [], content: '2:foo two\n6:six foo', numLines: 2, engine },
      content: '2:foo two\n6:six foo',
    });
  });

  it('shows context like rg -C, with -- between groups, files in path order', async () => {
    const content = [
      `${p('.hidden/h.txt')}:1:foo hidden`,
      '--',
      `${p('a.txt')}-1-one`,
      `${p('a.txt')}:2:foo two`,
      `${p('a.txt')}-3-three`,
      '--',
      `${p('a.txt')}-5-five`,
      `${p('a.txt')}:6:six foo`,
      `${p('a.txt')}-7-seven`,
      '--',
      `${p('sub/b.ts')}:1:const foo = 1;`,
    ].join('\n');
    expect(await ok<GrepOutput>(tool, { pattern: 'foo', output_mode: 'content', '-C': 1 }, sb)).toEqual({
      data: { mode: 'content', numFiles: 0, filenames: [], content, numLines: 11, engine },
      content,
    });
  });

  it('merges overlapping context windows and honours -A/-B separately, without line numbers', async () => {
    const out = await ok<GrepOutput>(tool, { pattern: 'f', path: p('a.txt'), output_mode: 'content', '-A': 1, '-B': 0, '-n': false }, sb);
    // Lines 2, 4, 5, 6 match "f"; after-context 1 joins them into one group.
    expect(out.content).toBe('foo two\nthree\nfour\nfive\nsix foo\nseven');
  });

  it('counts matching lines per file', async () => {
    const content = `${p('.hidden/h.txt')}:1\n${p('a.txt')}:2\n${p('sub/b.ts')}:1`;
    expect(await ok<GrepOutput>(tool, { pattern: 'foo', output_mode: 'count' }, sb)).toEqual({
      data: { mode: 'count', numFiles: 3, filenames: [], content, numMatches: 4, engine },
      content: `${content}\n\nFound 4 total occurrences across 3 files.`,
    });
  });

  it('filters by glob (comma, brace and negated forms) and by type', async () => {
    const names = async (input: Record<string, unknown>): Promise<string[]> =>
      (await ok<GrepOutput>(tool, { pattern: 'foo', '-i': true, ...input }, sb)).data.filenames;
    expect(await names({ glob: '*.ts' })).toEqual([p('sub/b.ts')]);
    expect(await names({ glob: '*.{ts,js}' })).toEqual([p('sub/c.js'), p('sub/b.ts')]);
    expect(await names({ glob: '*.ts,*.js' })).toEqual([p('sub/c.js'), p('sub/b.ts')]);
    expect(await names({ glob: '!sub' })).toEqual([p('.hidden/h.txt'), p('a.txt')]);
    expect(await names({ glob: 'sub/*.js' })).toEqual([p('sub/c.js')]);
    expect(await names({ type: 'js' })).toEqual([p('sub/c.js')]);
  });

  it('paginates with head_limit and offset, and says so', async () => {
    const out = await ok<GrepOutput>(tool, { pattern: 'foo', output_mode: 'content', head_limit: 1, offset: 1 }, sb);
    expect(out).toEqual({
      data: { mode: 'content', numFiles: 0, filenames: [], content: `${p('a.txt')}:2:foo two`, numLines: 1, appliedLimit: 1, appliedOffset: 1, engine },
      content: `${p('a.txt')}:2:foo two\n\n[Showing results with pagination = limit: 1, offset: 1]`,
    });
    const files = await ok<GrepOutput>(tool, { pattern: 'foo', head_limit: 2 }, sb);
    expect(files.content).toBe(`Found 2 files [Showing results with pagination = limit: 2]\n${p('.hidden/h.txt')}\n${p('sub/b.ts')}`);
  });

  it('matches across lines in multiline mode', async () => {
    const out = await ok<GrepOutput>(tool, { pattern: 'two.three', multiline: true, output_mode: 'content', path: p('a.txt') }, sb);
    expect(out.content).toBe('2:foo two\n3:three');
  });

  it('prints only the matches with -o', async () => {
    const out = await ok<GrepOutput>(tool, { pattern: 'fo+', output_mode: 'content', '-o': true, path: p('a.txt') }, sb);
    expect(out.content).toBe('2:foo\n4:fo\n6:foo');
  });

  it('says when nothing matches', async () => {
    expect(await ok<GrepOutput>(tool, { pattern: 'zzz' }, sb)).toEqual({
      data: { mode: 'files_with_matches', numFiles: 0, filenames: [], engine },
      content: 'No files found',
    });
    expect((await ok<GrepOutput>(tool, { pattern: 'zzz', output_mode: 'content' }, sb)).content).toBe('No matches found');
  });

  it('fails clearly on a bad regex and an unknown type', async () => {
    expect(await run(tool, { pattern: 'foo(' }, sb)).toMatchObject({ kind: 'error', message: expect.stringContaining('regex parse error') });
    expect(await run(tool, { pattern: 'foo', type: 'nosuchtype' }, sb)).toMatchObject({
      kind: 'error',
      message: expect.stringContaining('unrecognized file type: nosuchtype'),
    });
  });

  it('rejects a path that does not exist', async () => {
    expect(await run(tool, { pattern: 'x', path: p('missing') }, sb)).toEqual({
      kind: 'rejected',
      message: `Path does not exist: ${p('missing')}. Note: your current working directory is ${D}.`,
    });
  });

  it('stops when aborted', async () => {
    const ac = new AbortController();
    ac.abort(new Error('interrupted'));
    expect(await run(tool, { pattern: 'foo' }, sb, { signal: ac.signal })).toMatchObject({ kind: 'error' });
  });
});

describe('Grep helpers', () => {
  it("splits glob parameters like Claude Code", () => {
    expect(splitGlobs('*.ts,*.tsx  *.{js,jsx} !dist')).toEqual(['*.ts', '*.tsx', '*.{js,jsx}', '!dist']);
  });

  it('orders paths like rg --sort=path', () => {
    // Entry names are compared level by level: "a" (the directory) sorts before "a-b" and "a.txt".
    expect(['a-b', 'a/x', 'a.txt', '.h/z'].sort(comparePaths)).toEqual(['.h/z', 'a/x', 'a-b', 'a.txt']);
  });

  it('translates .gitignore lines to ignore globs', () => {
    expect(gitignoreToGlobs('# c\nnode_modules/\n/dist\n*.log\n!keep.log\n')).toEqual([
      '**/node_modules/**',
      'dist',
      'dist/**',
      '**/*.log',
      '**/*.log/**',
    ]);
  });

  it('declares a safe read-only tool whose subject is the searched path', () => {
    const tool = createGrepTool();
    expect({
      safe: tool.isConcurrencySafe({ pattern: 'x' }),
      readOnly: tool.isReadOnly({ pattern: 'x' }),
      interrupt: tool.interruptBehavior,
      subject: tool.permissionSubject?.({ pattern: 'x', path: 'src' }, sb.shared),
    }).toEqual({ safe: true, readOnly: true, interrupt: 'cancel', subject: { kind: 'read', path: join(sb.dir, 'src') } });
    expectTypeOf<GrepOutput>().toExtend<SdkGrepOutput>();
  });
});

describe('rg runner (exercised with ordinary binaries)', () => {
  const opts = (over: Partial<Parameters<typeof runRg>[2]> = {}): Parameters<typeof runRg>[2] => ({
    cwd: D,
    env: sb.env,
    signal: new AbortController().signal,
    timeoutMs: 10_000,
    maxBytes: 1024 * 1024,
    ...over,
  });

  it('collects output and the exit code, and untracks the process group', async () => {
    expect(await runRg('printf', ['a\\nb\\n'], opts())).toEqual({ code: 0, stdout: 'a\nb\n', stderr: '', timedOut: false, capped: false });
    expect(sb.tracker.size).toBe(0);
  });

  it('stops at the byte cap and keeps the prefix', async () => {
    const r = await runRg('yes', [], opts({ maxBytes: 1000 }));
    expect({ capped: r.capped, length: r.stdout.length, code: r.code, tracked: sb.tracker.size }).toEqual({ capped: true, length: 1000, code: null, tracked: 0 });
  });

  it('stops at the time limit', async () => {
    const r = await runRg('sleep', ['10'], opts({ timeoutMs: 50 }));
    expect({ timedOut: r.timedOut, code: r.code }).toEqual({ timedOut: true, code: null });
  });

  it('is killed promptly when the call is aborted', async () => {
    const ac = new AbortController();
    const running = runRg('sleep', ['10'], opts({ signal: ac.signal }));
    ac.abort(new Error('interrupted'));
    await expect(running).rejects.toThrow('interrupted');
    expect(sb.tracker.size).toBe(0);
  });

  it('rejects when the binary cannot be started', async () => {
    await expect(runRg(join(D, 'no-such-rg'), [], opts())).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
