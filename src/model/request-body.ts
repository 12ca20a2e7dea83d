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
 * JSON of frozen objects (and its UTF-8 length), kept while they live: a frozen object cannot change, so its
 * JSON cannot either. The conversation history is frozen (thread/conversation.ts) and sent again with every request;
 * this turns the serialisation of a long history into a lookup per message.
 */
const frozenJson = new WeakMap<object, Json>();

interface Json {
  text: string;
  bytes: number;
}

function toJson(v: unknown): Json {
  const text = JSON.stringify(v) ?? 'null';
  return { text, bytes: Buffer.byteLength(text) };
}

function stringify(v: unknown): Json {
  if (typeof v !== 'object' || v === null || !Object.isFrozen(v)) return toJson(v);
  let j = frozenJson.get(v);
  if (j === undefined) {
    j = toJson(v);
    frozenJson.set(v, j);
  }
  return j;
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
  const flush = (): void => {
    if (joined.length > 0) chunks.push(joined);
    joined = '';
  };
  // `bytes`: the text's UTF-8 length, when known (the JSON punctuation added here is ASCII).
  const add = (text: string, bytes = text.length): void => {
    byteLength += bytes;
    if (text.length >= ownPieceChars) {
      flush();
      chunks.push(text);
      return;
    }
    joined += text;
    if (joined.length >= MAX_JOINED_CHARS) flush();
  };
  const addJson = (j: Json): void => add(j.text, j.bytes);
  add('{');
  let first = true;
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    if (!first) add(',');
    addJson(toJson(key));
    add(':');
    first = false;
    if (!Array.isArray(v)) {
      addJson(stringify(v));
      continue;
    }
    add('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) add(',');
      addJson(stringify(v[i]));
    }
    add(']');
  }
  add('}');
  flush();
  return { chunks, byteLength };
}
