// Markdown parsing helpers: CommonMark + GFM via mdast-util-from-markdown (tables come back as
// table/tableRow/tableCell nodes with positions), plus offset -> 0-based LSP position mapping,
// plain-text extraction and a flat view of the top-level blocks with their enclosing headings.
//
// The mdast packages are ESM-only while this project compiles as CommonJS: they are loaded with
// require() (Node >= 20.19 loads ES modules synchronously; esbuild bundles them) and typed through
// `import()` types with resolution-mode "import".

import type { Heading, List, ListItem, Nodes, Root, RootContent, Table, TableCell, TableRow } from 'mdast';
import type { Position, Range } from '../../core/diagnostics';
import { guardMarkdown, type LimitIssue } from './limits';

type FromMarkdownModule = typeof import('mdast-util-from-markdown', { with: { 'resolution-mode': 'import' } });
type GfmSyntaxModule = typeof import('micromark-extension-gfm', { with: { 'resolution-mode': 'import' } });
type GfmMdastModule = typeof import('mdast-util-gfm', { with: { 'resolution-mode': 'import' } });

/* eslint-disable @typescript-eslint/no-require-imports -- ESM-only packages, required through the CommonJS bundle (esbuild inlines them) */
const { fromMarkdown } = require('mdast-util-from-markdown') as FromMarkdownModule;
const { gfm } = require('micromark-extension-gfm') as GfmSyntaxModule;
const { gfmFromMarkdown } = require('mdast-util-gfm') as GfmMdastModule;
/* eslint-enable @typescript-eslint/no-require-imports */

/** Maps UTF-16 offsets to 0-based line/character positions. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 10) this.starts.push(i + 1);
      else if (c === 13 && text.charCodeAt(i + 1) !== 10) this.starts.push(i + 1);
    }
  }

  get lineCount(): number {
    return this.starts.length;
  }

  position(offset: number): Position {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - this.starts[lo] };
  }

  offset(pos: Position): number {
    const line = Math.max(0, Math.min(pos.line, this.starts.length - 1));
    return Math.min(this.starts[line] + Math.max(0, pos.character), this.lineEnd(line));
  }

  range(start: number, end: number): Range {
    return { start: this.position(start), end: this.position(end) };
  }

  /** Offset just past the last character of a line (before its line break). */
  lineEnd(line: number): number {
    let end = line + 1 < this.starts.length ? this.starts[line + 1] : this.text.length;
    while (end > this.starts[line] && (this.text[end - 1] === '\n' || this.text[end - 1] === '\r')) end--;
    return end;
  }

  lineText(line: number): string {
    return this.text.slice(this.starts[line], this.lineEnd(line));
  }
}

export interface HeadingInfo {
  depth: number;
  text: string;
  /** The whole heading line. */
  range: Range;
  /** The heading's text. */
  selectionRange: Range;
}

/** A top-level block with the headings it sits under (outermost first). */
export interface Block {
  node: RootContent;
  /** Nearest preceding heading, or null. */
  section: HeadingInfo | null;
  /** Index into ParsedDoc.headings of `section`, or -1. */
  sectionIndex: number;
}

export interface ParsedDoc {
  text: string;
  /** What the page limits kept from being checked (limits.ts), at offsets in `text`. */
  limits: LimitIssue[];
  root: Root;
  lines: LineIndex;
  headings: HeadingInfo[];
  blocks: Block[];
}

/**
 * Blanks a leading YAML front matter block (`---` ... `---`) so that it is not read as a setext
 * heading or a thematic break. Characters become spaces; line breaks stay, so offsets hold.
 */
export function maskFrontMatter(text: string): string {
  const m = /^---[ \t]*\r?\n[\s\S]*?\r?\n(?:---|\.\.\.)[ \t]*(?=\r?\n|$)/.exec(text);
  if (!m) return text;
  return m[0].replace(/[^\r\n]/g, ' ') + text.slice(m[0].length);
}

export function parseMarkdown(text: string): ParsedDoc {
  const guarded = guardMarkdown(text);
  // micromark drops a byte-order mark, which would shift every offset by one: read it as a space
  const source = guarded.text.charCodeAt(0) === 0xfeff ? ' ' + guarded.text.slice(1) : guarded.text;
  const root = fromMarkdown(maskFrontMatter(source), { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  const lines = new LineIndex(text);
  const doc: ParsedDoc = { text, limits: guarded.issues, root, lines, headings: [], blocks: [] };
  let section: HeadingInfo | null = null;
  for (const node of root.children) {
    if (node.type === 'heading') {
      section = headingInfo(doc, node);
      doc.headings.push(section);
      continue;
    }
    doc.blocks.push({ node, section, sectionIndex: doc.headings.length - 1 });
  }
  return doc;
}

export function startOffset(node: Nodes): number {
  return node.position?.start.offset ?? 0;
}

export function endOffset(node: Nodes): number {
  return node.position?.end.offset ?? 0;
}

export function nodeRange(doc: ParsedDoc, node: Nodes): Range {
  return doc.lines.range(startOffset(node), endOffset(node));
}

/** Range of the first line of a node (for multi-line list items). */
export function firstLineRange(doc: ParsedDoc, node: Nodes): Range {
  const start = doc.lines.position(startOffset(node));
  const end = Math.min(endOffset(node), doc.lines.lineEnd(start.line));
  return { start, end: doc.lines.position(end) };
}

/** Collapses runs of whitespace and trims. */
export function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Visible text of a node: text and code-span values, breaks and <br> as spaces, HTML comments dropped. */
export function plainText(node: Nodes): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
      return node.value;
    case 'break':
      return ' ';
    case 'html':
      // <br> is a line break in a cell; comments vanish; anything else (`Set<UserId>`) is kept as written.
      if (/^<br\s*\/?>$/i.test(node.value.trim())) return ' ';
      return node.value.startsWith('<!--') ? '' : node.value;
    case 'code':
      return node.value;
    default:
      if ('children' in node) return (node.children as Nodes[]).map(plainText).join('');
      return '';
  }
}

export function headingInfo(doc: ParsedDoc, h: Heading): HeadingInfo {
  const range = nodeRange(doc, h);
  const selectionRange =
    h.children.length > 0
      ? doc.lines.range(startOffset(h.children[0]), endOffset(h.children[h.children.length - 1]))
      : range;
  return { depth: h.depth, text: squash(plainText(h)), range, selectionRange };
}

export interface CellInfo {
  /** Visible text, whitespace squashed (code spans contribute their value). */
  text: string;
  /** The cell's content (without pipes and padding); a blank cell's inner span. */
  range: Range;
  node: TableCell | null;
}

export interface RowInfo {
  range: Range;
  cells: CellInfo[];
  node: TableRow;
}

export interface TableInfo {
  range: Range;
  header: RowInfo;
  rows: RowInfo[];
  /** Header texts as written. */
  columns: string[];
  section: HeadingInfo | null;
  node: Table;
}

function cellInfo(doc: ParsedDoc, cell: TableCell): CellInfo {
  const text = squash(plainText(cell));
  if (cell.children.length > 0) {
    const range = doc.lines.range(startOffset(cell.children[0]), endOffset(cell.children[cell.children.length - 1]));
    return { text, range, node: cell };
  }
  let s = startOffset(cell);
  let e = endOffset(cell);
  if (doc.text[s] === '|') s++;
  if (e > s && doc.text[e - 1] === '|') e--;
  return { text, range: doc.lines.range(s, e), node: cell };
}

function rowInfo(doc: ParsedDoc, row: TableRow): RowInfo {
  return { range: nodeRange(doc, row), cells: row.children.map((c) => cellInfo(doc, c)), node: row };
}

export function readTable(doc: ParsedDoc, table: Table, section: HeadingInfo | null): TableInfo {
  const [head, ...body] = table.children;
  const header = rowInfo(doc, head);
  return {
    range: nodeRange(doc, table),
    header,
    rows: body.map((r) => rowInfo(doc, r)),
    columns: header.cells.map((c) => c.text),
    section,
    node: table,
  };
}

/** A row's cell, or a blank stand-in spanning the row when the row is short (or the column absent). */
export function cellAt(row: RowInfo, index: number | undefined): CellInfo {
  if (index !== undefined && index >= 0 && index < row.cells.length) return row.cells[index];
  return { text: '', range: row.range, node: null };
}

/** All top-level tables with their sections. */
export function tablesOf(doc: ParsedDoc): TableInfo[] {
  const out: TableInfo[] = [];
  for (const b of doc.blocks) if (b.node.type === 'table') out.push(readTable(doc, b.node, b.section));
  return out;
}

/** Top-level lists, each with its section. */
export function listsOf(doc: ParsedDoc): { list: List; section: HeadingInfo | null; sectionIndex: number }[] {
  const out: { list: List; section: HeadingInfo | null; sectionIndex: number }[] = [];
  for (const b of doc.blocks)
    if (b.node.type === 'list') out.push({ list: b.node, section: b.section, sectionIndex: b.sectionIndex });
  return out;
}

/** The text of a list item's first paragraph (its own line, not nested lists or code blocks). */
export function itemLeadText(item: ListItem): string {
  const first = item.children[0];
  return first && first.type === 'paragraph' ? squash(plainText(first)) : '';
}

/** Placeholder texts that mean "nothing here". */
export function isPlaceholder(s: string): boolean {
  return /^(?:|-+|—|–|n\/?a|none|tbd|\?+)$/i.test(s.trim());
}

/** The heading at `headingIndex` and the headings it nests under, outermost first. */
export function enclosingHeadings(doc: ParsedDoc, headingIndex: number): HeadingInfo[] {
  const chain: HeadingInfo[] = [];
  let depth = Infinity;
  for (let i = headingIndex; i >= 0; i--) {
    const h = doc.headings[i];
    if (h.depth < depth) {
      chain.unshift(h);
      depth = h.depth;
    }
  }
  return chain;
}

/** First heading of depth 1 (the page title), or null. */
export function titleOf(doc: ParsedDoc): HeadingInfo | null {
  return doc.headings.find((h) => h.depth === 1) ?? null;
}

/** Where to report a page-level problem: the title heading, else the first non-blank line. Never the whole file. */
export function pageAnchor(doc: ParsedDoc): Range {
  const title = titleOf(doc) ?? doc.headings[0];
  if (title) return title.range;
  for (let line = 0; line < doc.lines.lineCount; line++) {
    const t = doc.lines.lineText(line);
    if (t.trim().length > 0) return { start: { line, character: 0 }, end: { line, character: t.length } };
  }
  return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
}

/** Range of `needle` inside a node's source text (first occurrence), or the node's range. */
export function rangeOfSubstring(doc: ParsedDoc, node: Nodes, needle: string): Range {
  const s = startOffset(node);
  const at = doc.text.slice(s, endOffset(node)).indexOf(needle);
  return at < 0 ? nodeRange(doc, node) : doc.lines.range(s + at, s + at + needle.length);
}

/** Range of `needle` inside a range of the source, or the range itself. */
export function rangeWithin(doc: ParsedDoc, range: Range, needle: string, fromIndex = 0): Range {
  const s = doc.lines.offset(range.start);
  const at = doc.text.slice(s, doc.lines.offset(range.end)).indexOf(needle, fromIndex);
  return at < 0 ? range : doc.lines.range(s + at, s + at + needle.length);
}
