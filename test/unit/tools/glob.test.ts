import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { GlobOutput as SdkGlobOutput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { type GlobOutput, createGlobTool } from '../../../src/tools/builtin/glob.js';
import { type Sandbox, ok, run, sandbox } from './support.js';

let sb: Sandbox;
// A clock that advances 7 ms per reading: durationMs is deterministic.
let ticks = 0;
const glob = createGlobTool({ now: () => (ticks += 7) });
beforeEach(() => {
  sb = sandbox();
  ticks = 0;
});
afterEach(() => sb.cleanup());

/** Creates a file with an mtime `age` seconds in the past. */
function put(rel: string, age: number): string {
  const p = join(sb.dir, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, rel);
  const t = new Date(Date.UTC(2025, 0, 1) - age * 1000);
  utimesSync(p, t, t);
  return p;
}

describe('Glob', () => {
  it('returns matches newest first, as absolute paths', async () => {
    const old = put('src/old.ts', 300);
    const mid = put('src/deep/mid.ts', 200);
    const fresh = put('fresh.ts', 100);
    put('src/readme.md', 50);
    expect(await ok<GlobOutput>(glob, { pattern: '**/*.ts' }, sb)).toEqual({
      data: { durationMs: 7, numFiles: 3, filenames: [fresh, mid, old], truncated: false, totalMatches: 3, countIsComplete: true },
      content: [fresh, mid, old].join('\n'),
    });
  });

  it('searches under path (relative to the cwd) and includes dotfiles but not .git', async () => {
    const a = put('pkg/.env.ts', 10);
    put('pkg/.git/hooks/x.ts', 5);
    put('other/b.ts', 1);
    const out = await ok<GlobOutput>(glob, { pattern: '**/*.ts', path: 'pkg' }, sb);
    expect(out.data.filenames).toEqual([a]);
  });

  it('orders equal mtimes by path', async () => {
    const b = put('b.txt', 10);
    const a = put('a.txt', 10);
    expect((await ok<GlobOutput>(glob, { pattern: '*.txt' }, sb)).data.filenames).toEqual([a, b]);
  });

  it('says when nothing matches', async () => {
    expect(await ok<GlobOutput>(glob, { pattern: '*.nothing' }, sb)).toEqual({
      data: { durationMs: 7, numFiles: 0, filenames: [], truncated: false, totalMatches: 0, countIsComplete: true },
      content: 'No files found',
    });
  });

  it('caps at 100 results, keeping the newest, and says it truncated', async () => {
    const all = Array.from({ length: 105 }, (_, i) => put(`f${String(i).padStart(3, '0')}.log`, i));
    const out = await ok<GlobOutput>(glob, { pattern: '*.log' }, sb);
    expect({ ...out.data, filenames: out.data.filenames.length }).toEqual({
      durationMs: 7,
      numFiles: 100,
      filenames: 100,
      truncated: true,
      totalMatches: 105,
      countIsComplete: true,
    });
    expect(out.data.filenames).toEqual(all.slice(0, 100));
    expect((out.content as string).split('\n').at(-1)).toBe(
      '(Results are truncated: showing the 100 most recently modified of 105 files. Consider using a more specific path or pattern.)',
    );
  });

  it('rejects a missing or non-directory path', async () => {
    const f = put('file.txt', 1);
    expect(await run(glob, { pattern: '*', path: join(sb.dir, 'nope') }, sb)).toEqual({ kind: 'rejected', message: `Directory does not exist: ${join(sb.dir, 'nope')}` });
    expect(await run(glob, { pattern: '*', path: f }, sb)).toEqual({ kind: 'rejected', message: `Path is not a directory: ${f}` });
  });

  it('stops when aborted', async () => {
    put('a.txt', 1);
    const ac = new AbortController();
    ac.abort(new Error('interrupted'));
    expect(await run(glob, { pattern: '**/*' }, sb, { signal: ac.signal })).toMatchObject({ kind: 'error' });
  });

  it('declares a safe read-only tool whose subject is the searched directory', () => {
    expect({
      safe: glob.isConcurrencySafe({ pattern: '*' }),
      readOnly: glob.isReadOnly({ pattern: '*' }),
      interrupt: glob.interruptBehavior,
      subject: glob.permissionSubject?.({ pattern: '*', path: 'sub' }, sb.shared),
      defaultSubject: glob.permissionSubject?.({ pattern: '*' }, sb.shared),
    }).toEqual({
      safe: true,
      readOnly: true,
      interrupt: 'cancel',
      subject: { kind: 'read', path: join(sb.dir, 'sub') },
      defaultSubject: { kind: 'read', path: sb.dir },
    });
    expectTypeOf<GlobOutput>().toExtend<SdkGlobOutput>();
  });
});
