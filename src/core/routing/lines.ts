// Offsets <-> 0-based line/character positions (UTF-16, like LSP and like JavaScript strings).
import type { Position, Range } from '../diagnostics';

/** Start offset of every line. */
export function computeLineStarts(text: string): number[] {
  const starts = [0];
  let i = text.indexOf('\n');
  while (i >= 0) {
    starts.push(i + 1);
    i = text.indexOf('\n', i + 1);
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

export function offsetAt(lineStarts: readonly number[], text: string, pos: Position): number {
  if (pos.line >= lineStarts.length) return text.length;
  if (pos.line < 0) return 0;
  const start = lineStarts[pos.line];
  const next = pos.line + 1 < lineStarts.length ? lineStarts[pos.line + 1] : text.length;
  return Math.min(start + Math.max(0, pos.character), next);
}

export function rangeAt(lineStarts: readonly number[], start: number, end: number): Range {
  return { start: positionAt(lineStarts, start), end: positionAt(lineStarts, end) };
}

/** End of the line containing `offset` (before \r\n or \n). */
export function lineEndAt(text: string, offset: number): number {
  let e = text.indexOf('\n', offset);
  if (e < 0) e = text.length;
  if (e > offset && text.charCodeAt(e - 1) === 13) e--;
  return e;
}

export function lineStartAt(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}
