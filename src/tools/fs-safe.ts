// Opening files the permission layer approved, without a TOCTOU hole. The permission check resolves a path to
// its real path and approves that; a symlink swapped in before the open would redirect the I/O elsewhere. So
// every open is verified afterwards: the descriptor's own real path (/proc/self/fd) must equal the approved one,
// or, where /proc is missing, the descriptor's dev/ino must equal lstat(approved path). Writes open without
// O_TRUNC so a refused open has changed nothing; truncation happens through the verified descriptor.
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

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

async function fdRealPath(handle: FileHandle, procFs: boolean | undefined): Promise<string | undefined> {
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

async function readAll(handle: FileHandle, size: number, signal?: AbortSignal): Promise<Buffer> {
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

async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
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

export interface WriteVerifiedOptions extends OpenVerifiedOptions {
  pinnedRealPath?: string;
  /** mkdir -p the parent directory when the file does not exist. */
  createParents?: boolean;
  /**
   * Called after the verified open and before anything is written, with the file's current content
   * (undefined when this call created the file). Throwing aborts the write; an existing file is left as it was.
   */
  beforeWrite?: (existing: VerifiedContent | undefined) => void | Promise<void>;
  signal?: AbortSignal;
}

export interface WriteVerifiedResult {
  created: boolean;
  /** The content before the write (undefined for a created file). */
  previous: Buffer | undefined;
  /** fstat after the write. */
  stat: Stats;
  realPath: string;
}

async function openForWrite(path: string, opts: WriteVerifiedOptions): Promise<VerifiedHandle & { created: boolean }> {
  // Open the existing file first (no O_CREAT): that is how we know whether this call created it. A race with a
  // concurrent creator (EEXIST) or deleter (ENOENT) is retried a few times.
  for (let attempt = 0; attempt < 4; attempt++) {
    try {
      return { ...(await openVerified(path, constants.O_RDWR, opts.pinnedRealPath, opts)), created: false };
    } catch (e) {
      if (errno(e) !== 'ENOENT') throw e;
    }
    if (opts.createParents) await mkdir(dirname(path), { recursive: true });
    let created: VerifiedHandle;
    try {
      created = await openVerified(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, undefined, opts);
    } catch (e) {
      if (errno(e) === 'EEXIST') continue;
      throw e;
    }
    if (opts.pinnedRealPath !== undefined && created.realPath !== opts.pinnedRealPath) {
      await discardCreated(created);
      throw new PathChangedError(path, opts.pinnedRealPath, created.realPath, 'written');
    }
    if (opts.pinnedRealPath !== undefined && opts.procFs === false) {
      // Without /proc the created file's path is unknown: compare inodes with the pinned path instead.
      const pinned = await lstat(opts.pinnedRealPath).catch(() => undefined);
      if (!pinned || pinned.ino !== created.stat.ino || pinned.dev !== created.stat.dev) {
        await created.handle.close().catch(() => undefined);
        throw new PathChangedError(path, opts.pinnedRealPath, undefined, 'written');
      }
    }
    return { ...created, created: true };
  }
  throw new Error(`${path}: could not open for writing (it keeps appearing and disappearing, or is a dangling symbolic link)`);
}

/** Removes an empty file this call created in the wrong place, if it is still that very file. */
async function discardCreated(v: VerifiedHandle): Promise<void> {
  try {
    const now = await lstat(v.realPath);
    if (now.ino === v.stat.ino && now.dev === v.stat.dev && now.size === 0) await unlink(v.realPath);
  } catch {
    // Best effort: the file is empty either way.
  } finally {
    await v.handle.close().catch(() => undefined);
  }
}

/**
 * Creates or overwrites a file through a verified descriptor: open without O_TRUNC, verify, let `beforeWrite`
 * inspect the current content, then write and truncate through the descriptor.
 */
export async function writeFileVerified(
  path: string,
  data: string | Buffer,
  opts: WriteVerifiedOptions = {},
): Promise<WriteVerifiedResult> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const v = await openForWrite(path, opts);
  try {
    const previous = v.created ? undefined : await readAll(v.handle, v.stat.size, opts.signal);
    await opts.beforeWrite?.(previous === undefined ? undefined : { data: previous, stat: v.stat, realPath: v.realPath });
    opts.signal?.throwIfAborted();
    await writeAll(v.handle, bytes);
    return { created: v.created, previous, stat: await v.handle.stat(), realPath: v.realPath };
  } catch (e) {
    if (v.created) await discardCreated(v);
    throw e;
  } finally {
    await v.handle.close().catch(() => undefined);
  }
}

export interface UpdateVerifiedResult {
  previous: Buffer;
  next: Buffer;
  stat: Stats;
  realPath: string;
}

/**
 * Read-modify-write of an existing file through one verified descriptor. `transform` sees the current content
 * and returns the new one; throwing from it leaves the file untouched.
 */
export async function updateFileVerified(
  path: string,
  transform: (current: VerifiedContent) => string | Buffer | Promise<string | Buffer>,
  opts: ReadVerifiedOptions = {},
): Promise<UpdateVerifiedResult> {
  const v = await openVerified(path, constants.O_RDWR, opts.pinnedRealPath, opts);
  try {
    const previous = await readAll(v.handle, v.stat.size, opts.signal);
    const out = await transform({ data: previous, stat: v.stat, realPath: v.realPath });
    const next = typeof out === 'string' ? Buffer.from(out, 'utf8') : out;
    opts.signal?.throwIfAborted();
    await writeAll(v.handle, next);
    return { previous, next, stat: await v.handle.stat(), realPath: v.realPath };
  } finally {
    await v.handle.close().catch(() => undefined);
  }
}

/** errno code of a Node fs error, if any. */
export function fsErrorCode(e: unknown): string | undefined {
  return errno(e);
}
