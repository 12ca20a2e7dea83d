import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NotebookEditOutput as SdkNotebookEditOutput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { type NotebookEditOutput, createNotebookEditTool } from '../../../src/tools/builtin/notebook-edit.js';
import { createReadTool } from '../../../src/tools/builtin/read.js';
import { type Sandbox, ok, run, sandbox } from './support.js';

let sb: Sandbox;
const nbEdit = createNotebookEditTool();
const read = createReadTool();
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

function notebook(minor = 5) {
  return {
    nbformat: 4,
    nbformat_minor: minor,
    metadata: { language_info: { name: 'python' }, kernelspec: { name: 'python3' } },
    cells: [
      { cell_type: 'markdown', ...(minor >= 5 ? { id: 'md1' } : {}), metadata: {}, source: ['# Title'] },
      {
        cell_type: 'code',
        ...(minor >= 5 ? { id: 'code1' } : {}),
        metadata: { tags: ['x'] },
        execution_count: 4,
        source: 'print(1)',
        outputs: [{ output_type: 'stream', name: 'stdout', text: '1\n' }],
      },
    ],
  };
}

async function readNotebook(nb: object = notebook()): Promise<{ path: string; original: string }> {
  const path = join(sb.dir, 'n.ipynb');
  const original = JSON.stringify(nb, null, 1);
  writeFileSync(path, original);
  await ok(read, { file_path: path }, sb);
  return { path, original };
}

const onDisk = (p: string): { cells: Array<Record<string, unknown>> } & Record<string, unknown> => JSON.parse(readFileSync(p, 'utf8'));

describe('NotebookEdit', () => {
  it('replaces a cell: new source, outputs and execution count cleared, other fields kept', async () => {
    const { path, original } = await readNotebook();
    const out = await ok<NotebookEditOutput>(nbEdit, { notebook_path: path, cell_id: 'code1', new_source: 'print(2)' }, sb);
    const updated = readFileSync(path, 'utf8');
    expect(out).toEqual({
      data: {
        new_source: 'print(2)',
        old_source: 'print(1)',
        cell_id: 'code1',
        cell_type: 'code',
        language: 'python',
        edit_mode: 'replace',
        error: '',
        notebook_path: path,
        original_file: original,
        updated_file: updated,
      },
      content: 'Updated cell code1 with print(2)',
    });
    const nb = onDisk(path);
    expect(nb.cells[1]).toEqual({ cell_type: 'code', id: 'code1', metadata: { tags: ['x'] }, execution_count: null, source: 'print(2)', outputs: [] });
    expect(nb['metadata']).toEqual({ language_info: { name: 'python' }, kernelspec: { name: 'python3' } });
  });

  it('changes a cell type on replace', async () => {
    const { path } = await readNotebook();
    await ok(nbEdit, { notebook_path: path, cell_id: 'code1', new_source: 'now prose', cell_type: 'markdown' }, sb);
    expect(onDisk(path).cells[1]).toEqual({ cell_type: 'markdown', id: 'code1', metadata: { tags: ['x'] }, source: 'now prose' });
  });

  it('inserts after a cell, or at the start without cell_id, with a fresh id', async () => {
    const { path } = await readNotebook();
    const out = await ok<NotebookEditOutput>(nbEdit, { notebook_path: path, cell_id: 'md1', new_source: 'x = 1', cell_type: 'code', edit_mode: 'insert' }, sb);
    const cells = onDisk(path).cells;
    expect(cells.map((c) => c['source'])).toEqual([['# Title'], 'x = 1', 'print(1)']);
    expect(cells[1]).toEqual({ cell_type: 'code', id: out.data.cell_id, metadata: {}, source: 'x = 1', execution_count: null, outputs: [] });
    expect(out.data.cell_id).toMatch(/^[0-9a-f]{12}$/);
    expect(out.content).toBe(`Inserted cell ${out.data.cell_id} with x = 1`);
    await ok(nbEdit, { notebook_path: path, new_source: 'first', cell_type: 'markdown', edit_mode: 'insert' }, sb);
    expect(onDisk(path).cells[0]?.['source']).toBe('first');
  });

  it('deletes a cell', async () => {
    const { path } = await readNotebook();
    const out = await ok<NotebookEditOutput>(nbEdit, { notebook_path: path, cell_id: 'md1', new_source: '', edit_mode: 'delete' }, sb);
    expect({ content: out.content, old: out.data.old_source, ids: onDisk(path).cells.map((c) => c['id']) }).toEqual({
      content: 'Deleted cell md1',
      old: '# Title',
      ids: ['code1'],
    });
  });

  it('addresses cells as cell-N in notebooks without ids, and inserts no id there', async () => {
    const { path } = await readNotebook(notebook(4));
    await ok(nbEdit, { notebook_path: path, cell_id: 'cell-1', new_source: 'print(3)' }, sb);
    const out = await ok<NotebookEditOutput>(nbEdit, { notebook_path: path, cell_id: 'cell-0', new_source: 'y', cell_type: 'code', edit_mode: 'insert' }, sb);
    const cells = onDisk(path).cells;
    expect({ id: out.data.cell_id, sources: cells.map((c) => c['source']), hasId: cells.some((c) => 'id' in c) }).toEqual({
      id: 'cell-1',
      sources: [['# Title'], 'y', 'print(3)'],
      hasId: false,
    });
  });

  it('refuses without a prior read, after an outside change, for unknown cells and bad modes', async () => {
    const path = join(sb.dir, 'n.ipynb');
    writeFileSync(path, JSON.stringify(notebook()));
    expect(await run(nbEdit, { notebook_path: path, cell_id: 'md1', new_source: 'x' }, sb)).toEqual({
      kind: 'rejected',
      message: 'File has not been read yet. Read it first before writing to it.',
    });
    await ok(read, { file_path: path }, sb);
    expect(await run(nbEdit, { notebook_path: path, cell_id: 'nope', new_source: 'x' }, sb)).toEqual({
      kind: 'rejected',
      message: 'Cell with ID "nope" not found in notebook.',
    });
    expect(await run(nbEdit, { notebook_path: path, new_source: 'x' }, sb)).toEqual({
      kind: 'rejected',
      message: 'Cell ID must be specified when not inserting a new cell.',
    });
    expect(await run(nbEdit, { notebook_path: path, new_source: 'x', edit_mode: 'insert' }, sb)).toEqual({
      kind: 'rejected',
      message: 'Cell type is required when using edit_mode=insert.',
    });
    const st = statSync(path);
    utimesSync(path, st.atime, new Date(st.mtimeMs + 5000));
    expect(await run(nbEdit, { notebook_path: path, cell_id: 'md1', new_source: 'x' }, sb)).toEqual({
      kind: 'rejected',
      message: 'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.',
    });
  });

  it('only edits .ipynb files, by absolute path', async () => {
    expect(await run(nbEdit, { notebook_path: join(sb.dir, 'x.py'), cell_id: 'a', new_source: '' }, sb)).toEqual({
      kind: 'rejected',
      message: 'File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.',
    });
    expect((await run(nbEdit, { notebook_path: 'n.ipynb', cell_id: 'a', new_source: '' }, sb)).kind).toBe('rejected');
  });

  it('declares an exclusive writing tool', () => {
    const input = { notebook_path: '/n.ipynb', new_source: '' };
    expect({ safe: nbEdit.isConcurrencySafe(input), interrupt: nbEdit.interruptBehavior, subject: nbEdit.permissionSubject?.(input, sb.shared) }).toEqual({
      safe: false,
      interrupt: 'block',
      subject: { kind: 'write', path: '/n.ipynb' },
    });
    expectTypeOf<NotebookEditOutput>().toExtend<SdkNotebookEditOutput>();
  });
});
