// Offsets <-> 0-based line/character positions (UTF-16, like LSP and like JavaScript strings).
// Line ends are LF, CRLF and a lone CR, as in LSP and YAML 1.2.
import type { Position, Range } from '../../core/diagnostics';

/**
 * The text with each lone CR written as LF: the same length, so every offset holds. The `yaml`
 * library does not read a lone CR as a line break (YAML 1.2 and LSP do), so the routing reader
 * parses this form; the result equals `yaml`'s whole-document parse of it.
 */
export function normalizeLineEnds(text: string): string {
  return text.indexOf('\r') < 0 ? text : text.replace(/\r(?!\n)/g, '\n');
}

/** Start offset of every line (after LF, CRLF or a lone CR). */
export function computeLineStarts(text: string): number[] {
  const starts = [0];
  if (text.indexOf('\r') < 0) {
    let i = text.indexOf('\n');
    while (i >= 0) {
      starts.push(i + 1);
      i = text.indexOf('\n', i + 1);
    }
    return starts;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return starts;
}

export function lineOf(lineStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function positionAt(lineStarts: readonly number[], offset: number): Position {
  const line = lineOf(lineStarts, offset);
  return { line, character: offset - lineStarts[line] };
}

/** The offset of a position; a character past its line's end is the line's end (as LSP says). */
export function offsetAt(lineStarts: readonly number[], text: string, pos: Position): number {
  if (pos.line >= lineStarts.length) return text.length;
  if (pos.line < 0) return 0;
  const start = lineStarts[pos.line];
  // a character past the end of the line means the end of the line (LSP), not the next line
  return Math.min(start + Math.max(0, pos.character), lineEndAt(text, start));
}

export function rangeAt(lineStarts: readonly number[], start: number, end: number): Range {
  return { start: positionAt(lineStarts, start), end: positionAt(lineStarts, end) };
}

/** End of the line containing `offset` (before its LF, CRLF or lone CR). */
export function lineEndAt(text: string, offset: number): number {
  const n = text.length;
  for (let i = Math.max(0, offset); i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return i;
  }
  return n;
}

/** Start of the line containing `offset`. */
export function lineStartAt(text: string, offset: number): number {
  for (let i = Math.min(offset, text.length) - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    // a CR followed by LF ends the line only at the LF
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) return i + 1;
  }
  return 0;
}
