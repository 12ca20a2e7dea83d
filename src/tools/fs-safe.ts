// Opening files the permission layer approved, without a TOCTOU hole. The permission check resolves a path to
// its real path and approves that; a symlink swapped in before the open would redirect the I/O elsewhere. So
// every open is verified afterwards: the descriptor's own real path (/proc/self/fd) must equal the approved one,
// or, where /proc is missing, the descriptor's dev/ino must equal lstat(approved path). Writes replace the file
// rather than write through it (fs-write.ts).
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath } from 'node:fs/promises';

export class PathChangedError extends Error {
  readonly code = 'PATH_CHANGED';
  constructor(
    readonly path: string,
    readonly pinnedRealPath: string,
    readonly actualRealPath: string | undefined,
    action: 'read' | 'written',
  ) {
    super(`${path}: the file changed (symlink swap?) between the permission check and the open; nothing was ${action}`);
    this.name = 'PathChangedError';
  }
}

/** The path names something that is not a regular file (directory, FIFO, device, socket). */
export class NotRegularFileError extends Error {
  readonly code = 'NOT_REGULAR_FILE';
  constructor(
    readonly path: string,
    readonly kind: 'directory' | 'other',
  ) {
    super(kind === 'directory' ? `${path} is a directory, not a file` : `${path} is not a regular file (FIFO, device or socket)`);
    this.name = 'NotRegularFileError';
  }
}

export interface OpenVerifiedOptions {
  /** Mode for a newly created file. */
  mode?: number;
  /** false forces the dev/ino fallback (tests; platforms without /proc). Default: use /proc when present. */
  procFs?: boolean;
}

export interface VerifiedHandle {
  handle: FileHandle;
  /** The real path of the opened file (from the descriptor when /proc is there). */
  realPath: string;
  stat: Stats;
}

function errno(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

/** The real path of an open descriptor (/proc/self/fd), undefined where /proc is missing or disabled. */
export async function fdRealPath(handle: FileHandle, procFs: boolean | undefined): Promise<string | undefined> {
  if (procFs === false) return undefined;
  try {
    return await readlink(`/proc/self/fd/${handle.fd}`);
  } catch (e) {
    if (procFs === true) throw e;
    return undefined;
  }
}

/**
 * Opens `path` and checks that the descriptor is a regular file and, when `pinnedRealPath` is given, that it is
 * exactly that file. O_NONBLOCK keeps a FIFO planted at the path from hanging the open; it has no effect on
 * regular files. On a mismatch the descriptor is closed and a PathChangedError is thrown.
 */
export async function openVerified(
  path: string,
  flags: number,
  pinnedRealPath?: string,
  opts: OpenVerifiedOptions = {},
): Promise<VerifiedHandle> {
  const handle = await open(path, flags | constants.O_NONBLOCK | constants.O_NOCTTY, opts.mode ?? 0o666);
  try {
    const stat = await handle.stat();
    const viaProc = await fdRealPath(handle, opts.procFs);
    if (pinnedRealPath !== undefined) {
      const writing = (flags & (constants.O_WRONLY | constants.O_RDWR)) !== 0;
      if (viaProc !== undefined) {
        if (viaProc !== pinnedRealPath) throw new PathChangedError(path, pinnedRealPath, viaProc, writing ? 'written' : 'read');
      } else {
        // lstat, not stat: if the approved path itself became a symlink, its own inode differs from the file's.
        const pinned = await lstat(pinnedRealPath).catch(() => undefined);
        if (!pinned || pinned.dev !== stat.dev || pinned.ino !== stat.ino) {
          throw new PathChangedError(path, pinnedRealPath, undefined, writing ? 'written' : 'read');
        }
      }
    }
    if (!stat.isFile()) throw new NotRegularFileError(path, stat.isDirectory() ? 'directory' : 'other');
    const realPath = viaProc ?? pinnedRealPath ?? (await realpath(path).catch(() => path));
    return { handle, realPath, stat };
  } catch (e) {
    await handle.close().catch(() => undefined);
    throw e;
  }
}

/** The whole content of an open file, read by chunks from offset 0. */
export async function readAll(handle: FileHandle, size: number, signal?: AbortSignal): Promise<Buffer> {
  // Read by chunks rather than trusting st_size alone: files can grow while being read (logs).
  const chunks: Buffer[] = [];
  let pos = 0;
  let chunkSize = Math.min(Math.max(size + 1, 64 * 1024), 4 * 1024 * 1024);
  for (;;) {
    signal?.throwIfAborted();
    const buf = Buffer.allocUnsafe(chunkSize);
    const { bytesRead } = await handle.read(buf, 0, chunkSize, pos);
    if (bytesRead === 0) break;
    chunks.push(buf.subarray(0, bytesRead));
    pos += bytesRead;
    chunkSize = Math.min(chunkSize * 2, 4 * 1024 * 1024);
  }
  return Buffer.concat(chunks, pos);
}

/** Writes `data` at offset 0 and cuts the file to its length. */
export async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await handle.write(data, off, data.length - off, off);
    off += bytesWritten;
  }
  // Write first, then cut to length: a reader never sees an empty file in between (unlike truncate-then-write).
  await handle.truncate(data.length);
}

export interface ReadVerifiedOptions extends OpenVerifiedOptions {
  pinnedRealPath?: string;
  signal?: AbortSignal;
}

export interface VerifiedContent {
  data: Buffer;
  stat: Stats;
  realPath: string;
}

/** Reads a whole regular file through a verified descriptor. */
export async function readFileVerified(path: string, opts: ReadVerifiedOptions = {}): Promise<VerifiedContent> {
  const { handle, realPath, stat } = await openVerified(path, constants.O_RDONLY, opts.pinnedRealPath, opts);
  try {
    return { data: await readAll(handle, stat.size, opts.signal), stat, realPath };
  } finally {
    await handle.close();
  }
}

/** errno code of a Node fs error, if any. */
export function fsErrorCode(e: unknown): string | undefined {
  return errno(e);
}
