// The size past which a routing table or a page is not analysed (sessionOps.maxDocumentMB): the
// language server then reports one diagnostic on the first line (the size, the limit, the setting
// that raises it) and gives only an outline of the document's top level, read by a line scan
// (topLevelOutline) that copies nothing larger than one name. Pure.
import type { Diagnostic, Range } from './diagnostics';

export const DOCUMENT_TOO_LARGE = 'document.too-large';
/** The setting that raises the limit. */
export const MAX_DOCUMENT_SETTING = 'sessionOps.maxDocumentMB';
/** At most this many top-level entries are outlined. */
export const MAX_OUTLINE_ENTRIES = 1000;
/** A top-level name is cut to this many characters in the outline. */
const MAX_NAME_CHARS = 120;

const MB = 1024 * 1024;

/** The document's size in bytes (UTF-8) when it is over `limitMB`, else undefined; never encodes it. */
export function oversize(text: string, limitMB: number): number | undefined {
  const limit = limitMB * MB;
  if (text.length * 3 <= limit) return undefined; // a UTF-16 unit is at most 3 bytes of UTF-8
  const bytes = text.length > limit ? text.length : Buffer.byteLength(text, 'utf8');
  return bytes > limit ? bytes : undefined;
}

/** The one diagnostic of a document of `bytes` over `limitMB`. */
export function tooLargeDiagnostic(bytes: number, limitMB: number, source: string): Diagnostic {
  const mb = (bytes / MB).toFixed(1);
  return {
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: 'warning',
    code: DOCUMENT_TOO_LARGE,
    message: `This document is ${mb} MB, over the ${limitMB} MB limit: it is not analysed (only its top-level outline is given). Raise ${MAX_DOCUMENT_SETTING} to analyse it (the language server's memory grows with the document).`,
    source,
  };
}

/** One entry of a top-level outline: a YAML top-level key or a Markdown heading of level 1 or 2. */
export interface OutlineEntry {
  name: string;
  range: Range;
  selectionRange: Range;
}

/** Which lines open a top-level entry, and the entry's name there (undefined: not one). */
export type TopLevelLine = (text: string, start: number, end: number) => string | undefined;

/** A YAML top-level key (`name:` at column 0, quoted or plain). */
export const yamlTopLevelKey: TopLevelLine = (text, start, end) => {
  const c = text.charCodeAt(start);
  if (start >= end || c === 32 || c === 9 || c === 35 /* # */ || c === 45 /* - */ || c === 46 /* . */ || c === 13)
    return undefined;
  const scanEnd = Math.min(end, start + 1100); // implicit keys are at most 1,024 characters
  for (let i = start; i < scanEnd; i++) {
    if (text.charCodeAt(i) !== 58 /* : */) continue;
    const n = text.charCodeAt(i + 1);
    if (i + 1 < end && n !== 32 && n !== 9 && n !== 13) continue;
    const key = text.slice(start, Math.min(i, start + MAX_NAME_CHARS)).trim();
    return key.replace(/^(["'])(.*)\1$/, '$2') || undefined;
  }
  return undefined;
};

/** A Markdown heading of level 1 or 2 (`# ` or `## `). */
export const markdownTopHeading: TopLevelLine = (text, start, end) => {
  if (text.charCodeAt(start) !== 35) return undefined;
  let i = start + 1;
  if (text.charCodeAt(i) === 35) i++;
  const n = text.charCodeAt(i);
  if (i < end && n !== 32 && n !== 9) return undefined;
  const name = text.slice(i, Math.min(end, i + MAX_NAME_CHARS)).trim();
  return name || undefined;
};

/** The top-level entries of `text`, each ranging to the line before the next (a line scan). */
export function topLevelOutline(text: string, opens: TopLevelLine): OutlineEntry[] {
  const out: OutlineEntry[] = [];
  let line = 0;
  let lastLineEnd = 0;
  for (let start = 0; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const name = opens(text, start, end);
    if (name !== undefined) {
      const prev = out[out.length - 1];
      if (prev) prev.range.end = { line: line - 1, character: lastLineEnd };
      if (out.length === MAX_OUTLINE_ENTRIES) return out;
      const lineEnd = text.charCodeAt(end - 1) === 13 ? end - 1 : end;
      const sel = { start: { line, character: 0 }, end: { line, character: lineEnd - start } };
      out.push({ name, range: { start: sel.start, end: sel.end }, selectionRange: sel });
    }
    lastLineEnd = end - start;
    if (end >= text.length) break;
    start = end + 1;
  }
  const last = out[out.length - 1];
  if (last) last.range.end = { line, character: lastLineEnd };
  return out;
}
