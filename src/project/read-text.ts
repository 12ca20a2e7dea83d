// Reads a project text file (memory file, output style) with a byte cap: a huge file costs one bounded read,
// a binary one (a NUL byte in it) is refused, an unreadable one reported. A missing file or a directory is
// simply absent.
// node:fs's callback API, promisified: node:fs/promises (and the readline modules it pulls in) would be loaded
// at start-up only for this, and initialize reads memory files (BENCHMARKS.md, start-up).
import { close, fstat, open, read } from 'node:fs';
import { promisify } from 'node:util';

const openP = promisify(open);
const fstatP = promisify(fstat);
const readP = promisify(read);
const closeP = promisify(close);

export type TextRead =
  | { kind: 'ok'; text: string; truncatedFrom?: number }
  | { kind: 'absent' }
  | { kind: 'binary' }
  | { kind: 'unreadable'; reason: string };

export async function readTextCapped(path: string, maxBytes: number): Promise<TextRead> {
  let fd: number;
  try {
    fd = await openP(path, 'r');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'absent' };
    return { kind: 'unreadable', reason: code ?? String(e) };
  }
  try {
    const st = await fstatP(fd);
    if (!st.isFile()) return { kind: 'absent' };
    const n = Math.min(st.size, maxBytes);
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const { bytesRead } = await readP(fd, buf, got, n - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    const bytes = buf.subarray(0, got);
    if (bytes.includes(0)) return { kind: 'binary' };
    // A cut in the middle of a UTF-8 sequence decodes to one replacement character at the end: harmless.
    const text = bytes.toString('utf8');
    return st.size > maxBytes ? { kind: 'ok', text, truncatedFrom: st.size } : { kind: 'ok', text };
  } catch (e) {
    return { kind: 'unreadable', reason: (e as NodeJS.ErrnoException).code ?? String(e) };
  } finally {
    await closeP(fd).catch(() => undefined);
  }
}
