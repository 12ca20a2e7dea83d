// Server-sent events, parsed incrementally from response body chunks. Gives each event's name and its raw data
// text: the session keeps the raw JSON so stream_event frames can embed it without serializing it again.
// A push parser (chunk in, events out) rather than an async generator of its own: on the streaming hot path
// every extra async-iteration layer costs a promise and a result object per event.

export interface SseEvent {
  event: string;
  data: string;
}

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private buf = '';
  private event = '';
  /** The event's data lines joined with \n; undefined while it has none. */
  private data: string | undefined;

  /** Feeds a chunk of the body; calls `emit` for every event it completes. */
  push(chunk: Uint8Array, emit: (ev: SseEvent) => void): void {
    this.lines(this.decoder.decode(chunk, { stream: true }), emit);
  }

  /** The body ended: an event whose data lines were not yet followed by a blank line is still given. */
  end(emit: (ev: SseEvent) => void): void {
    this.decoder.decode();
    if (this.data !== undefined) this.dispatch(emit);
  }

  private dispatch(emit: (ev: SseEvent) => void): void {
    if (this.data !== undefined || this.event !== '') emit({ event: this.event || 'message', data: this.data ?? '' });
    this.event = '';
    this.data = undefined;
  }

  private lines(text: string, emit: (ev: SseEvent) => void): void {
    const buf = this.buf + text;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf('\n', start);
      if (nl === -1) break;
      const end = nl > start && buf.charCodeAt(nl - 1) === 13 /* \r */ ? nl - 1 : nl;
      const lineStart = start;
      start = nl + 1;
      if (end === lineStart) {
        this.dispatch(emit);
        continue;
      }
      if (buf.charCodeAt(lineStart) === 58 /* ':' comment */) continue;
      const colon = buf.indexOf(':', lineStart);
      const fieldEnd = colon === -1 || colon > end ? end : colon;
      let valueStart = fieldEnd === end ? end : fieldEnd + 1;
      if (valueStart < end && buf.charCodeAt(valueStart) === 32) valueStart++;
      const field = buf.slice(lineStart, fieldEnd);
      if (field === 'data') {
        const value = buf.slice(valueStart, end);
        this.data = this.data === undefined ? value : `${this.data}\n${value}`;
      } else if (field === 'event') this.event = buf.slice(valueStart, end);
    }
    this.buf = start === 0 ? buf : buf.slice(start);
  }
}
