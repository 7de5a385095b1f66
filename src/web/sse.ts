// A server-sent events parser for the page's `/api/events` stream, read with fetch and a stream
// reader (EventSource cannot send the Bearer header). Text in, whole events out, as the HTML
// standard's event-stream interpretation: lines end in CRLF, LF or CR; a line starting with ":"
// is a comment (the keep-alive); `event`, `data` (joined with newlines), `id` (remembered across
// events, for Last-Event-ID), `retry`; a blank line dispatches; an event without data is dropped.
// Pure: no DOM, so it is unit-tested in Node.

export interface SseEvent {
  /** "message" when the event named none. */
  type: string;
  data: string;
  /** The last event id seen so far ("" when none). */
  id: string;
}

/** The longest pending line or event kept (a stream that never ends a line is cut, not stored). */
export const MAX_EVENT_CHARS = 1_048_576;

export class SseParser {
  private buffer = '';
  private type = '';
  private data: string[] = [];
  private dataChars = 0;
  private endedOnCr = false;
  lastEventId = '';
  /** The reconnection delay the server asked for (ms), if any. */
  retryMs: number | null = null;

  /** Feeds decoded text; returns the events it completed. Throws when one event is too long. */
  push(chunk: string): SseEvent[] {
    const out: SseEvent[] = [];
    let text = chunk;
    // A CRLF split across chunks: the LF belongs to the CR already taken as a line end.
    if (this.endedOnCr && text.startsWith('\n')) text = text.slice(1);
    this.endedOnCr = false;
    this.buffer += text;
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      if (!m) break;
      if (m[0] === '\r' && m.index === this.buffer.length - 1) this.endedOnCr = true;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const ev = this.line(line);
      if (ev) out.push(ev);
    }
    if (this.buffer.length + this.dataChars > MAX_EVENT_CHARS) {
      this.buffer = '';
      this.data = [];
      this.dataChars = 0;
      throw new Error(`an event of the stream is longer than ${MAX_EVENT_CHARS} characters`);
    }
    return out;
  }

  private line(line: string): SseEvent | null {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.type = value;
        break;
      case 'data':
        this.data.push(value);
        this.dataChars += value.length + 1;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
    return null;
  }

  private dispatch(): SseEvent | null {
    const type = this.type || 'message';
    const data = this.data;
    this.type = '';
    this.data = [];
    this.dataChars = 0;
    if (data.length === 0) return null;
    return { type, data: data.join('\n'), id: this.lastEventId };
  }
}
