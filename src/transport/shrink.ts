// Makes an outbound frame fit a byte budget without breaking its shape: the longest strings are cut (with a
// marker saying so) and, if that is not enough, the longest arrays lose their tail. The frame keeps every key,
// so it still validates against its schema; only content is shortened.

const MARKER = (cut: number, limit: number): string =>
  `…[agentd: ${cut} bytes cut to fit the ${limit}-byte line limit]`;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Leaf {
  parent: Json[] | { [k: string]: Json };
  key: string | number;
  bytes: number;
  kind: 'string' | 'array';
}

function clone(v: unknown): Json {
  // eslint-disable-next-line no-restricted-syntax -- a deep copy of a value agentd built (JSON round trip: drops undefined, applies toJSON), not input.
  return JSON.parse(JSON.stringify(v ?? null)) as Json;
}

function collect(v: Json, parent: Leaf['parent'] | undefined, key: string | number, out: Leaf[]): void {
  if (typeof v === 'string') {
    if (parent) out.push({ parent, key, bytes: Buffer.byteLength(v), kind: 'string' });
    return;
  }
  if (Array.isArray(v)) {
    if (parent) out.push({ parent, key, bytes: Buffer.byteLength(JSON.stringify(v)), kind: 'array' });
    v.forEach((item, i) => collect(item, v, i, out));
    return;
  }
  if (v && typeof v === 'object') for (const [k, item] of Object.entries(v)) collect(item, v, k, out);
}

function get(leaf: Leaf): Json {
  return (leaf.parent as Record<string | number, Json>)[leaf.key] as Json;
}
function set(leaf: Leaf, value: Json): void {
  (leaf.parent as Record<string | number, Json>)[leaf.key] = value;
}

/** Cuts a string to at most `maxBytes` UTF-8 bytes without splitting a character. */
export function cutUtf8(s: string, maxBytes: number): string {
  const buf = Buffer.from(s, 'utf8');
  if (buf.length <= maxBytes) return s;
  let end = Math.max(0, maxBytes);
  while (end > 0 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/**
 * `serialize` must be the function that will write the frame (its size is what the budget is about); the
 * default is plain JSON.
 */
export function shrinkToFit(frame: unknown, maxBytes: number, serialize: (v: unknown) => string = JSON.stringify): unknown {
  const root = clone(frame);
  const size = (): number => Buffer.byteLength(serialize(root));
  for (let round = 0; round < 64; round++) {
    const total = size();
    if (total <= maxBytes) return root;
    const leaves: Leaf[] = [];
    collect(root, undefined, '', leaves);
    const strings = leaves.filter((l) => l.kind === 'string').sort((a, b) => b.bytes - a.bytes);
    const biggest = strings[0];
    const excess = total - maxBytes;
    if (biggest && biggest.bytes > 256) {
      // Serializing never shortens text (each raw UTF-8 byte becomes at least one output byte), so cutting
      // `excess` raw bytes plus room for the marker (plain text, no escapes) is enough, and keeps the most.
      const s = get(biggest) as string;
      const markerRoom = Buffer.byteLength(MARKER(biggest.bytes, maxBytes));
      const kept = cutUtf8(s, Math.max(0, biggest.bytes - excess - markerRoom));
      set(biggest, kept + MARKER(biggest.bytes - Buffer.byteLength(kept), maxBytes));
      continue;
    }
    const arrays = leaves.filter((l) => l.kind === 'array').sort((a, b) => b.bytes - a.bytes);
    const arr = arrays[0];
    if (arr) {
      const a = get(arr) as Json[];
      if (a.length > 0) {
        a.splice(Math.floor(a.length / 2));
        continue;
      }
    }
    break;
  }
  // Cannot shrink further without changing the frame's shape: the caller still gets a valid line.
  return root;
}
