// Re-splitting after an edit: when an edit stays among the routes of a block `routes:`, only the
// lines from the route before the change to the first unchanged route after it are scanned again;
// the chunks and line starts before are kept, and those after are shifted. The result equals
// splitDocument(text) (test/unit/language/routing/resplit.test.ts compares them); whenever the edit
// could change more than that (a top-level line, a route key at another indentation, a tab) this
// answers null and the caller splits the whole text. Pure.
import { simpleKeyAt, type ChunkSpan, type Split } from './chunks';
import { lineOf } from './lines';

/** What changed between two texts: they agree on [0, prefix) and on their last `suffix` characters. */
export interface TextChange {
  prefix: number;
  suffix: number;
}

/** The common prefix and suffix of two texts (binary search over substring equality: memcmp speed). */
export function diffTexts(before: string, after: string): TextChange {
  const max = Math.min(before.length, after.length);
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (before.slice(lo, mid) === after.slice(lo, mid)) lo = mid;
    else hi = mid - 1;
  }
  const prefix = lo;
  const room = max - prefix;
  lo = 0;
  hi = room;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (before.slice(before.length - mid, before.length - lo) === after.slice(after.length - mid, after.length - lo))
      lo = mid;
    else hi = mid - 1;
  }
  return { prefix, suffix: lo };
}

function chunkIndexAt(chunks: readonly ChunkSpan[], offset: number): number {
  let lo = 0;
  let hi = chunks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (chunks[mid].start <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * splitDocument(after), computed from the split of `before` when the change lies among routes;
 * null when it does not (then split the whole text). Texts with line ends already normalized.
 */
export function resplit(before: string, old: Split, after: string, change: TextChange): Split | null {
  const oldChunks = old.chunks;
  if (!oldChunks || oldChunks.length === 0 || change.prefix === 0) return null;
  const k0 = chunkIndexAt(oldChunks, change.prefix - 1);
  const c0 = oldChunks[k0];
  if (k0 === 0 || c0.role !== 'route') return null;
  let routeIndent = 0;
  while (before.charCodeAt(c0.start + routeIndent) === 32) routeIndent++;
  const delta = after.length - before.length;
  const changedEnd = after.length - change.suffix; // in `after`
  const n = after.length;
  const chunks: ChunkSpan[] = oldChunks.slice(0, k0);
  const firstLine = lineOf(old.lineStarts, c0.start);
  const lineStarts: number[] = []; // of the re-scanned lines; the kept ones are joined at the end
  let cur: ChunkSpan | null = null;
  let j = k0 + 1; // the next old chunk that could be where both splits meet again
  let pos = c0.start;
  for (;;) {
    let nl = after.indexOf('\n', pos);
    if (nl < 0) nl = n;
    let end = nl;
    if (end > pos && after.charCodeAt(end - 1) === 13) end--;
    let i = pos;
    while (i < end && after.charCodeAt(i) === 32) i++;
    const c = i < end ? after.charCodeAt(i) : -1;
    if (c === 9) return null;
    if (c !== -1 && c !== 35) {
      const indent = i - pos;
      if (indent < routeIndent) return null; // a top-level line, or routes at another indentation
      if (indent === routeIndent) {
        const key = simpleKeyAt(after, i, end);
        if (!key) return null;
        if (pos >= changedEnd && cur) {
          const at = pos - delta;
          while (j < oldChunks.length && oldChunks[j].start < at) j++;
          if (j < oldChunks.length && oldChunks[j].start === at && oldChunks[j].role === 'route') {
            // from here on both texts are the same, and so are their splits (shifted)
            cur.end = pos;
            for (let k = j; k < oldChunks.length; k++) {
              const o = oldChunks[k];
              chunks.push(delta === 0 ? o : { ...o, start: o.start + delta, end: o.end + delta });
            }
            const tail = old.lineStarts.slice(lineOf(old.lineStarts, at));
            if (delta !== 0) for (let k = 0; k < tail.length; k++) tail[k] += delta;
            return { lineStarts: old.lineStarts.slice(0, firstLine).concat(lineStarts, tail), chunks };
          }
        }
        if (cur) cur.end = pos;
        cur = { role: 'route', name: key.name, start: pos, end: n };
        chunks.push(cur);
      } else if (!cur) {
        return null; // the first line is no longer a route key
      }
    } else if (!cur) {
      return null;
    }
    lineStarts.push(pos);
    if (nl >= n) break;
    pos = nl + 1;
  }
  return { lineStarts: old.lineStarts.slice(0, firstLine).concat(lineStarts), chunks };
}
