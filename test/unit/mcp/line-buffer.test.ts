// The stdio transport's line splitter: any chunking of the same bytes yields the same lines, and a line over the
// cap throws once (the transport then closes the connection) whether it ends in this chunk or is still growing.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineBuffer } from '../../../src/mcp/stdio-transport.js';

function feed(b: LineBuffer, bytes: Buffer, cuts: number[]): string[] {
  const out: string[] = [];
  let at = 0;
  for (const c of [...cuts.filter((x) => x > 0 && x < bytes.length)].sort((x, y) => x - y).concat(bytes.length)) {
    out.push(...b.push(bytes.subarray(at, c)).map((l) => l.toString('utf8')));
    at = c;
  }
  return out;
}

describe('LineBuffer', () => {
  it('any chunking of the same bytes yields the same lines', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }).map((s) => s.replace(/\n/g, '')), { maxLength: 10 }), fc.array(fc.nat(300)), (lines, cuts) => {
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''));
        expect(feed(new LineBuffer(1000), bytes, cuts)).toEqual(lines);
      }),
    );
  });

  it('a line over the cap throws, ending in the chunk or still growing; the buffer starts afresh after', () => {
    expect(() => new LineBuffer(4).push(Buffer.from('12345\n'))).toThrow('the server sent a message of 5 bytes, over the 4-byte limit');
    const b = new LineBuffer(4);
    expect(b.push(Buffer.from('ok\n123'))).toEqual([Buffer.from('ok')]);
    expect(() => b.push(Buffer.from('45'))).toThrow('the server sent a message over the 4-byte limit');
    expect(b.push(Buffer.from('ab\n'))).toEqual([Buffer.from('ab')]);
  });
});
