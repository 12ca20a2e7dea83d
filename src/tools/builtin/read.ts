// Read: text files with `cat -n`-style numbering, images as image blocks, notebooks as cells, PDFs as documents.
// Every open goes through fs-safe (the descriptor must be the file the permission check approved), and each
// read is recorded in the session's FileStateCache for Write/Edit's read-before-write rule.
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { extname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import * as z from 'zod/mini';
import type { DocumentBlock, ImageBlock } from '../../model/types.js';
import { NotRegularFileError, fsErrorCode, openVerified, readFileVerified } from '../fs-safe.js';
import type { Tool, ToolCallContext, ToolOutcome, ValidationResult } from '../tool.js';
import { binaryExtension, decodeText, fileDoesNotExist, looksBinary, requireAbsolute, statIfExists } from './file-common.js';
import { type ReadCell, parseNotebook, readCells, renderCells } from './notebook.js';

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_LINE_CHARS = 2000;
/** Whole-file reads (no offset/limit) of bigger files are refused unless allow_large (Claude Code: 256 KB). */
export const READ_MAX_WHOLE_FILE_BYTES = 256 * 1024;
/** ~25k tokens at ~4 chars per token (Claude Code's output cap), and what allow_large lifts it to. */
export const READ_MAX_OUTPUT_CHARS = 100_000;
export const READ_MAX_OUTPUT_CHARS_LARGE = 400_000;
/** The API accepts images up to 5 MB of base64; agentd does not resize. */
export const READ_MAX_IMAGE_BYTES = Math.floor((5 * 1024 * 1024 * 3) / 4);
export const READ_MAX_PDF_BYTES = 10 * 1024 * 1024;

export const ReadInput = z.lazy(() => z.strictObject({
  file_path: z.string().check(z.describe('The absolute path to the file to read')),
  offset: z.optional(
    z.int().check(z.minimum(0), z.describe('The line number to start reading from (1 = first line). Only provide if the file is too large to read at once')),
  ),
  limit: z.optional(
    z.int().check(z.positive(), z.describe(`The number of lines to read (default ${READ_DEFAULT_LIMIT}). Only provide if the file is too large to read at once.`)),
  ),
  pages: z.optional(z.string().check(z.describe('Page range for PDF files (e.g. "1-5"). Not supported by agentd: omit it to read a whole PDF.'))),
  allow_large: z.optional(
    z.boolean().check(z.describe('Set to true to read a text file, or a line range of one, that is over the usual size limits. Prefer offset/limit or Grep.')),
  ),
}));
export type ReadInput = z.infer<typeof ReadInput>;

type ImageMediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export type ReadOutput =
  | { type: 'text'; file: { filePath: string; content: string; numLines: number; startLine: number; totalLines: number } }
  | { type: 'image'; file: { base64: string; type: ImageMediaType; originalSize: number } }
  | { type: 'notebook'; file: { filePath: string; cells: ReadCell[] } }
  | { type: 'pdf'; file: { filePath: string; base64: string; originalSize: number } };

const DESCRIPTION = `Reads a file from the local filesystem.

- file_path must be an absolute path.
- Reads up to ${READ_DEFAULT_LIMIT} lines by default; use offset and limit to read parts of long files.
- Results are returned in cat -n format: line number, a tab, then the line. Lines longer than ${READ_MAX_LINE_CHARS} characters are cut.
- Reads images (PNG, JPEG, GIF, WebP) and shows them visually, PDFs (whole documents up to 10 MB), and Jupyter notebooks (.ipynb) as cells with their outputs.
- Directories and binary files are refused: list directories with Glob or Bash.
- Edit and Write require the file to have been read in this conversation first.`;

const IMAGE_EXTENSIONS = new Set(['png', 'jpg', 'jpeg', 'gif', 'webp']);

function ext(path: string): string {
  return extname(path).slice(1).toLowerCase();
}

function sniffImage(buf: Buffer): ImageMediaType | undefined {
  if (buf.length >= 8 && buf.readUInt32BE(0) === 0x89504e47) return 'image/png';
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'image/jpeg';
  if (buf.length >= 6 && buf.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
  if (buf.length >= 12 && buf.subarray(0, 4).toString('latin1') === 'RIFF' && buf.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

/** Rounded up, so a file just over a limit never reads as equal to it. */
function kb(bytes: number): string {
  return `${Math.ceil(bytes / 1024)}KB`;
}

function tooLargeMessage(size: number): string {
  return `File content (${kb(size)}) exceeds maximum allowed size (${kb(READ_MAX_WHOLE_FILE_BYTES)}). Use offset and limit parameters to read specific portions of the file, search for specific content with Grep instead of reading the whole file, or set allow_large if you really need all of it.`;
}

function binaryMessage(path: string, why: string): string {
  return `This tool cannot read binary files: ${path} ${why}. Read handles text, images (PNG, JPEG, GIF, WebP), PDFs and Jupyter notebooks; inspect other files with Bash (e.g. \`file\`, \`xxd | head\`).`;
}

async function validate(input: ReadInput, cwd: string): Promise<ValidationResult> {
  const abs = requireAbsolute('file_path', input.file_path, cwd);
  if (!abs.ok) return abs;
  const e = ext(input.file_path);
  if (input.pages !== undefined) {
    return {
      ok: false,
      message:
        e === 'pdf'
          ? 'Reading PDF page ranges is not supported by agentd (it has no PDF renderer). Omit `pages` to send the whole PDF as a document (up to 10 MB), or extract text with Bash (e.g. `pdftotext`) if it is installed.'
          : 'The `pages` parameter only applies to PDF files. Use offset and limit for text files.',
    };
  }
  const st = await statIfExists(input.file_path);
  if (!st) return { ok: false, message: fileDoesNotExist(cwd) };
  if (st.isDirectory()) return { ok: false, message: `${input.file_path} is a directory, not a file. List its contents with Glob or Bash (ls).` };
  const bin = binaryExtension(input.file_path);
  if (bin) return { ok: false, message: binaryMessage(input.file_path, `is a .${bin} file`) };
  if (IMAGE_EXTENSIONS.has(e) && st.size > READ_MAX_IMAGE_BYTES) {
    return { ok: false, message: `Image is too large (${kb(st.size)}): the API accepts at most ${kb(READ_MAX_IMAGE_BYTES)} per image and agentd does not resize images.` };
  }
  if (e === 'pdf' && st.size > READ_MAX_PDF_BYTES) {
    return { ok: false, message: `PDF is too large (${kb(st.size)}); agentd sends PDFs whole, up to ${kb(READ_MAX_PDF_BYTES)}. Extract text with Bash (e.g. \`pdftotext\`) instead.` };
  }
  const whole = input.offset === undefined && input.limit === undefined && !input.allow_large;
  if (whole && !IMAGE_EXTENSIONS.has(e) && e !== 'pdf' && e !== 'ipynb' && st.size > READ_MAX_WHOLE_FILE_BYTES) {
    return { ok: false, message: tooLargeMessage(st.size) };
  }
  return { ok: true };
}

interface LineWindow {
  lines: string[];
  totalLines: number;
  cut: boolean;
}

/**
 * Streams the file once: keeps lines [start, start+limit) (each capped at READ_MAX_LINE_CHARS, so a huge
 * single-line file costs no more memory than that) and counts all lines for totalLines.
 */
async function readLineWindow(handle: FileHandle, start: number, limit: number, signal: AbortSignal): Promise<LineWindow> {
  const head = Buffer.alloc(2);
  const { bytesRead } = await handle.read(head, 0, 2, 0);
  const utf16 = bytesRead === 2 && head[0] === 0xff && head[1] === 0xfe;
  const decoder = new StringDecoder(utf16 ? 'utf16le' : 'utf8');
  const lines: string[] = [];
  let cut = false;
  let index = 0; // index of the line being assembled
  let pending = '';
  let pendingLen = 0;
  const take = (): void => {
    if (index >= start && index < start + limit) {
      let line = pending.endsWith('\r') ? pending.slice(0, -1) : pending;
      if (pendingLen > READ_MAX_LINE_CHARS) {
        line = `${line.slice(0, READ_MAX_LINE_CHARS)}… [line truncated: ${pendingLen} characters]`;
        cut = true;
      }
      lines.push(line);
    }
    index++;
    pending = '';
    pendingLen = 0;
  };
  const feed = (s: string): void => {
    let from = 0;
    for (let nl = s.indexOf('\n', from); nl !== -1; nl = s.indexOf('\n', from)) {
      append(s.slice(from, nl));
      take();
      from = nl + 1;
    }
    append(s.slice(from));
  };
  const append = (part: string): void => {
    pendingLen += part.length;
    // Only lines in the window are kept, and only up to the cap (+1 for a trailing \r).
    if (index >= start && index < start + limit && pending.length <= READ_MAX_LINE_CHARS) pending += part.slice(0, READ_MAX_LINE_CHARS + 1 - pending.length);
  };
  const buf = Buffer.allocUnsafe(256 * 1024);
  let pos = utf16 ? 2 : 0;
  for (;;) {
    signal.throwIfAborted();
    const r = await handle.read(buf, 0, buf.length, pos);
    if (r.bytesRead === 0) break;
    pos += r.bytesRead;
    feed(decoder.write(buf.subarray(0, r.bytesRead)));
  }
  feed(decoder.end());
  take();
  return { lines, totalLines: index, cut };
}

async function readText(input: ReadInput, ctx: ToolCallContext): Promise<ToolOutcome<ReadOutput>> {
  const path = input.file_path;
  const { handle, realPath, stat } = await openVerified(path, constants.O_RDONLY, ctx.pinnedRealPath);
  let window: LineWindow;
  const startLine = input.offset !== undefined && input.offset > 1 ? input.offset : 1;
  const limit = input.limit ?? READ_DEFAULT_LIMIT;
  try {
    const head = Buffer.alloc(Math.min(stat.size, 8192));
    await handle.read(head, 0, head.length, 0);
    if (looksBinary(head)) throw new Error(binaryMessage(path, 'contains binary data (NUL bytes)'));
    if (ext(path) === 'ipynb') return await readNotebookFrom(handle, input, ctx, realPath);
    if (stat.size === 0) {
      ctx.env.fileState.set(realPath, { mtimeMs: stat.mtimeMs, size: 0, partial: false });
      return {
        data: { type: 'text', file: { filePath: path, content: '', numLines: 0, startLine, totalLines: 0 } },
        content: '<system-reminder>Warning: the file exists but the contents are empty.</system-reminder>',
      };
    }
    window = await readLineWindow(handle, startLine - 1, limit, ctx.signal);
  } finally {
    await handle.close().catch(() => undefined);
  }
  const { lines, totalLines, cut } = window;
  const partial = startLine > 1 || startLine - 1 + lines.length < totalLines || cut;
  ctx.env.fileState.set(realPath, { mtimeMs: stat.mtimeMs, size: stat.size, partial });
  if (lines.length === 0) {
    return {
      data: { type: 'text', file: { filePath: path, content: '', numLines: 0, startLine, totalLines } },
      content: `<system-reminder>Warning: the file exists but is shorter than the provided offset (${startLine}). The file has ${totalLines} lines.</system-reminder>`,
    };
  }
  const text = lines.map((l, i) => `${startLine + i}\t${l}`).join('\n');
  const cap = input.allow_large ? READ_MAX_OUTPUT_CHARS_LARGE : READ_MAX_OUTPUT_CHARS;
  if (text.length > cap) {
    // Nothing was shown: forget the read so a later Write cannot rely on it.
    ctx.env.fileState.delete(realPath);
    throw new Error(
      `File content (~${Math.ceil(text.length / 4)} tokens) exceeds maximum allowed tokens (${cap / 4}). Use offset and limit to read a smaller part of the file, or search for specific content with Grep.`,
    );
  }
  return {
    data: { type: 'text', file: { filePath: path, content: lines.join('\n'), numLines: lines.length, startLine, totalLines } },
    content: text,
  };
}

async function readNotebookFrom(handle: FileHandle, input: ReadInput, ctx: ToolCallContext, realPath: string): Promise<ToolOutcome<ReadOutput>> {
  const stat = await handle.stat();
  const chunks: Buffer[] = [];
  for (let pos = 0; ; ) {
    ctx.signal.throwIfAborted();
    const b = Buffer.allocUnsafe(1024 * 1024);
    const r = await handle.read(b, 0, b.length, pos);
    if (r.bytesRead === 0) break;
    chunks.push(b.subarray(0, r.bytesRead));
    pos += r.bytesRead;
  }
  const nb = parseNotebook(decodeText(Buffer.concat(chunks)).text, input.file_path);
  const cells = readCells(nb);
  const blocks = renderCells(cells);
  const chars = blocks.reduce((n, b) => n + (b.type === 'text' ? b.text.length : 0), 0);
  const cap = input.allow_large ? READ_MAX_OUTPUT_CHARS_LARGE : READ_MAX_OUTPUT_CHARS;
  if (chars > cap) {
    throw new Error(
      `Notebook content (~${Math.ceil(chars / 4)} tokens) exceeds maximum allowed tokens (${cap / 4}). Inspect parts of it with Bash and jq (e.g. \`jq '.cells[:10]' ${input.file_path}\`).`,
    );
  }
  ctx.env.fileState.set(realPath, { mtimeMs: stat.mtimeMs, size: stat.size, partial: false });
  return { data: { type: 'notebook', file: { filePath: input.file_path, cells } }, content: blocks };
}

async function readBinaryKind(input: ReadInput, ctx: ToolCallContext, kind: 'image' | 'pdf'): Promise<ToolOutcome<ReadOutput>> {
  const path = input.file_path;
  const { data, stat, realPath } = await readFileVerified(path, { pinnedRealPath: ctx.pinnedRealPath, signal: ctx.signal });
  const base64 = data.toString('base64');
  if (kind === 'pdf') {
    if (data.subarray(0, 5).toString('latin1') !== '%PDF-') throw new Error(`${path} is not a valid PDF (it does not start with %PDF-).`);
    if (data.length > READ_MAX_PDF_BYTES) throw new Error(`PDF is too large (${kb(data.length)}); agentd sends PDFs whole, up to ${kb(READ_MAX_PDF_BYTES)}.`);
    ctx.env.fileState.set(realPath, { mtimeMs: stat.mtimeMs, size: stat.size, partial: false });
    const doc: DocumentBlock = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: base64 } };
    return { data: { type: 'pdf', file: { filePath: path, base64, originalSize: data.length } }, content: [doc] };
  }
  const mediaType = sniffImage(data);
  if (!mediaType) throw new Error(`${path} is not a valid PNG, JPEG, GIF or WebP image (its first bytes do not match any of them).`);
  if (data.length > READ_MAX_IMAGE_BYTES) {
    throw new Error(`Image is too large (${kb(data.length)}): the API accepts at most ${kb(READ_MAX_IMAGE_BYTES)} per image and agentd does not resize images.`);
  }
  ctx.env.fileState.set(realPath, { mtimeMs: stat.mtimeMs, size: stat.size, partial: false });
  const block: ImageBlock = { type: 'image', source: { type: 'base64', media_type: mediaType, data: base64 } };
  return { data: { type: 'image', file: { base64, type: mediaType, originalSize: data.length } }, content: [block] };
}

/** Turns fs errors into the messages the model should see. */
function explain(e: unknown, input: ReadInput, cwd: string): never {
  const code = fsErrorCode(e);
  if (code === 'ENOENT') throw new Error(fileDoesNotExist(cwd));
  if (e instanceof NotRegularFileError || code === 'EISDIR') {
    throw new Error(`${input.file_path} is not a regular file${e instanceof NotRegularFileError && e.kind === 'directory' ? ' (it is a directory)' : ''}. List directories with Glob or Bash (ls).`);
  }
  if (code === 'EACCES' || code === 'EPERM') throw new Error(`Permission denied reading ${input.file_path}.`);
  throw e;
}

export function createReadTool(): Tool<ReadInput, ReadOutput> {
  return {
    name: 'Read',
    description: DESCRIPTION,
    inputSchema: ReadInput,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: 'cancel',
    validateInput: (input, { shared }) => validate(input, shared.cwd),
    permissionSubject: (input) => ({ kind: 'read', path: input.file_path }),
    async call(input, ctx) {
      try {
        const e = ext(input.file_path);
        if (IMAGE_EXTENSIONS.has(e)) return await readBinaryKind(input, ctx, 'image');
        if (e === 'pdf') return await readBinaryKind(input, ctx, 'pdf');
        return await readText(input, ctx);
      } catch (err) {
        return explain(err, input, ctx.shared.cwd);
      }
    },
  };
}

