import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FileEditOutput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { type EditOutput, createEditTool, planEdit } from '../../../src/tools/builtin/edit.js';
import { createReadTool } from '../../../src/tools/builtin/read.js';
import { type PatchHunk, structuredPatch } from '../../../src/tools/builtin/line-diff.js';
import { type Sandbox, ok, run, sandbox } from './support.js';

let sb: Sandbox;
const edit = createEditTool();
const read = createReadTool();
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

const SUFFIX = '(file state is current in your context — no need to Read it back)';

async function readFile(name: string, content: string): Promise<string> {
  const p = join(sb.dir, name);
  writeFileSync(p, content);
  await ok(read, { file_path: p }, sb);
  return p;
}

describe('Edit', () => {
  it('replaces a unique string and returns the patch (claude-agent-acp reads filePath + structuredPatch)', async () => {
    const p = await readFile('f.ts', 'const a = 1;\nconst b = 2;\nconst c = 3;\n');
    expect(await ok<EditOutput>(edit, { file_path: p, old_string: 'b = 2', new_string: 'b = 20' }, sb)).toEqual({
      data: {
        filePath: p,
        oldString: 'b = 2',
        newString: 'b = 20',
        originalFile: 'const a = 1;\nconst b = 2;\nconst c = 3;\n',
        structuredPatch: [{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [' const a = 1;', '-const b = 2;', '+const b = 20;', ' const c = 3;'] }],
        userModified: false,
        replaceAll: false,
      },
      content: `The file ${p} has been updated successfully ${SUFFIX}`,
    });
    expect(readFileSync(p, 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst c = 3;\n');
  });

  it('refuses an ambiguous string unless replace_all', async () => {
    const p = await readFile('f.txt', 'x y x\n');
    expect(await run(edit, { file_path: p, old_string: 'x', new_string: 'z' }, sb)).toEqual({
      kind: 'rejected',
      message:
        'Found 2 matches of the string to replace, but replace_all is false. To replace all occurrences, set replace_all to true. To replace only one occurrence, please provide more context to uniquely identify the instance.\nString: x',
    });
    const out = await ok<EditOutput>(edit, { file_path: p, old_string: 'x', new_string: 'z', replace_all: true }, sb);
    expect({ replaceAll: out.data.replaceAll, content: out.content, disk: readFileSync(p, 'utf8') }).toEqual({
      replaceAll: true,
      content: `The file ${p} has been updated successfully: all 2 occurrences were replaced ${SUFFIX}`,
      disk: 'z y z\n',
    });
  });

  it('reports a missing string and identical strings', async () => {
    const p = await readFile('f.txt', 'hello\n');
    expect(await run(edit, { file_path: p, old_string: 'bye', new_string: 'x' }, sb)).toEqual({
      kind: 'rejected',
      message: 'String to replace not found in file.\nString: bye',
    });
    expect(await run(edit, { file_path: p, old_string: 'hello', new_string: 'hello' }, sb)).toEqual({
      kind: 'rejected',
      message: 'No changes to make: old_string and new_string are exactly the same.',
    });
  });

  it('requires a prior read, and an unchanged file', async () => {
    const p = join(sb.dir, 'f.txt');
    writeFileSync(p, 'a\n');
    expect(await run(edit, { file_path: p, old_string: 'a', new_string: 'b' }, sb)).toEqual({
      kind: 'rejected',
      message: 'File has not been read yet. Read it first before writing to it.',
    });
    await ok(read, { file_path: p }, sb);
    const st = statSync(p);
    utimesSync(p, st.atime, new Date(st.mtimeMs + 5000));
    expect(await run(edit, { file_path: p, old_string: 'a', new_string: 'b' }, sb)).toEqual({
      kind: 'rejected',
      message: 'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.',
    });
    expect(readFileSync(p, 'utf8')).toBe('a\n');
  });

  it('accepts a partial read (offset/limit), as Claude Code does', async () => {
    const p = join(sb.dir, 'f.txt');
    writeFileSync(p, 'one\ntwo\nthree\n');
    await ok(read, { file_path: p, offset: 2, limit: 1 }, sb);
    await ok(edit, { file_path: p, old_string: 'two', new_string: '2' }, sb);
    expect(readFileSync(p, 'utf8')).toBe('one\n2\nthree\n');
  });

  it('creates a missing file when old_string is empty, and refuses that on a non-empty file', async () => {
    const p = join(sb.dir, 'sub', 'new.txt');
    expect(await ok<EditOutput>(edit, { file_path: p, old_string: '', new_string: 'hi\n' }, sb)).toEqual({
      data: {
        filePath: p,
        oldString: '',
        newString: 'hi\n',
        originalFile: null,
        structuredPatch: [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 1, lines: ['+hi'] }],
        userModified: false,
        replaceAll: false,
      },
      content: `File created successfully at: ${p} ${SUFFIX}`,
    });
    expect(await run(edit, { file_path: p, old_string: '', new_string: 'again' }, sb)).toEqual({
      kind: 'rejected',
      message: 'Cannot create new file - file already exists.',
    });
    expect(await run(edit, { file_path: join(sb.dir, 'missing.txt'), old_string: 'a', new_string: 'b' }, sb)).toEqual({
      kind: 'rejected',
      message: `File does not exist. Note: your current working directory is ${sb.dir}.`,
    });
  });

  it('keeps CRLF line endings while the model edits LF text', async () => {
    const p = await readFile('dos.txt', 'one\r\ntwo\r\nthree\r\n');
    await ok(edit, { file_path: p, old_string: 'one\ntwo', new_string: 'one\nTWO\nextra' }, sb);
    expect(readFileSync(p, 'utf8')).toBe('one\r\nTWO\r\nextra\r\nthree\r\n');
  });

  it('deleting a whole line takes its newline too', async () => {
    const p = await readFile('f.txt', 'keep\ndrop me\nkeep too\n');
    await ok(edit, { file_path: p, old_string: 'drop me', new_string: '' }, sb);
    expect(readFileSync(p, 'utf8')).toBe('keep\nkeep too\n');
  });

  it('treats $ in new_string literally', async () => {
    const p = await readFile('f.txt', 'price\n');
    await ok(edit, { file_path: p, old_string: 'price', new_string: "$& $1 $$ $'" }, sb);
    expect(readFileSync(p, 'utf8')).toBe("$& $1 $$ $'\n");
  });

  it('points notebooks to NotebookEdit', async () => {
    const p = await readFile('n.ipynb', JSON.stringify({ cells: [] }));
    expect(await run(edit, { file_path: p, old_string: 'cells', new_string: 'x' }, sb)).toEqual({
      kind: 'rejected',
      message: 'File is a Jupyter Notebook. Use the NotebookEdit tool to edit this file.',
    });
  });

  it('lets a second edit follow the first without a new read', async () => {
    const p = await readFile('f.txt', 'a b\n');
    await ok(edit, { file_path: p, old_string: 'a', new_string: 'A' }, sb);
    await ok(edit, { file_path: p, old_string: 'b', new_string: 'B' }, sb);
    expect(readFileSync(p, 'utf8')).toBe('A B\n');
  });

  it('declares an exclusive, blocking, writing tool', () => {
    const input = { file_path: '/a', old_string: 'x', new_string: 'y', replace_all: false };
    expect({
      safe: edit.isConcurrencySafe(input),
      readOnly: edit.isReadOnly(input),
      interrupt: edit.interruptBehavior,
      subject: edit.permissionSubject?.(input, sb.shared),
    }).toEqual({ safe: false, readOnly: false, interrupt: 'block', subject: { kind: 'write', path: '/a' } });
    expectTypeOf<EditOutput>().toExtend<FileEditOutput>();
  });
});

describe('planEdit', () => {
  it('is pure and reports counts', () => {
    expect(planEdit('a-a-a', 'a', 'b', true)).toEqual({ ok: true, text: 'b-b-b', count: 3 });
    expect(planEdit('', '', 'new', false)).toEqual({ ok: true, text: 'new', count: 1 });
  });
});

describe('structuredPatch', () => {
  it('separates distant changes into hunks with 3 lines of context', () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const after = before.replace('l2\n', 'L2\n').replace('l18\n', 'L18\n');
    expect(structuredPatch(before, after)).toEqual([
      { oldStart: 1, oldLines: 5, newStart: 1, newLines: 5, lines: [' l1', '-l2', '+L2', ' l3', ' l4', ' l5'] },
      { oldStart: 15, oldLines: 6, newStart: 15, newLines: 6, lines: [' l15', ' l16', ' l17', '-l18', '+L18', ' l19', ' l20'] },
    ]);
  });

  it('merges changes whose contexts touch, and marks a missing final newline', () => {
    expect(structuredPatch('a\nb\nc', 'a\nB\nc\nd')).toEqual([
      { oldStart: 1, oldLines: 3, newStart: 1, newLines: 4, lines: [' a', '-b', '-c', '\\ No newline at end of file', '+B', '+c', '+d', '\\ No newline at end of file'] },
    ]);
  });

  it('handles insertions and deletions of blocks', () => {
    expect(structuredPatch('x\ny\n', 'x\nnew1\nnew2\ny\n')).toEqual([
      { oldStart: 1, oldLines: 2, newStart: 1, newLines: 4, lines: [' x', '+new1', '+new2', ' y'] },
    ]);
    expect(structuredPatch('a\nb\nc\n', '')).toEqual([{ oldStart: 1, oldLines: 3, newStart: 1, newLines: 0, lines: ['-a', '-b', '-c'] }]);
    expect(structuredPatch('same\n', 'same\n')).toEqual([]);
  });

  it('finds a minimal diff when lines move', () => {
    const patch = structuredPatch('a\nb\nc\nd\ne\n', 'a\nc\nd\nb\ne\n');
    const changed = patch.flatMap((h) => h.lines).filter((l) => l.startsWith('+') || l.startsWith('-'));
    expect(changed).toEqual(['-b', '+b']);
  });
});

/** Applies hunks to `old`, checking every context and removed line against it. */
function applyPatch(old: string, hunks: PatchHunk[]): string {
  const tokens = old.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const out: string[] = [];
  let pos = 0;
  for (const h of hunks) {
    while (pos < h.oldStart - 1) out.push(tokens[pos++] as string);
    h.lines.forEach((l, i) => {
      if (l.startsWith('\\')) return;
      const nl = h.lines[i + 1]?.startsWith('\\') ? '' : '\n';
      const text = l.slice(1) + nl;
      if (l[0] !== '+') {
        expect(tokens[pos]).toBe(text);
        pos++;
      }
      if (l[0] !== '-') out.push(text);
    });
  }
  while (pos < tokens.length) out.push(tokens[pos++] as string);
  return out.join('');
}

describe('structuredPatch (property)', () => {
  it('always yields a patch that turns the old text into the new one', () => {
    const text = fc.array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 30 }).chain((lines) =>
      fc.boolean().map((finalNl) => lines.join('\n') + (finalNl && lines.length > 0 ? '\n' : '')),
    );
    fc.assert(
      fc.property(text, text, (a, b) => {
        expect(applyPatch(a, structuredPatch(a, b))).toBe(b);
      }),
      { numRuns: 500 },
    );
  });
});
