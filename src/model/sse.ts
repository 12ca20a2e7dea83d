// Server-sent events, parsed incrementally from response body chunks. Yields each event's name and its raw data
// text: the session keeps the raw JSON so stream_event frames can embed it without serializing it again.

export interface SseEvent {
  event: string;
  data: string;
}

export async function* parseSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  let buf = '';
  let event = '';
  let data: string[] = [];
  for await (const chunk of body) {
    buf += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const nl = buf.indexOf('\n', start);
      if (nl === -1) break;
      let line = buf.slice(start, nl);
      start = nl + 1;
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (data.length > 0 || event !== '') yield { event: event || 'message', data: data.join('\n') };
        event = '';
        data = [];
        continue;
      }
      if (line.charCodeAt(0) === 58 /* ':' comment */) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? '' : line.slice(colon + 1);
      if (value.charCodeAt(0) === 32) value = value.slice(1);
      if (field === 'data') data.push(value);
      else if (field === 'event') event = value;
    }
    buf = start === 0 ? buf : buf.slice(start);
  }
  buf += decoder.decode();
  if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
}
