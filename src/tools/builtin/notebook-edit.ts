// NotebookEdit: replace, insert or delete one cell of a Jupyter notebook the session has Read. The change is a
// verified read-modify-write that replaces the file (fs-write.ts), re-checking freshness against the bytes read.
import { randomBytes } from 'node:crypto';
import * as z from 'zod/mini';
import type { FileStateCache } from '../file-state.js';
import { NotRegularFileError, fsErrorCode, readFileVerified } from '../fs-safe.js';
import { updateFileVerified } from '../fs-write.js';
import type { Tool, ToolOutcome, ValidationResult } from '../tool.js';
import { FILE_WRITER, assertFresh, decodeText, fileDoesNotExist, rawText, realPathOf, requireAbsolute, staleness, statIfExists } from './file-common.js';
import { type Notebook, type NotebookCell, cellId, findCellIndex, joinText, notebookLanguage, parseNotebook } from './notebook.js';

export const NotebookEditInput = z.lazy(() => z.strictObject({
  notebook_path: z.string().check(z.describe('The absolute path to the Jupyter notebook file to edit (must be absolute, not relative)')),
  cell_id: z.optional(
    z.string().check(
      z.describe('The ID of the cell to edit. When inserting a new cell, the new cell will be inserted after the cell with this ID, or at the beginning if not specified.'),
    ),
  ),
  new_source: z.string().check(z.describe('The new source for the cell')),
  cell_type: z.optional(
    z.enum(['code', 'markdown']).check(
      z.describe('The type of the cell (code or markdown). If not specified, it defaults to the current cell type. If using edit_mode=insert, this is required.'),
    ),
  ),
  edit_mode: z.optional(z.enum(['replace', 'insert', 'delete']).check(z.describe('The type of edit to make (replace, insert, delete). Defaults to replace.'))),
}));
export type NotebookEditInput = z.infer<typeof NotebookEditInput>;

export interface NotebookEditOutput {
  new_source: string;
  old_source?: string;
  cell_id?: string;
  cell_type: 'code' | 'markdown';
  language: string;
  edit_mode: string;
  error?: string;
  notebook_path: string;
  original_file: string;
  updated_file: string;
}

const DESCRIPTION = `Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb).

- notebook_path must be absolute, and the notebook must have been Read in this conversation.
- cell_id selects the cell (the id Read shows; "cell-N" addresses the N-th cell, 0-based, in notebooks without ids).
- edit_mode: replace (default) sets the cell's source (and type, if cell_type is given); insert adds a new cell after cell_id (or at the start) and requires cell_type; delete removes the cell.`;

type Applied = { cellId: string | undefined; cellType: 'code' | 'markdown'; oldSource?: string };

function newCellId(): string {
  return randomBytes(6).toString('hex');
}

function asCellType(t: string): 'code' | 'markdown' {
  return t === 'markdown' ? 'markdown' : 'code';
}

/** Applies the edit to the parsed notebook in place, or throws the message the model should see. */
function applyEdit(nb: Notebook, input: NotebookEditInput): Applied {
  const mode = input.edit_mode ?? 'replace';
  let index = -1;
  if (input.cell_id !== undefined) {
    index = findCellIndex(nb, input.cell_id);
    if (index === -1) throw new Error(`Cell with ID "${input.cell_id}" not found in notebook.`);
  } else if (mode !== 'insert') {
    throw new Error('Cell ID must be specified when not inserting a new cell.');
  }
  if (mode === 'insert') {
    if (!input.cell_type) throw new Error('Cell type is required when using edit_mode=insert.');
    // Cell ids exist from nbformat 4.5 on; older notebooks are addressed by position.
    const withIds = (nb.nbformat ?? 4) > 4 || ((nb.nbformat ?? 4) === 4 && (nb.nbformat_minor ?? 0) >= 5);
    const id = withIds ? newCellId() : undefined;
    const cell: NotebookCell =
      input.cell_type === 'markdown'
        ? { cell_type: 'markdown', ...(id ? { id } : {}), metadata: {}, source: input.new_source }
        : { cell_type: 'code', ...(id ? { id } : {}), metadata: {}, source: input.new_source, execution_count: null, outputs: [] };
    nb.cells.splice(index + 1, 0, cell);
    return { cellId: id ?? `cell-${index + 1}`, cellType: input.cell_type };
  }
  const cell = nb.cells[index] as NotebookCell;
  const oldSource = joinText(cell.source);
  const id = cellId(cell, index);
  if (mode === 'delete') {
    nb.cells.splice(index, 1);
    return { cellId: id, cellType: asCellType(cell.cell_type), oldSource };
  }
  const type = input.cell_type ?? asCellType(cell.cell_type);
  cell.source = input.new_source;
  cell.cell_type = type;
  if (type === 'code') {
    // The outputs belonged to the old source.
    cell.execution_count = null;
    cell.outputs = [];
  } else {
    delete cell.execution_count;
    delete cell.outputs;
  }
  return { cellId: id, cellType: type, oldSource };
}


async function validate(input: NotebookEditInput, cwd: string, fileState: FileStateCache): Promise<ValidationResult> {
  const abs = requireAbsolute('notebook_path', input.notebook_path, cwd);
  if (!abs.ok) return abs;
  if (!input.notebook_path.toLowerCase().endsWith('.ipynb')) {
    return { ok: false, message: 'File must be a Jupyter notebook (.ipynb file). For editing other file types, use the Edit tool.' };
  }
  const st = await statIfExists(input.notebook_path);
  if (!st) return { ok: false, message: fileDoesNotExist(cwd) };
  if (!st.isFile()) return { ok: false, message: `${input.notebook_path} is not a regular file.` };
  const stale = staleness(fileState, await realPathOf(input.notebook_path), st);
  if (stale) return { ok: false, message: stale };
  try {
    const nb = parseNotebook(decodeText((await readFileVerified(input.notebook_path)).data).text, input.notebook_path);
    applyEdit(nb, input);
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  return { ok: true };
}

export function createNotebookEditTool(): Tool<NotebookEditInput, NotebookEditOutput> {
  return {
    name: 'NotebookEdit',
    description: DESCRIPTION,
    inputSchema: NotebookEditInput,
    ...FILE_WRITER,
    permissionSubject: (input) => ({ kind: 'write', path: input.notebook_path }),
    validateInput: (input, { shared, env }) => validate(input, shared.cwd, env.fileState),
    async call(input, ctx): Promise<ToolOutcome<NotebookEditOutput>> {
      const path = input.notebook_path;
      const mode = input.edit_mode ?? 'replace';
      let applied: Applied | undefined;
      let language = 'python';
      let result;
      try {
        result = await updateFileVerified(
          path,
          ({ data, stat, realPath }) => {
            assertFresh(ctx.env.fileState, realPath, stat);
            const nb = parseNotebook(decodeText(data).text, path);
            language = notebookLanguage(nb);
            applied = applyEdit(nb, input);
            // Jupyter's own layout: one-space indent, trailing newline.
            return `${JSON.stringify(nb, null, 1)}\n`;
          },
          { pinnedRealPath: ctx.pinnedRealPath, signal: ctx.signal },
        );
      } catch (e) {
        const code = fsErrorCode(e);
        if (code === 'ENOENT') throw new Error(fileDoesNotExist(ctx.shared.cwd));
        if (e instanceof NotRegularFileError) throw new Error(`${path} is not a regular file.`);
        if (code === 'EACCES' || code === 'EPERM') throw new Error(`Permission denied editing ${path}.`);
        throw e;
      }
      const done = applied as Applied;
      const snap = ctx.env.fileState.get(result.realPath);
      ctx.env.fileState.set(result.realPath, { mtimeMs: result.stat.mtimeMs, size: result.stat.size, partial: snap?.partial ?? false });
      const data: NotebookEditOutput = {
        new_source: input.new_source,
        ...(done.oldSource !== undefined ? { old_source: done.oldSource } : {}),
        ...(done.cellId !== undefined ? { cell_id: done.cellId } : {}),
        cell_type: done.cellType,
        language,
        edit_mode: mode,
        error: '',
        notebook_path: path,
        original_file: rawText(result.previous),
        updated_file: result.next.toString('utf8'),
      };
      const text =
        mode === 'delete'
          ? `Deleted cell ${done.cellId}`
          : mode === 'insert'
            ? `Inserted cell ${done.cellId} with ${input.new_source}`
            : `Updated cell ${done.cellId} with ${input.new_source}`;
      return { data, content: text };
    },
  };
}
