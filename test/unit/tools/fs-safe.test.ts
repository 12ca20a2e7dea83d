import { execFileSync } from 'node:child_process';
import { constants, chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotRegularFileError, PathChangedError, openVerified, readFileVerified } from '../../../src/tools/fs-safe.js';
import { HardLinkedFileError, updateFileVerified, writeFileVerified } from '../../../src/tools/fs-write.js';
import { createWriteTool } from '../../../src/tools/builtin/write.js';
import { type Sandbox, run, sandbox } from './support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

/** The permission layer's view of a path: what it approves. */
const check = (p: string): string => realpathSync(p);

/** Points `link` somewhere else, as an attacker racing the permission check would. */
function swap(link: string, to: string): void {
  unlinkSync(link);
  symlinkSync(to, link);
}

describe.each([
  { name: 'via /proc/self/fd', procFs: undefined },
  { name: 'via the dev/ino fallback', procFs: false as const },
])('symlink swapped between the permission check and the open ($name)', ({ procFs }) => {
  /** link → approved when the permission check pins it, then swapped to point at secret. */
  function swappedLink(): { approved: string; secret: string; link: string; pinned: string } {
    const approved = join(sb.dir, 'approved.txt');
    const secret = join(sb.dir, 'secret.txt');
    const link = join(sb.dir, 'link.txt');
    writeFileSync(approved, 'approved\n');
    writeFileSync(secret, 'secret\n');
    symlinkSync(approved, link);
    const pinned = check(link);
    swap(link, secret);
    return { approved, secret, link, pinned };
  }

  it('refuses the write and changes neither file', async () => {
    const { approved, secret, link, pinned } = swappedLink();
    const err = await writeFileVerified(link, 'pwned\n', { pinnedRealPath: pinned, ...(procFs === false ? { procFs } : {}) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PathChangedError);
    expect((err as PathChangedError).message).toBe(
      `${link}: the file changed (symlink swap?) between the permission check and the open; nothing was written`,
    );
    expect({ approved: readFileSync(approved, 'utf8'), secret: readFileSync(secret, 'utf8') }).toEqual({ approved: 'approved\n', secret: 'secret\n' });
  });

  it('refuses the read', async () => {
    const { link, pinned } = swappedLink();
    await expect(readFileVerified(link, { pinnedRealPath: pinned, ...(procFs === false ? { procFs } : {}) })).rejects.toThrow(
      'between the permission check and the open; nothing was read',
    );
  });

  it('still opens the approved file when nothing changed', async () => {
    const approved = join(sb.dir, 'approved.txt');
    const link = join(sb.dir, 'link.txt');
    writeFileSync(approved, 'v1\n');
    symlinkSync(approved, link);
    const r = await writeFileVerified(link, 'v2\n', { pinnedRealPath: check(link), ...(procFs === false ? { procFs } : {}) });
    expect({ created: r.created, previous: r.previous?.toString(), realPath: r.realPath, now: readFileSync(approved, 'utf8') }).toEqual({
      created: false,
      previous: 'v1\n',
      realPath: approved,
      now: 'v2\n',
    });
  });

  it('refuses to create a new file through a parent directory swapped for a symlink, and removes what it created', async () => {
    const good = join(sb.dir, 'good');
    const evil = join(sb.dir, 'evil');
    mkdirSync(good);
    mkdirSync(evil);
    const parent = join(sb.dir, 'parent');
    symlinkSync(good, parent);
    const pinned = join(check(parent), 'new.txt'); // the permission layer approves good/new.txt
    swap(parent, evil);
    await expect(
      writeFileVerified(join(parent, 'new.txt'), 'data', { pinnedRealPath: pinned, ...(procFs === false ? { procFs } : {}) }),
    ).rejects.toBeInstanceOf(PathChangedError);
    expect({ good: existsSync(join(good, 'new.txt')), evil: existsSync(join(evil, 'new.txt')) }).toEqual({ good: false, evil: false });
  });
});

describe('Write with a pinned real path', () => {
  it('refuses when the symlink is swapped after validation (the permission check) and before the call', async () => {
    const tool = createWriteTool();
    const approved = join(sb.dir, 'notes.txt');
    const secret = join(sb.dir, 'secret.txt');
    const link = join(sb.dir, 'link.txt');
    writeFileSync(secret, 'secret\n');
    symlinkSync(approved, link); // dangling until swapped: Write would create notes.txt
    const input = { file_path: link, content: 'hello\n' };
    // Validation and the permission check happen first...
    expect(await tool.validateInput?.(input, { shared: sb.shared, env: sb.env })).toEqual({ ok: true });
    const pinned = approved;
    // ...then the link is pointed at a file that was never approved.
    swap(link, secret);
    const err = await tool.call(input, sb.ctx({ pinnedRealPath: pinned })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PathChangedError);
    expect({ secret: readFileSync(secret, 'utf8'), approvedExists: existsSync(approved) }).toEqual({ secret: 'secret\n', approvedExists: false });
  });

  it('writes when the pinned path is the file', async () => {
    const target = join(sb.dir, 'a.txt');
    const r = await run(createWriteTool(), { file_path: target, content: 'x' }, sb, { pinnedRealPath: target });
    expect(r.kind).toBe('ok');
    expect(readFileSync(target, 'utf8')).toBe('x');
  });
});

describe('openVerified', () => {
  it('reports the real path of the descriptor and its stat', async () => {
    const f = join(sb.dir, 'f.txt');
    writeFileSync(f, 'abc');
    symlinkSync(f, join(sb.dir, 'l'));
    const v = await openVerified(join(sb.dir, 'l'), constants.O_RDONLY);
    await v.handle.close();
    expect({ realPath: v.realPath, size: v.stat.size }).toEqual({ realPath: f, size: 3 });
  });

  it('refuses a directory', async () => {
    const err = await openVerified(sb.dir, constants.O_RDONLY).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotRegularFileError);
    expect((err as NotRegularFileError).kind).toBe('directory');
  });

  it('refuses a FIFO without blocking on it', async () => {
    const fifo = join(sb.dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const err = await openVerified(fifo, constants.O_RDONLY).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotRegularFileError);
    expect((err as NotRegularFileError).kind).toBe('other');
  });
});

describe('writeFileVerified', () => {
  it('creates parent directories and reports a created file', async () => {
    const f = join(sb.dir, 'a', 'b', 'c.txt');
    const r = await writeFileVerified(f, 'new', { createParents: true });
    expect({ created: r.created, previous: r.previous, realPath: r.realPath, content: readFileSync(f, 'utf8') }).toEqual({
      created: true,
      previous: undefined,
      realPath: f,
      content: 'new',
    });
  });

  it('replaces the file (a new inode): shorter content, the mode kept, no temporary file left', async () => {
    const f = join(sb.dir, 'x.sh');
    writeFileSync(f, 'a long original content\n');
    chmodSync(f, 0o750);
    const before = statSync(f).ino;
    const r = await writeFileVerified(f, 'short\n');
    const after = statSync(f);
    expect({ content: readFileSync(f, 'utf8'), mode: after.mode & 0o777, replaced: after.ino !== before, statIno: r.stat.ino === after.ino, dir: readdirSync(sb.dir) }).toEqual({
      content: 'short\n',
      mode: 0o750,
      replaced: true,
      statIno: true,
      dir: ['x.sh'],
    });
  });

  it('leaves the file untouched when beforeWrite throws', async () => {
    const f = join(sb.dir, 'keep.txt');
    writeFileSync(f, 'original\n');
    await expect(
      writeFileVerified(f, 'replaced\n', {
        beforeWrite: () => {
          throw new Error('stale');
        },
      }),
    ).rejects.toThrow('stale');
    expect(readFileSync(f, 'utf8')).toBe('original\n');
  });

  it('removes a file it created when beforeWrite refuses it', async () => {
    const f = join(sb.dir, 'fresh.txt');
    // beforeWrite sees undefined for a created file; a refusal then must not leave an empty file behind.
    await expect(
      writeFileVerified(f, 'x', {
        beforeWrite: () => {
          throw new Error('no');
        },
      }),
    ).rejects.toThrow('no');
    expect(existsSync(f)).toBe(false);
  });
});

describe('updateFileVerified', () => {
  it('replaces the content through one descriptor and returns both versions', async () => {
    const f = join(sb.dir, 'u.txt');
    writeFileSync(f, 'one two\n');
    const r = await updateFileVerified(f, ({ data }) => data.toString().replace('one', '1'));
    expect({ previous: r.previous.toString(), next: r.next.toString(), disk: readFileSync(f, 'utf8') }).toEqual({
      previous: 'one two\n',
      next: '1 two\n',
      disk: '1 two\n',
    });
  });

  it('fails with ENOENT for a missing file and creates nothing', async () => {
    const f = join(sb.dir, 'missing.txt');
    await expect(updateFileVerified(f, () => 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(existsSync(f)).toBe(false);
    rmSync(f, { force: true });
  });
});

describe('a write never goes through a link', () => {
  /** name → [is a symlink, inode, link count, content] */
  const state = (names: string[]) =>
    Object.fromEntries(names.map((n) => {
      const p = join(sb.dir, n);
      const l = lstatSync(p);
      return [n, { symlink: l.isSymbolicLink(), nlink: l.nlink, content: l.isSymbolicLink() ? `-> ${realpathSync(p)}` : readFileSync(p, 'utf8') }];
    }));

  it('a hard-linked file is replaced under the written name; the other name keeps the old content', async () => {
    writeFileSync(join(sb.dir, 'a.txt'), 'old\n');
    linkSync(join(sb.dir, 'a.txt'), join(sb.dir, 'b.txt'));
    await writeFileVerified(join(sb.dir, 'a.txt'), 'new\n', { pinnedRealPath: join(sb.dir, 'a.txt') });
    expect(state(['a.txt', 'b.txt'])).toEqual({ 'a.txt': { symlink: false, nlink: 1, content: 'new\n' }, 'b.txt': { symlink: false, nlink: 1, content: 'old\n' } });
  });

  it('an update of a hard link to a protected file leaves the protected file as it was', async () => {
    mkdirSync(join(sb.dir, '.git'));
    mkdirSync(join(sb.dir, 'src'));
    writeFileSync(join(sb.dir, '.git/config'), '[core]\n\tbare = false\n');
    linkSync(join(sb.dir, '.git/config'), join(sb.dir, 'src/cfg'));
    const r = await updateFileVerified(join(sb.dir, 'src/cfg'), ({ data }) => data.toString().replace('bare = false', 'fsmonitor = touch pwned'));
    expect({ ...state(['.git/config', 'src/cfg']), previous: r.previous.toString() }).toEqual({
      '.git/config': { symlink: false, nlink: 1, content: '[core]\n\tbare = false\n' },
      'src/cfg': { symlink: false, nlink: 1, content: '[core]\n\tfsmonitor = touch pwned\n' },
      previous: '[core]\n\tbare = false\n',
    });
  });

  it('a symlink swapped in at the approved name is replaced, not followed', async () => {
    const approved = join(sb.dir, 'approved.txt');
    writeFileSync(approved, 'v1\n');
    writeFileSync(join(sb.dir, 'secret.txt'), 'secret\n');
    // Read, checked and pinned as approved.txt; then approved.txt becomes a link to secret.txt before the write.
    const err = await writeFileVerified(approved, 'v2\n', {
      pinnedRealPath: approved,
      beforeWrite: () => {
        unlinkSync(approved);
        symlinkSync(join(sb.dir, 'secret.txt'), approved);
      },
    }).catch((e: unknown) => e);
    expect({ err: err instanceof PathChangedError, secret: readFileSync(join(sb.dir, 'secret.txt'), 'utf8') }).toEqual({ err: true, secret: 'secret\n' });
  });

  it('the in-place fallback writes through the descriptor it read, and refuses a file with other names', async () => {
    writeFileSync(join(sb.dir, 'a.txt'), 'old\n');
    writeFileSync(join(sb.dir, 'single.txt'), 'old\n');
    linkSync(join(sb.dir, 'a.txt'), join(sb.dir, 'b.txt'));
    const single = statSync(join(sb.dir, 'single.txt')).ino;
    const err = await writeFileVerified(join(sb.dir, 'a.txt'), 'new\n', { inPlace: true }).catch((e: unknown) => e);
    await writeFileVerified(join(sb.dir, 'single.txt'), 'new\n', { inPlace: true });
    expect({
      err: err instanceof HardLinkedFileError ? { code: err.code, message: err.message } : err,
      ...state(['a.txt', 'b.txt', 'single.txt']),
      sameInode: statSync(join(sb.dir, 'single.txt')).ino === single,
    }).toEqual({
      err: {
        code: 'EMLINK',
        message: `Could not rewrite ${join(sb.dir, 'a.txt')} in place: this file has other names on disk (it is hard-linked, 2 names in all), and writing it in place would change the file under every one of those names. Remove the extra links, then try again.`,
      },
      'a.txt': { symlink: false, nlink: 2, content: 'old\n' },
      'b.txt': { symlink: false, nlink: 2, content: 'old\n' },
      'single.txt': { symlink: false, nlink: 1, content: 'new\n' },
      sameInode: true,
    });
  });
});
