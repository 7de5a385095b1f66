// Splits a routing table into independently parseable chunks: one per top-level key, and one per
// route under a block-style `routes:`. A chunk's parse and its route-level results depend only on
// its text, so they are cached by text and an edit re-parses only the chunk it touched. Documents
// whose layout is not plainly block-structured at the top (directives, several documents, odd
// indentation, flow or complex keys at the top, duplicate top-level keys) are not split: the
// analyzer handles them whole. Pure.
import { MAX_DIAGNOSTICS } from './limits';
import { TOP_KEYS } from './schema';

export interface ChunkSpan {
  role: 'top' | 'route';
  /** Top-level key, or the route key (a Kind/* label). */
  name: string;
  /** Offsets in the document: the chunk is text.slice(start, end) and begins at a line start. */
  start: number;
  end: number;
  /** For the `routes:` top chunk that only holds the header line (its routes are route chunks). */
  header?: boolean;
  /**
   * Past UNKNOWN_KEYS_SPLIT top-level keys the schema does not know, a run of further unknown
   * keys is one chunk: `name` is its first, `more` counts the others (never read: past the listed
   * problems, see the analyzer's `certain`).
   */
  more?: number;
}

/**
 * Unknown top-level keys split into chunks of their own; later ones are gathered (each is an error
 * at least, so past MAX_DIAGNOSTICS + 1 of them nothing further is listed).
 */
export const UNKNOWN_KEYS_SPLIT = MAX_DIAGNOSTICS + 1;

export interface Split {
  lineStarts: number[];
  /** null when the document must be handled whole. */
  chunks: ChunkSpan[] | null;
}

const PLAIN_FIRST_BAD = new Set('-?:,[]{}#&*!|>\'"%@`'.split('').map((c) => c.charCodeAt(0)));
const NON_STRING_KEY =
  /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9][0-9._eE+-]*|[-+]?\.[0-9].*|0x.*|0o.*|\.(?:inf|Inf|INF|nan|NaN|NAN))$/;

/** A simple key at `p`: `name:` followed by space or end of line. Returns the name and colon offset, or null. */
export function simpleKeyAt(text: string, p: number, end: number): { name: string; colon: number } | null {
  const c = text.charCodeAt(p);
  if (c === 34 || c === 39) {
    let i = p + 1;
    let name = '';
    for (; i < end; i++) {
      const ch = text.charCodeAt(i);
      if (c === 34 && ch === 92) return null;
      if (ch === c) {
        if (c === 39 && text.charCodeAt(i + 1) === 39) {
          name += "'";
          i++;
          continue;
        }
        break;
      }
      name += text[i];
    }
    if (i >= end) return null;
    const colon = i + 1;
    if (text.charCodeAt(colon) !== 58) return null;
    if (colon + 1 < end && text.charCodeAt(colon + 1) !== 32) return null;
    return { name, colon };
  }
  if (PLAIN_FIRST_BAD.has(c) || c === 32 || c === 9) return null;
  for (let i = p; i < end; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 58 && (i + 1 === end || text.charCodeAt(i + 1) === 32)) {
      let e = i;
      while (e > p && text.charCodeAt(e - 1) === 32) e--;
      const name = text.slice(p, e);
      if (NON_STRING_KEY.test(name)) return null;
      return { name, colon: i };
    }
    if (ch === 35 && text.charCodeAt(i - 1) === 32) return null;
    if (ch === 9) return null;
  }
  return null;
}

function restIsEmpty(text: string, from: number, end: number): boolean {
  let i = from;
  while (i < end && text.charCodeAt(i) === 32) i++;
  return i === end || (text.charCodeAt(i) === 35 && i > from);
}

/** Lines scanned between two yields of splitSteps. */
const SPLIT_LINES_PER_STEP = 20000;

export function splitDocument(text: string): Split {
  const it = splitSteps(text);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

/** splitDocument as a generator that yields every SPLIT_LINES_PER_STEP lines (a caller's slices). */
export function* splitSteps(text: string): Generator<void, Split, void> {
  const sp = new Splitter(text);
  while (!sp.scan(SPLIT_LINES_PER_STEP)) yield;
  return sp.result();
}

/** The line scan behind splitSteps, resumable (a plain method: V8 optimizes it as it does not a generator's loop). */
class Splitter {
  readonly lineStarts: number[] = [];
  readonly chunks: ChunkSpan[] = [];
  private readonly topNames = new Set<string>();
  ok: boolean;
  private inRoutes = false;
  private routeIndent = -1;
  private cur: ChunkSpan | null = null;
  private pos = 0;
  private unknownKeys = 0;

  constructor(private readonly text: string) {
    this.ok = text.charCodeAt(0) !== 0xfeff;
  }

  /** Scans up to `maxLines` more lines; true when the text is done. */
  scan(maxLines: number): boolean {
    const text = this.text;
    const lineStarts = this.lineStarts;
    const n = text.length;
    let pos = this.pos;
    let ok = this.ok;
    for (let lines = 0; lines < maxLines; lines++) {
      lineStarts.push(pos);
      let nl = text.indexOf('\n', pos);
      if (nl < 0) nl = n;
      if (ok) ok = this.line(pos, nl);
      if (nl >= n) {
        this.ok = ok;
        return true;
      }
      pos = nl + 1;
    }
    this.pos = pos;
    this.ok = ok;
    return false;
  }

  /** Takes the line [pos, nl); false when the document cannot be split. */
  private line(pos: number, nl: number): boolean {
    const text = this.text;
    let end = nl;
    if (end > pos && text.charCodeAt(end - 1) === 13) end--;
    let i = pos;
    while (i < end && text.charCodeAt(i) === 32) i++;
    const c = i < end ? text.charCodeAt(i) : -1;
    if (c === 9) return false;
    if (c === -1 || c === 35) return true;
    const indent = i - pos;
    const cur = this.cur;
    if (indent === 0) {
      if (c === 37 || text.startsWith('---', pos) || text.startsWith('...', pos)) return false;
      const key = simpleKeyAt(text, pos, end);
      if (!key) return false;
      if (!TOP_KEYS.has(key.name) && ++this.unknownKeys > UNKNOWN_KEYS_SPLIT) {
        // gathered with the unknown keys before it (never parsed, never checked for duplicates)
        if (cur && cur.more !== undefined) {
          cur.more++;
          return true;
        }
        if (cur) cur.end = pos;
        const next: ChunkSpan = { role: 'top', name: key.name, start: pos, end: text.length, more: 0 };
        this.cur = next;
        this.chunks.push(next);
        this.inRoutes = false;
        this.routeIndent = -1;
        return true;
      }
      if (this.topNames.has(key.name)) return false;
      this.topNames.add(key.name);
      if (cur) cur.end = pos;
      const next: ChunkSpan = { role: 'top', name: key.name, start: pos, end: text.length };
      this.cur = next;
      this.chunks.push(next);
      this.inRoutes = key.name === 'routes' && restIsEmpty(text, key.colon + 1, end);
      if (this.inRoutes) next.header = true;
      this.routeIndent = -1;
      return true;
    }
    if (!cur) return false;
    if (!this.inRoutes) return true;
    if (this.routeIndent < 0) this.routeIndent = indent;
    if (indent < this.routeIndent) return false;
    if (indent === this.routeIndent) {
      const key = simpleKeyAt(text, i, end);
      if (!key) return false;
      cur.end = pos;
      const next: ChunkSpan = { role: 'route', name: key.name, start: pos, end: text.length };
      this.cur = next;
      this.chunks.push(next);
    }
    return true;
  }

  result(): Split {
    const { lineStarts, chunks } = this;
    if (!this.ok) return { lineStarts, chunks: null };
    // A `routes:` header followed by no route is an ordinary top chunk (its value is null).
    for (let k = 0; k < chunks.length; k++) {
      const c = chunks[k];
      if (c.header && !(k + 1 < chunks.length && chunks[k + 1].role === 'route')) delete c.header;
    }
    return { lineStarts, chunks };
  }
}
