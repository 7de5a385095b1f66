// Documented limits of page parsing, applied before micromark sees the text so that hostile pages
// are reported instead of overflowing the stack or taking minutes (micromark and mdast recurse
// into nested containers and resolve emphasis in time quadratic in its markers):
// - MAX_PAGE_CHARS: a larger page is not checked (one diagnostic on line 1); micromark with GFM
//   takes about 2.5 GB and 10 s per MB of table (a 160 KB table: 400 MB, 1.7 s; 1,000 inventory rows are about 90 KB);
// - MAX_PAGE_NESTING: a line nested deeper (list and quote markers, two columns of indentation a
//   level) is not checked: it is read as a thematic break;
// - MAX_EMPHASIS_MARKERS: `*`/`_` characters beyond this many in one paragraph (one line in a table) are
//   not read as emphasis: they are read as spaces, which leaves the visible text the same.
// Masking keeps every offset (characters become spaces, line breaks stay). Pure.

export const MAX_PAGE_CHARS = 128 * 1024;
export const MAX_PAGE_NESTING = 100;
export const MAX_EMPHASIS_MARKERS = 1000;

export interface LimitIssue {
  start: number;
  end: number;
  kind: 'size' | 'nesting' | 'emphasis';
  message: string;
}

export interface Guarded {
  /** The text micromark reads: the same length as the page. */
  text: string;
  issues: LimitIssue[];
}

function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return i;
  }
  return text.length;
}

function nextLine(text: string, end: number): number {
  if (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10) return end + 2;
  return end + 1;
}

/** Container depth at the start of a line: quote and list markers, plus indentation (two columns a level). */
function lineDepth(text: string, start: number, end: number): number {
  let depth = 0;
  let i = start;
  let cols = 0;
  for (;;) {
    while (i < end && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) {
      cols += text.charCodeAt(i) === 9 ? 4 : 1;
      i++;
    }
    if (i >= end) break;
    const c = text.charCodeAt(i);
    const n = i + 1 < end ? text.charCodeAt(i + 1) : 32;
    if (c === 62 /* > */) {
      depth++;
      i++;
    } else if ((c === 45 || c === 42 || c === 43) && (n === 32 || n === 9)) {
      depth++;
      i++;
    } else if (c >= 48 && c <= 57) {
      let j = i;
      while (j < end && j - i < 9 && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
      const m = text.charCodeAt(j);
      const after = j + 1 < end ? text.charCodeAt(j + 1) : 32;
      if ((m === 46 || m === 41) && (after === 32 || after === 9)) {
        depth++;
        i = j + 1;
      } else break;
    } else break;
  }
  return depth + (cols >> 1);
}

/**
 * Masks a line as a thematic break at column 0 (`***` then spaces): it closes every open list and
 * quote, as a blank line would not (micromark keeps 100 levels open across blank lines, slowly).
 * A line deeper than the limit is always longer than three characters.
 */
function maskLine(chars: string[], start: number, end: number): void {
  for (let i = start; i < end; i++) chars[i] = i - start < 3 ? '*' : ' ';
}

/** Applies the limits: the text to parse and what was not checked. */
export function guardMarkdown(text: string): Guarded {
  if (text.length > MAX_PAGE_CHARS) {
    return {
      text: '',
      issues: [
        {
          start: 0,
          end: lineEnd(text, 0),
          kind: 'size',
          message: `This page is larger than ${MAX_PAGE_CHARS / 1024} KB (${Math.ceil(text.length / 1024)} KB): it is not checked.`,
        },
      ],
    };
  }
  const issues: LimitIssue[] = [];
  let chars: string[] | null = null;
  let para: { start: number; markers: number[] } | null = null;
  let emphasisReported = false;
  const endParagraph = () => {
    if (para && para.markers.length > MAX_EMPHASIS_MARKERS) {
      chars ??= Array.from({ length: text.length }, (_, k) => text[k]);
      for (const m of para.markers) chars[m] = ' ';
      if (!emphasisReported) {
        const at = para.markers[MAX_EMPHASIS_MARKERS];
        issues.push({
          start: at,
          end: lineEnd(text, at),
          kind: 'emphasis',
          message: `More than ${MAX_EMPHASIS_MARKERS} emphasis markers (* or _) in one paragraph: they are not read as emphasis.`,
        });
        emphasisReported = true;
      }
    }
    para = null;
  };
  let nestingReported = false;
  let pos = 0;
  while (pos <= text.length) {
    const end = lineEnd(text, pos);
    let i = pos;
    while (i < end && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    if (i === end) endParagraph();
    else if (lineDepth(text, pos, end) > MAX_PAGE_NESTING) {
      endParagraph();
      chars ??= Array.from({ length: text.length }, (_, k) => text[k]);
      maskLine(chars, pos, end);
      if (!nestingReported) {
        issues.push({
          start: pos,
          end,
          kind: 'nesting',
          message: `Nesting deeper than ${MAX_PAGE_NESTING} levels is not checked (this line and any other that deep).`,
        });
        nestingReported = true;
      }
    } else {
      // a table row is its own inline content; other lines join the paragraph
      if (text.charCodeAt(i) === 124) endParagraph();
      para ??= { start: pos, markers: [] };
      for (let k = i; k < end; k++) {
        const c = text.charCodeAt(k);
        // every marker character counts: one run of thousands nests as deeply as thousands of runs
        if ((c === 42 || c === 95) && text.charCodeAt(k - 1) !== c) {
          let e = k;
          while (text.charCodeAt(e) === c) e++;
          for (let j = k; j < e; j++) para.markers.push(j);
          k = e - 1;
        }
      }
      if (text.charCodeAt(i) === 124) endParagraph();
    }
    if (end >= text.length) break;
    pos = nextLine(text, end);
  }
  endParagraph();
  return { text: chars ? (chars as string[]).join('') : text, issues };
}
