// What the file tools share: path checks, Claude Code's precondition messages (models are trained on them, so
// the wording is kept), text decoding that round-trips encodings and line endings, binary sniffing.
import type { Stats } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { extname, isAbsolute, resolve } from 'node:path';
import type { FileStateCache } from '../file-state.js';
import { fsErrorCode } from '../fs-safe.js';
import type { ValidationResult } from '../tool.js';

export const MSG_NOT_READ = 'File has not been read yet. Read it first before writing to it.';
export const MSG_MODIFIED =
  'File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.';
export const STATE_CURRENT = '(file state is current in your context — no need to Read it back)';

export function fileDoesNotExist(cwd: string): string {
  return `File does not exist. Note: your current working directory is ${cwd}.`;
}

export function requireAbsolute(field: string, path: string, cwd: string): ValidationResult {
  if (isAbsolute(path)) return { ok: true };
  return {
    ok: false,
    message: `${field} must be an absolute path, not a relative one: "${path}". Did you mean "${resolve(cwd, path)}"?`,
  };
}

/** stat() that returns undefined for a missing path (and rethrows anything else). */
export async function statIfExists(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (e) {
    const code = fsErrorCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw e;
  }
}

export async function realPathOf(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

/**
 * Claude Code's read-before-write rule: an existing file may only be changed after a Read in this session, and
 * only if it has not changed on disk since (mtime). Returns the refusal message, or undefined when allowed.
 */
export function staleness(fileState: FileStateCache, realPath: string, current: Stats): string | undefined {
  const snap = fileState.get(realPath);
  if (!snap) return MSG_NOT_READ;
  if (current.mtimeMs > snap.mtimeMs) return MSG_MODIFIED;
  return undefined;
}

/** staleness as a check: throws the refusal (for a write's last check on the opened file). */
export function assertFresh(fileState: FileStateCache, realPath: string, current: Stats): void {
  const stale = staleness(fileState, realPath, current);
  if (stale) throw new Error(stale);
}

/** What Write, Edit and NotebookEdit share: they change files, so they run alone and finish once started. */
export const FILE_WRITER = {
  isConcurrencySafe: (): boolean => false,
  isReadOnly: (): boolean => false,
  interruptBehavior: 'block',
} as const;

export type TextEncodingName = 'utf8' | 'utf16le';

export interface DecodedText {
  /** The text with CRLF turned into LF (what the model sees and edits). */
  text: string;
  encoding: TextEncodingName;
  lineEnding: 'LF' | 'CRLF';
}

export function decodeText(buf: Buffer): DecodedText {
  const utf16 = buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe;
  const raw = utf16 ? buf.subarray(2).toString('utf16le') : buf.toString('utf8');
  const crlf = raw.includes('\r\n');
  // A file is CRLF when most of its line breaks are; the model then edits LF text and we convert back.
  const lineEnding = crlf && count(raw, '\r\n') * 2 >= count(raw, '\n') ? 'CRLF' : 'LF';
  return { text: lineEnding === 'CRLF' ? raw.replaceAll('\r\n', '\n') : raw, encoding: utf16 ? 'utf16le' : 'utf8', lineEnding };
}

/** The file's text exactly as stored (line endings kept), for originalFile fields. */
export function rawText(buf: Buffer): string {
  const utf16 = buf.length >= 2 && buf[0] === 0xff && buf[1] === 0xfe;
  return utf16 ? buf.subarray(2).toString('utf16le') : buf.toString('utf8');
}

export function encodeText(text: string, enc: { encoding: TextEncodingName; lineEnding: 'LF' | 'CRLF' }): Buffer {
  const withEndings = enc.lineEnding === 'CRLF' ? text.replace(/\r?\n/g, '\r\n') : text;
  if (enc.encoding === 'utf16le') return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(withEndings, 'utf16le')]);
  return Buffer.from(withEndings, 'utf8');
}

function count(s: string, sub: string): number {
  let n = 0;
  for (let i = s.indexOf(sub); i !== -1; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

export { count as countOccurrences };

/** Extensions that are never text; reading them as text only wastes the model's context. */
const BINARY_EXTENSIONS = new Set(
  (
    'exe dll so dylib o a obj lib bin class jar war ear pyc pyo wasm node ' +
    'zip gz tgz bz2 xz zst 7z rar tar lz4 lzma cab deb rpm dmg iso img apk ipa ' +
    'mp3 mp4 m4a m4v wav flac ogg oga opus aac wma avi mov mkv webm wmv flv mpg mpeg ' +
    'bmp ico icns tif tiff psd ai heic heif avif raw cr2 nef ' +
    'ttf otf woff woff2 eot ' +
    'sqlite sqlite3 db mdb accdb dat pak ' +
    'doc docx xls xlsx ppt pptx odt ods odp pages numbers key'
  ).split(' '),
);

export function binaryExtension(path: string): string | undefined {
  const ext = extname(path).slice(1).toLowerCase();
  return BINARY_EXTENSIONS.has(ext) ? ext : undefined;
}

/** A NUL byte in the first 8 KiB means binary (git's and ripgrep's heuristic). UTF-16 with a BOM is text. */
export function looksBinary(head: Buffer): boolean {
  if (head.length >= 2 && head[0] === 0xff && head[1] === 0xfe) return false;
  return head.subarray(0, 8192).includes(0);
}
