// Splits a routing table into independently parseable chunks: one per top-level key, and one per
// route under a block-style `routes:`. A chunk's parse and its route-level results depend only on
// its text, so they are cached by text and an edit re-parses only the chunk it touched. Documents
// whose layout is not plainly block-structured at the top (directives, several documents, odd
// indentation, flow or complex keys at the top, duplicate top-level keys) are not split: the
// analyzer handles them whole. Pure.

export interface ChunkSpan {
  role: 'top' | 'route';
  /** Top-level key, or the route key (a Kind/* label). */
  name: string;
  /** Offsets in the document: the chunk is text.slice(start, end) and begins at a line start. */
  start: number;
  end: number;
  /** For the `routes:` top chunk that only holds the header line (its routes are route chunks). */
  header?: boolean;
}

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

export function splitDocument(text: string): Split {
  const lineStarts: number[] = [];
  const chunks: ChunkSpan[] = [];
  const topNames = new Set<string>();
  let ok = text.charCodeAt(0) !== 0xfeff;
  let inRoutes = false;
  let routeIndent = -1;
  let cur: ChunkSpan | null = null;
  const n = text.length;
  let pos = 0;
  for (;;) {
    lineStarts.push(pos);
    let nl = text.indexOf('\n', pos);
    if (nl < 0) nl = n;
    if (ok) {
      let end = nl;
      if (end > pos && text.charCodeAt(end - 1) === 13) end--;
      let i = pos;
      while (i < end && text.charCodeAt(i) === 32) i++;
      const c = i < end ? text.charCodeAt(i) : -1;
      if (c === 9) ok = false;
      else if (c !== -1 && c !== 35) {
        const indent = i - pos;
        if (indent === 0) {
          if (c === 37 || text.startsWith('---', pos) || text.startsWith('...', pos)) ok = false;
          else {
            const key = simpleKeyAt(text, pos, end);
            if (!key || topNames.has(key.name)) ok = false;
            else {
              topNames.add(key.name);
              if (cur) cur.end = pos;
              cur = { role: 'top', name: key.name, start: pos, end: n };
              chunks.push(cur);
              inRoutes = key.name === 'routes' && restIsEmpty(text, key.colon + 1, end);
              if (inRoutes) cur.header = true;
              routeIndent = -1;
            }
          }
        } else if (!cur) {
          ok = false;
        } else if (inRoutes) {
          if (routeIndent < 0) routeIndent = indent;
          if (indent < routeIndent) ok = false;
          else if (indent === routeIndent) {
            const key = simpleKeyAt(text, i, end);
            if (!key) ok = false;
            else {
              cur.end = pos;
              cur = { role: 'route', name: key.name, start: pos, end: n };
              chunks.push(cur);
            }
          }
        }
      }
    }
    if (nl >= n) break;
    pos = nl + 1;
  }
  if (!ok) return { lineStarts, chunks: null };
  // A `routes:` header followed by no route is an ordinary top chunk (its value is null).
  for (let k = 0; k < chunks.length; k++) {
    const c = chunks[k];
    if (c.header && !(k + 1 < chunks.length && chunks[k + 1].role === 'route')) delete c.header;
  }
  return { lineStarts, chunks };
}
