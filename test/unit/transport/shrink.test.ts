// Fitting an outbound frame into the line cap (src/transport/shrink.ts) without changing its shape.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serializeFrame } from '../../../src/transport/frame-writer.js';
import { cutUtf8, shrinkToFit } from '../../../src/transport/shrink.js';

const MARKER = /…\[agentd: \d+ bytes cut to fit the \d+-byte line limit\]$/;

/** Text without lone surrogates (those do not survive UTF-8 at all, cut or not). */
const text = (maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength }),
    fc.string({ unit: fc.constantFrom('a', '"', '\\', '\u0001', 'é', '€', '😀', '\u2028', '\n'), maxLength }),
  );

describe('cutUtf8 (property)', () => {
  it('returns the longest prefix within the byte budget, never splitting a character', () => {
    fc.assert(
      fc.property(text(64), fc.integer({ min: 0, max: 300 }), (s, max) => {
        const r = cutUtf8(s, max);
        expect(s.startsWith(r)).toBe(true);
        expect(Buffer.byteLength(r)).toBeLessThanOrEqual(Math.max(0, max));
        if (r.length < s.length) {
          const next = String.fromCodePoint(s.codePointAt(r.length) ?? 0);
          expect(Buffer.byteLength(r + next)).toBeGreaterThan(max);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('handles the edges', () => {
    expect(cutUtf8('héllo', 0)).toBe('');
    expect(cutUtf8('héllo', 2)).toBe('h');
    expect(cutUtf8('héllo', 3)).toBe('hé');
    expect(cutUtf8('😀x', 3)).toBe('');
    expect(cutUtf8('abc', 10)).toBe('abc');
  });
});

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const big = fc.oneof(text(12), fc.tuple(text(4), fc.integer({ min: 60, max: 4000 })).map(([t, n]) => (t || 'x').repeat(n)));
const frameArb = fc.record({
  type: fc.constantFrom('assistant', 'user', 'tool_progress'),
  n: fc.integer(),
  flag: fc.boolean(),
  meta: fc.dictionary(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 8 }), text(12), { maxKeys: 4 }),
  content: fc.array(fc.record({ type: fc.constant('text'), text: big }), { maxLength: 6 }),
  lines: fc.array(text(10), { maxLength: 200 }),
  nested: fc.record({ deep: fc.record({ s: big, none: fc.constant(null) }) }),
});

/** Same keys everywhere; arrays may only lose their tail; strings are unchanged or a prefix plus the marker. */
function assertSameShape(orig: Json, got: Json, path = '$'): void {
  if (typeof orig === 'string') {
    expect(typeof got, path).toBe('string');
    const g = got as string;
    if (g !== orig) {
      expect(g, path).toMatch(MARKER);
      const kept = g.slice(0, g.indexOf('…[agentd: '));
      expect(orig.startsWith(kept), path).toBe(true);
    }
    return;
  }
  if (Array.isArray(orig)) {
    expect(Array.isArray(got), path).toBe(true);
    const g = got as Json[];
    expect(g.length, path).toBeLessThanOrEqual(orig.length);
    g.forEach((x, i) => assertSameShape(orig[i] as Json, x, `${path}[${i}]`));
    return;
  }
  if (orig !== null && typeof orig === 'object') {
    const g = got as { [k: string]: Json };
    expect(Object.keys(g), path).toEqual(Object.keys(orig));
    for (const k of Object.keys(orig)) assertSameShape(orig[k] as Json, g[k] as Json, `${path}.${k}`);
    return;
  }
  expect(got, path).toEqual(orig);
}

describe('shrinkToFit (property)', () => {
  it('fits the budget as the frame will be written, keeps its shape, and leaves the input alone', () => {
    fc.assert(
      fc.property(frameArb, fc.integer({ min: 3000, max: 20_000 }), fc.boolean(), (frame, maxBytes, wire) => {
        const serialize = wire ? serializeFrame : JSON.stringify;
        const before = JSON.stringify(frame);
        const out = shrinkToFit(frame, maxBytes, serialize) as Json;
        expect(JSON.stringify(frame)).toBe(before);
        if (Buffer.byteLength(serialize(frame)) <= maxBytes) {
          expect(out).toEqual(frame);
        } else {
          expect(Buffer.byteLength(serialize(out))).toBeLessThanOrEqual(maxBytes);
          assertSameShape(frame, out);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('shrinkToFit', () => {
  it('cuts the longest string first, keeps as much of it as fits, and says how much it cut', () => {
    const frame = { type: 'user', small: 's'.repeat(300), large: 'L'.repeat(10_000) };
    const out = shrinkToFit(frame, 2000) as typeof frame;
    expect(out.small).toBe(frame.small);
    const kept = out.large.indexOf('…');
    expect(out.large).toBe(`${'L'.repeat(kept)}…[agentd: ${10_000 - kept} bytes cut to fit the 2000-byte line limit]`);
    const bytes = Buffer.byteLength(JSON.stringify(out));
    expect(bytes).toBeLessThanOrEqual(2000);
    expect(bytes).toBeGreaterThan(2000 - 8);
  });

  it('budgets for escapes: text that serializes larger than its UTF-8 bytes still fits', () => {
    const frame = { type: 'user', s: '\u0001"'.repeat(5000), t: '\u2028'.repeat(5000) };
    for (const serialize of [JSON.stringify, serializeFrame]) {
      const out = shrinkToFit(frame, 3000, serialize);
      expect(Buffer.byteLength(serialize(out))).toBeLessThanOrEqual(3000);
    }
  });

  it('drops the tail of the longest array when no long string is left', () => {
    const frame = { type: 'x', items: Array.from({ length: 1000 }, (_, i) => `item-${i}`) };
    const out = shrinkToFit(frame, 1000) as typeof frame;
    expect(out.items).toEqual(frame.items.slice(0, out.items.length));
    expect(out.items.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(JSON.stringify(out))).toBeLessThanOrEqual(1000);
  });

  it('returns the frame unchanged (a copy) when it already fits', () => {
    const frame = { type: 'x', s: 'short', a: [1, 2, 3] };
    const out = shrinkToFit(frame, 1000);
    expect(out).toEqual(frame);
    expect(out).not.toBe(frame);
  });

  it('keeps the shape when even the skeleton is over budget (the caller still gets a valid frame)', () => {
    const frame = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`key_${i}`, i]));
    expect(shrinkToFit(frame, 100)).toEqual(frame);
  });
});
