// Writing files the permission layer approved. A write never goes *through* a link: the new content is written to
// a temporary file beside the approved name, which is then renamed over it (Claude Code 2.1.330 does the same,
// measured in test/measure/links-annotations.measure.ts). So
//  - a hard link to the file (`src/cfg` sharing its inode with `.git/config`, or a name inside the project for a
//    file outside it) is replaced by a new file under the written name; the other names keep the old content;
//  - a symbolic link swapped in at the approved name after the check is replaced, never followed;
//  - a reader (or a crash) never sees half a file.
// The replacement keeps the file's permission bits and, where the process may, its owner and group (set-user-ID,
// set-group-ID and sticky bits are dropped, as the kernel drops them on an in-place write by a non-owner). Where a
// replacement is impossible (a directory the process may not write, a bind-mounted file: EACCES, EPERM, EBUSY,
// EXDEV, ENAMETOOLONG) the content is written in place through a verified descriptor, as Claude Code does, but
// never into a file with other names (HardLinkedFileError).
// Every operation goes through a descriptor of the approved directory (/proc/self/fd/N/name), so a symlink swapped
// into the directory chain after the permission check cannot move the write elsewhere.
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { NotRegularFileError, type OpenVerifiedOptions, PathChangedError, type VerifiedContent, fdRealPath, fsErrorCode, readAll, writeAll } from './fs-safe.js';

/** In-place fallback refused: the file has other names, which an in-place write would change too. */
export class HardLinkedFileError extends Error {
  readonly code = 'EMLINK';
  constructor(
    readonly path: string,
    readonly links: number,
  ) {
    // Claude Code's wording (models are trained on it).
    super(
      `Could not rewrite ${path} in place: this file has other names on disk (it is hard-linked, ${links} names in all), and writing it in place would change the file under every one of those names. Remove the extra links, then try again.`,
    );
    this.name = 'HardLinkedFileError';
  }
}

export interface WriteVerifiedOptions extends OpenVerifiedOptions {
  pinnedRealPath?: string;
  /** mkdir -p the parent directory when the file does not exist. */
  createParents?: boolean;
  /**
   * Called with the file's current content after it was opened and before anything is written (undefined when
   * this call creates the file). Throwing aborts the write; an existing file is left as it was.
   */
  beforeWrite?: (existing: VerifiedContent | undefined) => void | Promise<void>;
  signal?: AbortSignal;
  /** true forces the in-place fallback (tests: as root no directory refuses a temporary file). */
  inPlace?: boolean;
}

export interface WriteVerifiedResult {
  created: boolean;
  /** The content before the write (undefined for a created file). */
  previous: Buffer | undefined;
  /** fstat of the file now at the name. */
  stat: Stats;
  realPath: string;
}

export interface UpdateVerifiedResult {
  previous: Buffer;
  next: Buffer;
  stat: Stats;
  realPath: string;
}

/** Errors on which a replacement is impossible but an in-place write may still work. */
const IN_PLACE_CODES: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'EBUSY', 'EXDEV', 'ENAMETOOLONG', 'EROFS']);

/**
 * The real path `path` names now: symlinks resolved (a dangling one by its target), components that do not exist
 * appended to the real path of the deepest existing ancestor.
 */
async function resolveNow(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    // Missing, or a dangling symlink: follow the links by hand.
  }
  let leaf = path;
  for (let depth = 0; depth < 40; depth++) {
    const st = await lstat(leaf).catch(() => undefined);
    if (!st?.isSymbolicLink()) break;
    leaf = resolve(dirname(leaf), await readlink(leaf));
  }
  const rest = [basename(leaf)];
  for (let d = dirname(leaf); ; d = dirname(d)) {
    try {
      return join(await realpath(d), ...[...rest].reverse());
    } catch {
      if (dirname(d) === d) return leaf;
      rest.push(basename(d));
    }
  }
}

interface DirRef {
  handle: FileHandle;
  /** The path of `name` inside the verified directory. */
  at(name: string): string;
}

/** Opens the approved directory and checks it is the one approved (not a symlink swapped into the chain). */
async function openDir(dirPath: string, target: string, path: string, opts: OpenVerifiedOptions): Promise<DirRef> {
  const handle = await open(dirPath, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const via = await fdRealPath(handle, opts.procFs);
    if (via !== undefined) {
      if (via !== dirPath) throw new PathChangedError(path, target, join(via, basename(target)), 'written');
      return { handle, at: (name) => `/proc/self/fd/${handle.fd}/${name}` };
    }
    // Without /proc: the descriptor must be the directory the path names itself (lstat: not a symlink to one).
    const [st, named] = [await handle.stat(), await lstat(dirPath).catch(() => undefined)];
    if (!named || named.dev !== st.dev || named.ino !== st.ino) throw new PathChangedError(path, target, undefined, 'written');
    return { handle, at: (name) => join(dirPath, name) };
  } catch (e) {
    await handle.close().catch(() => undefined);
    throw e;
  }
}

interface Existing {
  handle: FileHandle;
  stat: Stats;
}

/** Opens the file at the name without following a link; undefined when there is none. */
async function openExisting(dir: DirRef, name: string, path: string, target: string): Promise<Existing | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(dir.at(name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    const code = fsErrorCode(e);
    if (code === 'ENOENT') return undefined;
    // A symbolic link now stands at the approved name.
    if (code === 'ELOOP') throw new PathChangedError(path, target, undefined, 'written');
    throw e;
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close().catch(() => undefined);
    throw new NotRegularFileError(path, stat.isDirectory() ? 'directory' : 'other');
  }
  return { handle, stat };
}

type Produce = (existing: VerifiedContent | undefined) => Buffer | Promise<Buffer>;
type Committed = { created: boolean; previous: Buffer | undefined; next: Buffer; stat: Stats; realPath: string };

async function createNew(dir: DirRef, name: string, produce: Produce, opts: WriteVerifiedOptions, target: string): Promise<Committed | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(dir.at(name), constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NONBLOCK, opts.mode ?? 0o666);
  } catch (e) {
    if (fsErrorCode(e) === 'EEXIST') return undefined; // created meanwhile: replace it instead
    throw e;
  }
  try {
    const next = await produce(undefined);
    opts.signal?.throwIfAborted();
    await writeAll(handle, next);
    return { created: true, previous: undefined, next, stat: await handle.stat(), realPath: target };
  } catch (e) {
    // Nothing of a refused creation is left behind (if the name still holds the file this call created).
    const mine = await handle.stat().catch(() => undefined);
    const now = await lstat(dir.at(name)).catch(() => undefined);
    if (mine && now && mine.ino === now.ino && mine.dev === now.dev) await unlink(dir.at(name)).catch(() => undefined);
    throw e;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function tempName(name: string): string {
  const tag = randomBytes(4).toString('hex');
  return name.length > 200 ? `.agentd-${tag}.tmp` : `.${name}.agentd-${tag}.tmp`;
}

async function replaceExisting(dir: DirRef, name: string, ex: Existing, produce: Produce, opts: WriteVerifiedOptions, path: string, target: string): Promise<Committed> {
  const previous = await readAll(ex.handle, ex.stat.size, opts.signal);
  const next = await produce({ data: previous, stat: ex.stat, realPath: target });
  opts.signal?.throwIfAborted();
  if (opts.inPlace) return inPlace(dir, name, ex, previous, next, path, target);
  const tmpName = tempName(name);
  let tmp: FileHandle;
  try {
    tmp = await open(dir.at(tmpName), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  } catch (e) {
    if (IN_PLACE_CODES.has(fsErrorCode(e) ?? '')) return inPlace(dir, name, ex, previous, next, path, target);
    throw e;
  }
  let renamed = false;
  try {
    await writeAll(tmp, next);
    await tmp.chmod(ex.stat.mode & 0o777);
    // The new file is ours; give it the old one's owner and group where the process may (root may; others keep theirs).
    const own = await tmp.stat();
    if (own.uid !== ex.stat.uid || own.gid !== ex.stat.gid) await tmp.chown(ex.stat.uid, ex.stat.gid).catch(() => undefined);
    const stat = await tmp.stat();
    // The name must still hold the file that was read (and checked for freshness): nothing else is replaced.
    const now = await lstat(dir.at(name)).catch(() => undefined);
    if (!now || now.ino !== ex.stat.ino || now.dev !== ex.stat.dev) throw new PathChangedError(path, target, undefined, 'written');
    opts.signal?.throwIfAborted();
    try {
      await rename(dir.at(tmpName), dir.at(name));
      renamed = true;
    } catch (e) {
      if (IN_PLACE_CODES.has(fsErrorCode(e) ?? '')) return await inPlace(dir, name, ex, previous, next, path, target);
      throw e;
    }
    return { created: false, previous, next, stat, realPath: target };
  } finally {
    await tmp.close().catch(() => undefined);
    if (!renamed) await unlink(dir.at(tmpName)).catch(() => undefined);
  }
}

/** The fallback: write through a descriptor of the very file that was read, unless it has other names. */
async function inPlace(dir: DirRef, name: string, ex: Existing, previous: Buffer, next: Buffer, path: string, target: string): Promise<Committed> {
  if (ex.stat.nlink > 1) throw new HardLinkedFileError(path, ex.stat.nlink);
  const handle = await open(dir.at(name), constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const st = await handle.stat();
    if (st.ino !== ex.stat.ino || st.dev !== ex.stat.dev) throw new PathChangedError(path, target, undefined, 'written');
    if (st.nlink > 1) throw new HardLinkedFileError(path, st.nlink);
    await writeAll(handle, next);
    return { created: false, previous, next, stat: await handle.stat(), realPath: target };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

async function commit(path: string, opts: WriteVerifiedOptions, produce: Produce, create: boolean): Promise<Committed> {
  const now = await resolveNow(path);
  if (opts.pinnedRealPath !== undefined && now !== opts.pinnedRealPath) throw new PathChangedError(path, opts.pinnedRealPath, now, 'written');
  const target = opts.pinnedRealPath ?? now;
  const dirPath = dirname(target);
  const name = basename(target);
  if (create && opts.createParents) await mkdir(dirPath, { recursive: true });
  const dir = await openDir(dirPath, target, path, opts);
  try {
    for (let attempt = 0; attempt < 4; attempt++) {
      const ex = await openExisting(dir, name, path, target);
      if (!ex) {
        if (!create) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT', path });
        const made = await createNew(dir, name, produce, opts, target);
        if (made) return made;
        continue;
      }
      try {
        return await replaceExisting(dir, name, ex, produce, opts, path, target);
      } finally {
        await ex.handle.close().catch(() => undefined);
      }
    }
    throw new Error(`${path}: could not open for writing (it keeps appearing and disappearing)`);
  } finally {
    await dir.handle.close().catch(() => undefined);
  }
}

/** Creates or replaces a file (see the top of this file); `beforeWrite` inspects the current content first. */
export async function writeFileVerified(path: string, data: string | Buffer, opts: WriteVerifiedOptions = {}): Promise<WriteVerifiedResult> {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const r = await commit(
    path,
    opts,
    async (existing) => {
      await opts.beforeWrite?.(existing);
      return bytes;
    },
    true,
  );
  return { created: r.created, previous: r.previous, stat: r.stat, realPath: r.realPath };
}

/**
 * Read-modify-write of an existing file: `transform` sees the current content and returns the new one, which
 * replaces the file. Throwing from it leaves the file untouched.
 */
export async function updateFileVerified(
  path: string,
  transform: (current: VerifiedContent) => string | Buffer | Promise<string | Buffer>,
  opts: Omit<WriteVerifiedOptions, 'createParents' | 'beforeWrite'> = {},
): Promise<UpdateVerifiedResult> {
  const r = await commit(
    path,
    opts,
    async (existing) => {
      // commit() never creates for an update, so the file exists here.
      const out = await transform(existing as VerifiedContent);
      return typeof out === 'string' ? Buffer.from(out, 'utf8') : out;
    },
    false,
  );
  return { previous: r.previous as Buffer, next: r.next, stat: r.stat, realPath: r.realPath };
}
