// The AWS event-stream binary framing Bedrock's invoke-with-response-stream answers with, written from the
// format's description (not with the AWS libraries, so the client's decoder is tested against an independent
// encoder): [total length u32][headers length u32][prelude CRC32][headers][payload][message CRC32], headers as
// [name length u8][name][type 7 = string][value length u16][value].

const TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(buf: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of buf) c = (TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function headerBytes(headers: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = Buffer.from(name, 'utf8');
    const v = Buffer.from(value, 'utf8');
    const h = Buffer.alloc(1 + n.length + 1 + 2);
    h.writeUInt8(n.length, 0);
    n.copy(h, 1);
    h.writeUInt8(7, 1 + n.length);
    h.writeUInt16BE(v.length, 2 + n.length);
    parts.push(h, v);
  }
  return Buffer.concat(parts);
}

export function eventStreamMessage(headers: Record<string, string>, payload: Buffer): Buffer {
  const hb = headerBytes(headers);
  const total = 12 + hb.length + payload.length + 4;
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(hb.length, 4);
  const preludeCrc = Buffer.alloc(4);
  preludeCrc.writeUInt32BE(crc32(prelude), 0);
  const body = Buffer.concat([prelude, preludeCrc, hb, payload]);
  const msgCrc = Buffer.alloc(4);
  msgCrc.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, msgCrc]);
}

/** A `chunk` event carrying one Messages stream event, as Bedrock sends it (base64 JSON in `bytes`). */
export function bedrockChunk(event: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(event), 'utf8').toString('base64');
  return eventStreamMessage({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify({ bytes })));
}

/** A modeled exception frame (e.g. `throttlingException`) ending the stream. */
export function bedrockException(type: string, message: string): Buffer {
  return eventStreamMessage({ ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' }, Buffer.from(JSON.stringify({ message })));
}
