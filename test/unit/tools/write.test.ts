import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileWriteOutput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { createReadTool } from '../../../src/tools/builtin/read.js';
import { type WriteOutput, createWriteTool } from '../../../src/tools/builtin/write.js';
import { type Sandbox, ok, run, sandbox } from './support.js';

let sb: Sandbox;
const write = createWriteTool();
const read = createReadTool();
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

const NOT_READ = 'File has not been read yet. Read it first before writing to it.';
const MODIFIED = 'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.';
const SUFFIX = '(file state is current in your context — no need to Read it back)';

/** Moves the file's mtime forward, as an editor or linter touching it would. */
function touchLater(p: string): void {
  const st = statSync(p);
  utimesSync(p, st.atime, new Date(st.mtimeMs + 5000));
}

describe('Write', () => {
  it('creates a file and its parent directories (transcript write-permission)', async () => {
    const p = join(sb.dir, 'new', 'dir', 'allowed.txt');
    expect(await ok<WriteOutput>(write, { file_path: p, content: 'allowed\n' }, sb)).toEqual({
      data: { type: 'create', filePath: p, content: 'allowed\n', structuredPatch: [], originalFile: null, userModified: false },
      content: `File created successfully at: ${p} ${SUFFIX}`,
    });
    expect(readFileSync(p, 'utf8')).toBe('allowed\n');
    const st = statSync(p);
    expect(sb.env.fileState.get(p)).toEqual({ mtimeMs: st.mtimeMs, size: 8, partial: false });
  });

  it('refuses to overwrite a file that was not read, and leaves it alone', async () => {
    const p = join(sb.dir, 'x.txt');
    writeFileSync(p, 'keep\n');
    expect(await run(write, { file_path: p, content: 'new\n' }, sb)).toEqual({ kind: 'rejected', message: NOT_READ });
    expect(readFileSync(p, 'utf8')).toBe('keep\n');
  });

  it('overwrites a file that was read, with a structured patch of the change', async () => {
    const p = join(sb.dir, 'x.txt');
    writeFileSync(p, 'a\nb\nc\n');
    await ok(read, { file_path: p }, sb);
    expect(await ok<WriteOutput>(write, { file_path: p, content: 'a\nB\nc\n' }, sb)).toEqual({
      data: {
        type: 'update',
        filePath: p,
        content: 'a\nB\nc\n',
        structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' a', '-b', '+B', ' c'] }],
        originalFile: 'a\nb\nc\n',
        userModified: false,
      },
      content: `The file ${p} has been updated successfully ${SUFFIX}`,
    });
    expect(readFileSync(p, 'utf8')).toBe('a\nB\nc\n');
  });

  it('refuses when the file changed on disk after the read', async () => {
    const p = join(sb.dir, 'x.txt');
    writeFileSync(p, 'v1\n');
    await ok(read, { file_path: p }, sb);
    writeFileSync(p, 'v2 from the user\n');
    touchLater(p);
    expect(await run(write, { file_path: p, content: 'mine\n' }, sb)).toEqual({ kind: 'rejected', message: MODIFIED });
    expect(readFileSync(p, 'utf8')).toBe('v2 from the user\n');
  });

  it('re-checks on the open descriptor: a change between validation and the call is caught', async () => {
    const p = join(sb.dir, 'x.txt');
    writeFileSync(p, 'v1\n');
    await ok(read, { file_path: p }, sb);
    const input = { file_path: p, content: 'mine\n' };
    expect(await write.validateInput?.(input, { shared: sb.shared, env: sb.env })).toEqual({ ok: true });
    writeFileSync(p, 'theirs\n');
    touchLater(p);
    await expect(write.call(input, sb.ctx())).rejects.toThrow(MODIFIED);
    expect(readFileSync(p, 'utf8')).toBe('theirs\n');
  });

  it('allows consecutive writes without a read in between (its own write is known)', async () => {
    const p = join(sb.dir, 'x.txt');
    await ok(write, { file_path: p, content: 'one\n' }, sb);
    const out = await ok<WriteOutput>(write, { file_path: p, content: 'two\n' }, sb);
    expect(out.data.type).toBe('update');
    expect(readFileSync(p, 'utf8')).toBe('two\n');
  });

  it('rejects relative paths and directories', async () => {
    mkdirSync(join(sb.dir, 'd'));
    expect(await run(write, { file_path: 'rel.txt', content: '' }, sb)).toEqual({
      kind: 'rejected',
      message: `file_path must be an absolute path, not a relative one: "rel.txt". Did you mean "${join(sb.dir, 'rel.txt')}"?`,
    });
    expect(await run(write, { file_path: join(sb.dir, 'd'), content: '' }, sb)).toEqual({
      kind: 'rejected',
      message: `${join(sb.dir, 'd')} is a directory; Write needs a file path.`,
    });
  });

  it('declares an exclusive, blocking, writing tool', () => {
    const input = { file_path: '/a', content: '' };
    expect({
      safe: write.isConcurrencySafe(input),
      readOnly: write.isReadOnly(input),
      interrupt: write.interruptBehavior,
      subject: write.permissionSubject?.(input, sb.shared),
    }).toEqual({ safe: false, readOnly: false, interrupt: 'block', subject: { kind: 'write', path: '/a' } });
    expectTypeOf<WriteOutput>().toExtend<FileWriteOutput>();
  });
});
