// Jupyter notebooks (.ipynb, nbformat 4): parsing for Read and NotebookEdit, and rendering cells for the model.
// Notebooks are parsed loosely (unknown fields are kept and written back untouched).
import * as z from 'zod/mini';
import type { ImageBlock, TextBlock } from '../../model/types.js';

const MultilineText = z.lazy(() => z.union([z.string(), z.array(z.string())]));

const Output = z.lazy(() => z.looseObject({
  output_type: z.string(),
  text: z.optional(MultilineText),
  name: z.optional(z.string()),
  data: z.optional(z.record(z.string(), z.unknown())),
  ename: z.optional(z.string()),
  evalue: z.optional(z.string()),
  traceback: z.optional(z.array(z.string())),
}));

const Cell = z.lazy(() => z.looseObject({
  cell_type: z.string(),
  id: z.optional(z.string()),
  source: MultilineText,
  execution_count: z.optional(z.nullable(z.number())),
  outputs: z.optional(z.array(Output)),
  metadata: z.optional(z.record(z.string(), z.unknown())),
}));

export const NotebookSchema = z.lazy(() => z.looseObject({
  cells: z.array(Cell),
  metadata: z.optional(
    z.looseObject({
      language_info: z.optional(z.looseObject({ name: z.optional(z.string()) })),
    }),
  ),
  nbformat: z.optional(z.number()),
  nbformat_minor: z.optional(z.number()),
}));

export type Notebook = z.infer<typeof NotebookSchema>;
export type NotebookCell = z.infer<typeof Cell>;

export function parseNotebook(text: string, path: string): Notebook {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path} is not a valid notebook: the JSON does not parse (${e instanceof Error ? e.message : String(e)})`);
  }
  const r = NotebookSchema.safeParse(json);
  if (!r.success) throw new Error(`${path} is not a valid notebook: ${r.error.issues[0]?.message ?? 'unexpected structure'} (expected nbformat 4 with a "cells" array)`);
  return r.data;
}

export function joinText(t: string | readonly string[] | undefined): string {
  if (t === undefined) return '';
  return typeof t === 'string' ? t : t.join('');
}

export function notebookLanguage(nb: Notebook): string {
  return nb.metadata?.language_info?.name ?? 'python';
}

/** A cell's id as the model addresses it: its own id, or `cell-<index>` for notebooks without ids. */
export function cellId(cell: NotebookCell, index: number): string {
  return cell.id ?? `cell-${index}`;
}

/** Finds a cell by its id, or by the `cell-<n>` form (Claude Code accepts both). */
export function findCellIndex(nb: Notebook, id: string): number {
  const byId = nb.cells.findIndex((c) => c.id === id);
  if (byId !== -1) return byId;
  const m = /^cell-(\d+)$/.exec(id);
  if (m) {
    const i = Number(m[1]);
    if (i < nb.cells.length) return i;
  }
  return -1;
}

/** The structured cells Read returns in its Output (Claude Code's shape). */
export interface ReadCell {
  cellType: string;
  source: string;
  execution_count?: number | null;
  cell_id: string;
  language?: string;
  outputs?: Array<{ output_type: string; text?: string; image?: { image_data: string; media_type: 'image/png' | 'image/jpeg' } }>;
}

const MAX_OUTPUT_CHARS = 10_000;

function outputText(o: z.infer<typeof Output>): string {
  if (o.output_type === 'stream') return joinText(o.text);
  if (o.output_type === 'error') return `${o.ename ?? 'Error'}: ${o.evalue ?? ''}\n${(o.traceback ?? []).join('\n')}`;
  const plain = o.data?.['text/plain'];
  if (typeof plain === 'string') return plain;
  if (Array.isArray(plain)) return plain.filter((x): x is string => typeof x === 'string').join('');
  return '';
}

function outputImage(o: z.infer<typeof Output>): { image_data: string; media_type: 'image/png' | 'image/jpeg' } | undefined {
  for (const mt of ['image/png', 'image/jpeg'] as const) {
    const d = o.data?.[mt];
    if (typeof d === 'string') return { image_data: d.replace(/\s/g, ''), media_type: mt };
  }
  return undefined;
}

export function readCells(nb: Notebook): ReadCell[] {
  const language = notebookLanguage(nb);
  return nb.cells.map((c, i) => {
    const cell: ReadCell = { cellType: c.cell_type, source: joinText(c.source), cell_id: cellId(c, i) };
    if (c.cell_type === 'code') {
      cell.execution_count = c.execution_count ?? null;
      cell.language = language;
      if (c.outputs && c.outputs.length > 0) {
        cell.outputs = c.outputs.map((o) => {
          let text = outputText(o);
          if (text.length > MAX_OUTPUT_CHARS) text = `${text.slice(0, MAX_OUTPUT_CHARS)}\n… [output truncated: ${text.length} characters]`;
          const image = outputImage(o);
          return { output_type: o.output_type, ...(text ? { text } : {}), ...(image ? { image } : {}) };
        });
      }
    }
    return cell;
  });
}

/** What the model sees: one tagged text per cell (its outputs inline), output images as image blocks. */
export function renderCells(cells: readonly ReadCell[]): Array<TextBlock | ImageBlock> {
  const blocks: Array<TextBlock | ImageBlock> = [];
  for (const c of cells) {
    const meta = c.cellType === 'code' ? (c.language && c.language !== 'python' ? `<language>${c.language}</language>` : '') : `<cell_type>${c.cellType}</cell_type>`;
    let text = `<cell id="${c.cell_id}">${meta}${c.source}</cell id="${c.cell_id}">`;
    const outs = (c.outputs ?? []).map((o) => o.text ?? '').filter(Boolean);
    if (outs.length > 0) text += `\n<outputs cell_id="${c.cell_id}">\n${outs.join('\n')}\n</outputs>`;
    blocks.push({ type: 'text', text });
    for (const o of c.outputs ?? []) {
      if (o.image) blocks.push({ type: 'image', source: { type: 'base64', media_type: o.image.media_type, data: o.image.image_data } });
    }
  }
  return blocks;
}
