// A request body serialised in pieces. JSON.stringify of a whole Messages request gives one string as long as
// the conversation; past 128 KiB V8 puts such a string in its large-object space, which only a full
// mark-compact frees, so every request of a long session left its body behind until V8 chose to collect:
// ~100 KiB of resident memory per turn (BENCHMARKS.md, session-200-turns). Serialising the top-level arrays
// element by element keeps every string small and short-lived: http-fetch.ts writes the pieces as they are
// (one writev once the socket is there) and drops them, and the scavenger frees them. Building bigger chunks
// out of the pieces would allocate the body a second time and let more of it live long enough to be promoted.

/** Elements at least this long are written as they are; shorter ones are joined with the JSON around them. */
const OWN_PIECE_CHARS = 1024;
/** Joined text is cut before it reaches this length (two-byte strings of 32 KiB, far below 128 KiB). */
const MAX_JOINED_CHARS = 16 * 1024;

/**
 * JSON of frozen objects, kept while they live: a frozen object cannot change, so its JSON cannot either. The
 * conversation history is frozen (session/history.ts) and sent again with every request; this turns the
 * serialisation of a long history into a lookup per message.
 */
const frozenJson = new WeakMap<object, string>();

function stringify(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || !Object.isFrozen(v)) return JSON.stringify(v);
  let s = frozenJson.get(v);
  if (s === undefined) {
    s = JSON.stringify(v);
    frozenJson.set(v, s);
  }
  return s;
}

export interface JsonChunks {
  /** Concatenated, exactly JSON.stringify(value). */
  chunks: string[];
  /** UTF-8 length of the concatenation. */
  byteLength: number;
}

/**
 * JSON.stringify(value) for a plain object, in pieces: each element of a top-level array that serialises to
 * `ownPieceChars` or more is a piece of its own (its JSON.stringify string, not copied again), everything else
 * is joined into pieces of at most about MAX_JOINED_CHARS. Key order, skipped `undefined` properties and
 * `null` for `undefined` array elements are JSON.stringify's.
 */
export function jsonInChunks(value: Readonly<Record<string, unknown>>, ownPieceChars = OWN_PIECE_CHARS): JsonChunks {
  const chunks: string[] = [];
  let byteLength = 0;
  let joined = '';
  const push = (piece: string): void => {
    chunks.push(piece);
    byteLength += Buffer.byteLength(piece);
  };
  const add = (text: string): void => {
    if (text.length >= ownPieceChars) {
      if (joined.length > 0) push(joined);
      joined = '';
      push(text);
      return;
    }
    joined += text;
    if (joined.length >= MAX_JOINED_CHARS) {
      push(joined);
      joined = '';
    }
  };
  add('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    add(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    if (!Array.isArray(v)) {
      add(stringify(v) as string);
      continue;
    }
    add('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) add(',');
      add(stringify(v[i]) ?? 'null');
    }
    add(']');
  }
  add('}');
  if (joined.length > 0) push(joined);
  return { chunks, byteLength };
}
