// OutputFile: a command's output written to a file and read back: the model's text (head and tail, exact
// against decoding everything), the file kept only when the text is cut, live output read on demand.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputFile } from '../../../src/tools/shell/output-file.js';
import { escapedSize, sanitizeOutput } from '../../../src/tools/shell/output.js';
import { prefixWithin, suffixWithin } from '../../../src/tools/shell/text.js';

const dir = mkdtempSync(join(tmpdir(), 'agentd-output-file-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function open(): OutputFile {
  return new OutputFile(join(dir, `out-${n++}.log`));
}

function write(f: OutputFile, data: string | Uint8Array): void {
  const b = typeof data === 'string' ? Buffer.from(data) : data;
  let at = 0;
  while (at < b.length) at += writeSync(f.writeFd, b, at, b.length - at);
}

describe('OutputFile', () => {
  it('returns small output whole and removes the file', () => {
    const f = open();
    write(f, 'hello\n');
    write(f, 'world\n');
    f.releaseWriter();
    expect(f.collect(2000)).toEqual({ text: 'hello\nworld\n', truncated: false, totalBytes: 12 });
    expect(existsSync(f.path)).toBe(false);
    f.close();
  });

  it('keeps the file, with every byte, when the text is cut, and names it', () => {
    const f = open();
    const all = Array.from({ length: 20_000 }, (_, i) => `line ${i}\n`).join('');
    write(f, all);
    const out = f.collect(2000);
    f.close();
    expect(out.truncated).toBe(true);
    expect(out.spillPath).toBe(f.path);
    expect(out.totalBytes).toBe(Buffer.byteLength(all));
    expect(readFileSync(f.path, 'utf8')).toBe(all);
    expect(out.text.startsWith('line 0\nline 1\n')).toBe(true);
    expect(out.text.endsWith('line 19998\nline 19999\n')).toBe(true);
    expect(out.text).toContain(`; the full output is in ${f.path}] ...`);
    expect(escapedSize(out.text)).toBeLessThanOrEqual(2000);
  });

  it('leaves no remnant of an escape sequence cut where the tail starts (an escape storm)', () => {
    const unit = '\x1b[31mword \x1b]0;title\x07\x1b]8;;http://x\x1b\\\x1b[2K\x1b[1G';
    for (const reps of [1728, 1729, 1730, 1731, 3000]) {
      const f = open();
      write(f, unit.repeat(reps));
      const out = f.collect(2000);
      f.close();
      expect(out.truncated).toBe(true);
      expect(out.text.slice(out.text.indexOf('] ...\n\n') + 7)).toMatch(/^(word )+$/);
    }
  });

  it('removes the file when closed without being collected (a command that never started)', () => {
    const f = open();
    f.close();
    expect(existsSync(f.path)).toBe(false);
  });

  it('will not open over an existing file or through a symlink', () => {
    const taken = join(dir, 'taken.log');
    writeFileSync(taken, 'x');
    expect(() => new OutputFile(taken)).toThrow(/EEXIST/);
    const link = join(dir, 'link.log');
    symlinkSync(join(dir, 'elsewhere.log'), link);
    expect(() => new OutputFile(link)).toThrow(/EEXIST/);
    expect(existsSync(join(dir, 'elsewhere.log'))).toBe(false);
  });

  it('gives live output on demand: the newest text since the last take, an unfinished end kept for later', () => {
    const f = open();
    write(f, 'one\x1b[1m\n');
    write(f, 'two\n\x1b[3');
    expect(f.take(100)).toEqual({ text: 'one\ntwo\n', skippedBytes: 0 });
    write(f, '1mred');
    write(f, Buffer.from([0xe2, 0x82])); // the first two bytes of €
    expect(f.take(100)).toEqual({ text: 'red', skippedBytes: 0 });
    write(f, Buffer.from([0xac]));
    expect(f.take(100)).toEqual({ text: '€', skippedBytes: 0 });
    expect(f.take(100)).toEqual({ text: '', skippedBytes: 0 });
    write(f, '0123456789');
    expect(f.take(4)).toEqual({ text: '6789', skippedBytes: 6 });
    write(f, 'end\x1b[');
    f.collect(2000);
    // Once the command ended, the last take includes what was still waiting.
    expect(f.take(100)).toEqual({ text: 'end[', skippedBytes: 0 });
    f.close();
  });

  it('keeps the live output not yet taken for a take after close (the executor flushes after the call)', () => {
    const f = open();
    write(f, 'first\n');
    expect(f.take(100)).toEqual({ text: 'first\n', skippedBytes: 0 });
    write(f, 'last\n');
    f.collect(2000);
    f.close();
    expect(f.take(100)).toEqual({ text: 'last\n', skippedBytes: 0 });
    expect(f.take(100)).toEqual({ text: '', skippedBytes: 0 });

    const g = open();
    write(g, 'x'.repeat(100_000));
    g.collect(2000);
    g.close();
    expect(g.take(10)).toEqual({ text: 'x'.repeat(10), skippedBytes: 100_000 - 10 });
  });

  it('reads only the newest live output, counting the rest as skipped', () => {
    const f = open();
    for (let i = 0; i < 100; i++) write(f, Buffer.alloc(10_000, 0x61 + (i % 26)));
    expect(f.take(8192)).toEqual({ text: String.fromCharCode(0x61 + (99 % 26)).repeat(8192), skippedBytes: 1_000_000 - 8192 });
    f.collect(2000);
    f.close();
  });
});

describe('collect is exact against decoding everything', () => {
  // Pieces a real command prints: text, multi-byte characters, escape sequences, controls, invalid bytes.
  const piece = fc.oneof(
    fc.constantFrom('word ', 'line\n', '\t"q"\\', 'é', '€', '😀', '\u2028', '\x00', '\x07', '\r\n'),
    fc.constantFrom('\x1b[31m', '\x1b[0m', '\x1b]0;title\x07', '\x1b]8;;http://x\x1b\\', '\x1bM', '\x1b[2K\x1b[1G'),
    fc.constant(Buffer.from([0xff, 0xc3])), // invalid, and a lead byte missing its continuation
  );
  const output = fc
    .tuple(fc.array(piece, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 4000 }))
    .map(([pieces, repeat]) => {
      const unit = Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
      return Buffer.concat(Array.from({ length: repeat }, () => unit));
    });
  const fractions = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 6 });

  /** Writes `bytes` in pieces, taking live output after each, then collects. */
  function run(bytes: Buffer, fs: number[]): { text: string; truncated: boolean; live: string; skipped: number } {
    const f = open();
    const cuts = [...fs.map((x) => Math.floor(x * bytes.length)).sort((a, b) => a - b), bytes.length];
    let live = '';
    let skipped = 0;
    let at = 0;
    for (const cut of cuts) {
      if (cut > at) write(f, bytes.subarray(at, cut));
      at = Math.max(at, cut);
      const t = f.take(8192);
      live += t.text;
      skipped += t.skippedBytes;
    }
    const out = f.collect(2000);
    const t = f.take(8192);
    live += t.text;
    skipped += t.skippedBytes;
    f.close();
    if (out.truncated) expect(readFileSync(f.path).equals(bytes)).toBe(true);
    else expect(existsSync(f.path)).toBe(false);
    return { text: out.text, truncated: out.truncated, live, skipped };
  }

  // The oracle: decode and sanitize everything, then cut head (40% of 1600) and tail (60%).
  function oracle(bytes: Buffer): { clean: string; head: string; tail: string; truncated: boolean } {
    const clean = sanitizeOutput(new TextDecoder().decode(bytes));
    const head = prefixWithin(clean, 640);
    const rest = clean.slice(head.length);
    const truncated = escapedSize(rest) > 960;
    return { clean, head, tail: truncated ? suffixWithin(rest, 960) : rest, truncated };
  }

  it('text-dense output (at least half of it visible): head and tail exact', () => {
    fc.assert(
      fc.property(output, fractions, (bytes, fs) => {
        const want = oracle(bytes);
        fc.pre(escapedSize(want.clean) * 2 >= bytes.length);
        const got = run(bytes, fs);
        expect(got.truncated).toBe(want.truncated);
        if (!want.truncated) expect(got.text).toBe(want.clean);
        else {
          expect(got.text.startsWith(want.head + '\n\n... [')).toBe(true);
          expect(got.text.endsWith('] ...\n\n' + want.tail)).toBe(true);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('any output (escape storms included): only true text, within the budget; live output ends where the output ends', () => {
    fc.assert(
      fc.property(output, fractions, (bytes, fs) => {
        const want = oracle(bytes);
        const got = run(bytes, fs);
        expect(escapedSize(got.text)).toBeLessThanOrEqual(2000);
        expect(got.text.startsWith(want.head)).toBe(true);
        const tail = got.truncated ? got.text.slice(got.text.indexOf('] ...\n\n') + 7) : got.text.slice(want.head.length);
        expect(want.clean.endsWith(tail)).toBe(true);
        expect(got.skipped).toBeLessThanOrEqual(bytes.length);
        expect(want.clean.endsWith(got.live.slice(-200))).toBe(true);
      }),
      { numRuns: 80 },
    );
  });
});
