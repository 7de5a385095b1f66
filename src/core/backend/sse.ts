// A server-sent-events line parser (the text/event-stream format): `data:` lines accumulate
// until a blank line dispatches the event; `event:` names it; `:` lines are comments; CR, LF and
// CRLF all end lines. Pure and incremental: push decoded text, get the complete events.

export interface SseMessage {
  event: string;
  data: string;
  id: string | null;
}

/** An event (or an unterminated line) longer than the parser's limit. */
export class SseOverflow extends Error {
  constructor(limit: number) {
    super(`an event longer than ${limit} characters`);
    this.name = 'SseOverflow';
  }
}

export class SseParser {
  private buffer = '';
  private pending = 0;
  private data: string[] = [];
  private event = '';
  private id: string | null = null;
  private sawCR = false;
  /** Complete lines seen so far (events, heartbeats, comments): a sign of life. */
  lines = 0;

  /** `maxChars`: the longest event (data lines together) or unterminated line accepted; push throws SseOverflow beyond it. */
  constructor(private readonly maxChars = Infinity) {}

  push(text: string): SseMessage[] {
    const out: SseMessage[] = [];
    let chunk = text;
    if (this.sawCR && chunk.startsWith('\n')) chunk = chunk.slice(1);
    this.sawCR = false;
    this.buffer += chunk;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(this.buffer.slice(start, i), out);
      if (c === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i++;
        } else {
          this.sawCR = true;
        }
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    if (this.buffer.length + this.pending > this.maxChars) throw new SseOverflow(this.maxChars);
    return out;
  }

  private line(line: string, out: SseMessage[]): void {
    this.lines++;
    if (line === '') {
      if (this.data.length > 0) out.push({ event: this.event || 'message', data: this.data.join('\n'), id: this.id });
      this.data = [];
      this.pending = 0;
      this.event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') {
      this.pending += value.length + 1;
      if (this.pending > this.maxChars) throw new SseOverflow(this.maxChars);
      this.data.push(value);
    } else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
  }
}
