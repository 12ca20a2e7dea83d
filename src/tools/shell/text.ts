// Text helpers for command output: sanitizing, the JSON-escaped budget, and finding where to start decoding
// the end of a byte stream.
//
// - Sanitizing: ANSI escape sequences (CSI, OSC, two-byte ESC forms) are removed, then every other C0 control
//   character except \n and \t, and DEL. What is left is printable text whose JSON form is predictable.
// - Budget: measured on the JSON-escaped UTF-8 size (\n, \t, " and \ count 2; U+2028/2029 count 6 since the
//   transport escapes them; non-ASCII counts its UTF-8 length), so the text can be embedded in a frame twice
//   (tool_result content and tool_use_result) and the line stays under 64 KB whatever the bytes were.

const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;
/** A prefix of an escape sequence reaching the end of the text (the rest is in the next chunk). */
const UNFINISHED_ESCAPE = /\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?)?$/;
/** Longest unfinished sequence held back for the next chunk; a longer one is sanitized as it stands. */
const CARRY_MAX = 256;
/** How far before a window's start an escape sequence may begin and still be removed whole. */
export const ESC_LOOKBACK = 4096;

export function sanitizeOutput(s: string): string {
  return s.replace(ANSI, '').replace(CONTROL, '');
}

/** Sanitizes `s`, holding back an escape sequence cut by the chunk boundary (the next chunk completes it). */
export function cleanWithCarry(s: string): { clean: string; carry: string } {
  const from = Math.max(0, s.length - CARRY_MAX);
  if (s.indexOf('\x1b', from) >= 0) {
    // The earliest unfinished sequence: `ESC ] ... ESC` is an OSC cut inside its terminator, not a lone ESC.
    const m = UNFINISHED_ESCAPE.exec(s.slice(from));
    if (m) {
      const at = from + m.index;
      return { clean: sanitizeOutput(s.slice(0, at)), carry: s.slice(at) };
    }
  }
  return { clean: sanitizeOutput(s), carry: '' };
}

/** JSON-escaped UTF-8 size of sanitized text (see the header). */
export function escapedSize(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) n += unitCost(s.charCodeAt(i));
  return n;
}

function unitCost(c: number): number {
  if (c < 0x20) return c === 0x0a || c === 0x09 ? 2 : 6;
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdfff) return 2; // half of a 4-byte character
  if (c === 0x2028 || c === 0x2029) return 6;
  return 3;
}

/** The longest prefix of `s` costing at most `budget`, never splitting a surrogate pair. */
export function prefixWithin(s: string, budget: number): string {
  let cost = 0;
  let i = 0;
  for (; i < s.length; i++) {
    const c = unitCost(s.charCodeAt(i));
    if (cost + c > budget) break;
    cost += c;
  }
  if (i > 0 && i < s.length && isHigh(s.charCodeAt(i - 1))) i--;
  return s.slice(0, i);
}

/** The longest suffix of `s` costing at most `budget`, never splitting a surrogate pair. */
export function suffixWithin(s: string, budget: number): string {
  return s.slice(suffixStart(s, budget).start);
}

/** Where the longest suffix of `s` costing at most `budget` starts, and its cost (one pass from the end). */
export function suffixStart(s: string, budget: number): { start: number; cost: number } {
  let cost = 0;
  let i = s.length;
  for (; i > 0; i--) {
    const c = unitCost(s.charCodeAt(i - 1));
    if (cost + c > budget) break;
    cost += c;
  }
  if (i < s.length && i > 0 && isLow(s.charCodeAt(i))) {
    cost -= unitCost(s.charCodeAt(i));
    i++;
  }
  return { start: i, cost };
}

/** The last `chars` UTF-16 units of `s`, one more when the cut would split a surrogate pair. */
export function lastChars(s: string, chars: number): string {
  if (s.length <= chars) return s;
  let i = s.length - chars;
  if (isLow(s.charCodeAt(i))) i--;
  return s.slice(i);
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/**
 * Where to start decoding so that the last `want` bytes before `end` are decoded: moved back to an escape
 * sequence that begins shortly before (so it is removed whole) and forward past UTF-8 continuation bytes (so
 * decoding starts on a character: the bytes may begin wherever older ones were dropped).
 */
export function windowStart(bytes: Uint8Array, end: number, want: number): number {
  let start = Math.max(0, end - want);
  if (start > 0) {
    const esc = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).lastIndexOf(0x1b, start);
    if (esc >= 0 && start - esc <= ESC_LOOKBACK) return esc;
  }
  for (let n = 0; n < 3 && start < end && ((bytes[start] as number) & 0xc0) === 0x80; n++) start++;
  return start;
}

/** How many bytes at the end of `bytes` are the start of a UTF-8 character still missing its continuation. */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back] as number;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: keep looking for its lead
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}
