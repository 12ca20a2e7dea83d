// Identifiers. The UUIDs are unique, not secret: they name frames, messages and sessions, never authorise
// anything. So their per-process random prefix comes from Math.random (V8 seeds it per process from the OS
// entropy source), and crypto is used only for the API-style ids, through the Web Crypto global: Node defines
// globalThis.crypto lazily, so its ~10 internal modules are not compiled before `initialize` is answered
// (2-3 ms, more once launch.ts has changed V8's flags).

function randomBytes(n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  globalThis.crypto.getRandomValues(b);
  return b;
}

// Frame and message ids: a random 80-bit prefix per process plus a counter, laid out as a version-4 UUID.
// Unique within the process by construction and across processes by the random prefix; ~10x cheaper than
// randomUUID() on the streaming hot path (one id per stream_event frame).
let prefix: string | undefined;
function makePrefix(): string {
  const b = Buffer.allocUnsafe(10);
  for (let i = 0; i < 10; i++) b[i] = Math.floor(Math.random() * 256);
  const hex = b.toString('hex');
  // xxxxxxxx-xxxx-4xxx-yxxx-: 8 + 4 + 3 + 3 hex digits of randomness (version and variant digits fixed).
  const variant = ((b[9] ?? 0) & 0x3) | 0x8;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(12, 15)}-${variant.toString(16)}${hex.slice(15, 18)}-`;
}
// The counter stays within [2^44, 2^48): always 12 hex digits, so no padding string per id.
const COUNTER_MIN = 0x100000000000;
const COUNTER_SPAN = 0xf00000000000;
let counter = COUNTER_MIN + Math.floor(Math.random() * 0x100000000);

export function newUuid(): string {
  prefix ??= makePrefix();
  counter = counter + 1 >= COUNTER_MIN + COUNTER_SPAN ? COUNTER_MIN : counter + 1;
  return prefix + counter.toString(16);
}

/** Message/request ids in the style of the Messages API (`msg_…`, `toolu_…`). */
export function newPrefixedId(kind: string): string {
  return `${kind}_${randomBytes(12).toString('base64url')}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}
