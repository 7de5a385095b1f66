// A bounded parse for large texts outside the fast subset (a table whose structure an edit broke, a
// large document with tabs or anchors): the `yaml` library is never handed more than
// YAML_PIECE_MAX characters at once, which would block the language server for seconds (about
// 0.75 µs a character). Such a text is split into its entries by indentation (the lines at its
// first level; an entry still too large, whose first line opens a block (`key:` or `-` alone),
// into the entries of that block, and so on), each entry parsed on its own, with yields between
// them. The result carries the entries' YAML syntax errors, one error per line indented less than
// the entries before it but more than their parent (a broken structure), and a note saying what
// is not checked: the schema and route checks of the text (it has no tree), aliases to anchors in
// other entries, and an entry too large that cannot be split (not parsed at all; but a block
// scalar, which costs `yaml` little, is parsed whatever its size). Pure.
import { MAX_DIAGNOSTICS, MAX_KEY_LENGTH } from './limits';
import { lineEndAt } from './lines';
import type { ParsedText } from './parsed-text';
import type { RelDiag } from './types';

/** The most characters handed to the `yaml` library at once (about 0.1 s of its work on a quiet machine). */
export const YAML_PIECE_MAX = 128 * 1024;

/** Characters parsed between two yields. */
const BYTES_PER_STEP = 64 * 1024;
/** Adjacent entries of one level are parsed together up to this many characters. */
const GROUP_MAX = 16 * 1024;

const KB = 1024;

/** A line opening a block: `key:` or `- ` items ending with a key or a dash, nothing after (but a comment). */
const OPENS_BLOCK = /^ *(?:- +)*(?:-|(?:"[^"]*"|'[^']*'|[^\s#'"][^#]*?) *:)(?: +#.*)?\r?$/;

/** The leading white space of a line, tabs counted as one column each (a tab in indentation is a YAML error, reported by the entry's parse). */
/** A line ending with a block scalar's header (`key: |`, `- >-`): its text costs `yaml` little (about 30 ms a MB), whatever its size. */
const BLOCK_SCALAR = /^[ \t]*(?:- +)*(?:(?:"[^"]*"|'[^']*'|[^\s#'"][^#]*?) *: +)?[|>][-+0-9]*(?: +#.*)?\r?$/;

/** Lines longer than this are never matched against OPENS_BLOCK or BLOCK_SCALAR (a key is at most 1,024 characters). */
const MAX_HEADER_LINE = 2 * MAX_KEY_LENGTH;

/** The first line of the entry at `start`, when short enough to be a block's or block scalar's header. */
function headerLine(text: string, start: number): string | undefined {
  const end = lineEndAt(text, start);
  return end - start <= MAX_HEADER_LINE ? text.slice(start, end) : undefined;
}

function opensBlockScalar(text: string, start: number): boolean {
  const line = headerLine(text, start);
  return line !== undefined && BLOCK_SCALAR.test(line);
}

function indentAt(text: string, pos: number, end: number): number {
  let i = pos;
  while (i < end && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  return i - pos;
}

/** The start of a plain implicit key on the line at `start` whose `: ` comes more than MAX_KEY_LENGTH characters after it; -1 when none. */
function overlongKey(text: string, start: number): number {
  const end = lineEndAt(text, start);
  let k = start;
  while (k < end && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k++;
  if (end - k <= MAX_KEY_LENGTH) return -1;
  const head = text.slice(k, k + MAX_KEY_LENGTH + 1);
  if (/^[[{"'#|>&*!%@`-]/.test(head) || /:(?: |$)| #/.test(head)) return -1;
  const colon = text.indexOf(':', k + MAX_KEY_LENGTH);
  return colon >= 0 && colon < end && (colon + 1 === end || text.charCodeAt(colon + 1) === 32) ? k : -1;
}

/** Is the line [pos, end) blank or a comment only? */
function isBlank(text: string, pos: number, end: number): boolean {
  let i = pos;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c === 35) return true;
    if (c !== 32 && c !== 13 && c !== 9) return false;
    i++;
  }
  return true;
}

interface Entry {
  start: number;
  end: number;
  /** Starts at a line indented between levels (an error): it begins a piece of its own. */
  bad?: boolean;
}

/**
 * Parses `text` (line ends normalized) entry by entry; `parse` reads one entry (at most
 * YAML_PIECE_MAX characters, or one that cannot be split: then it is reported, not parsed).
 */
export function* parsePieces(text: string, parse: (piece: string) => ParsedText): Generator<void, ParsedText, void> {
  const syntax: RelDiag[] = [];
  const state = { parsed: 0, tooLarge: 0, errors: 0 };
  const add = (d: RelDiag) => {
    if (d.severity === 'error') state.errors++;
    syntax.push(d);
  };
  // the document's first level: lines at the indentation of its first content line, or less
  const top: Entry[] = [];
  splitInto(text, 0, text.length, -1, top, add);
  let sinceYield = 0;
  /** Parses [start, end): adjacent entries of one level, or one entry. */
  const parseOne = (start: number, end: number) => {
    const p = parse(text.slice(start, end));
    for (const d of p.syntax) {
      // an alias may point at an anchor in another entry: not resolved here
      if (d.rule === 'yaml:ALIAS_UNRESOLVED') continue;
      add({ ...d, start: d.start + start, end: d.end + start });
    }
    state.parsed++;
    sinceYield += end - start;
  };
  const walk = function* (entries: Entry[]): Generator<void, void, void> {
    // adjacent entries of one level are parsed together, up to GROUP_MAX characters (a line
    // indented between levels begins a new group: what follows it reads as its children)
    let group: Entry | undefined;
    for (const e of entries) {
      if (state.errors > MAX_DIAGNOSTICS) return; // nothing further would be listed
      if (sinceYield > BYTES_PER_STEP) {
        sinceYield = 0;
        yield;
      }
      const size = e.end - e.start;
      if (group && size <= GROUP_MAX && !e.bad && e.start === group.end && e.end - group.start <= GROUP_MAX) {
        group.end = e.end;
        continue;
      }
      if (group) parseOne(group.start, group.end);
      group = undefined;
      if (size <= GROUP_MAX) {
        group = { start: e.start, end: e.end };
        continue;
      }
      if (size > YAML_PIECE_MAX && !opensBlockScalar(text, e.start)) {
        const inner = splitBlock(text, e.start, e.end, add);
        if (inner) {
          yield* walk(inner);
          continue;
        }
        state.tooLarge++;
        const keyAt = overlongKey(text, e.start);
        if (keyAt >= 0) {
          add({
            start: keyAt,
            end: Math.min(keyAt + MAX_KEY_LENGTH, lineEndAt(text, keyAt)),
            severity: 'error',
            code: 'yaml.syntax',
            message:
              'YAML syntax error: The : indicator must be at most 1024 chars after the start of an implicit block mapping key.',
            rule: 'yaml:KEY_OVER_1024_CHARS',
          });
        }
        add({
          start: e.start,
          end: lineEndAt(text, e.start),
          severity: 'warning',
          code: 'routing.limit',
          message: `This entry (${Math.round((e.end - e.start) / KB).toLocaleString('en-US')} KB) is outside the subset read quickly and cannot be split into smaller entries; more than ${YAML_PIECE_MAX / KB} KB is never handed to the YAML parser at once: it is not checked.`,
          rule: 'limit:yaml-piece',
        });
        continue;
      }
      parseOne(e.start, e.end);
    }
    if (group && state.errors <= MAX_DIAGNOSTICS) parseOne(group.start, group.end);
  };
  yield* walk(top);
  syntax.sort((a, b) => a.start - b.start);
  syntax.unshift({
    start: 0,
    end: lineEndAt(text, 0),
    severity: 'information',
    code: 'routing.limit',
    message: `This part (${(text.length / KB / KB).toFixed(1)} MB) is outside the subset read quickly, and more than ${YAML_PIECE_MAX / KB} KB is never handed to the YAML parser at once: it is checked for YAML syntax entry by entry (in ${state.parsed.toLocaleString('en-US')} pieces; aliases to anchors in other entries are not resolved), without the schema and route checks.`,
    rule: 'limit:yaml-piece',
  });
  return { root: null, syntax, anchors: false, fast: false, pieces: true };
}

/**
 * The entries of the block opened by the line at `start` (its first line: `key:` or `-` alone):
 * that line, then each line at the indentation of the block's first line (or less: an error);
 * undefined when the first line opens no block.
 */
function splitBlock(text: string, start: number, end: number, add: (d: RelDiag) => void): Entry[] | undefined {
  const first = lineEndAt(text, start);
  const line = headerLine(text, start);
  if (line === undefined || !OPENS_BLOCK.test(line)) return undefined;
  const parent = indentAt(text, start, first);
  const out: Entry[] = [{ start, end: Math.min(end, first + 1) }];
  splitInto(text, Math.min(end, first + 1), end, parent, out, add);
  return out.length > 1 ? out : undefined;
}

/**
 * Splits [from, end) into entries: a new one at each content line indented at most as the first
 * content line (`level`); a line indented less than `level` but more than `parent` is an error
 * (a broken structure), and starts an entry of its own. Lines before the first content line join
 * the first entry.
 */
function splitInto(
  text: string,
  from: number,
  end: number,
  parent: number,
  out: Entry[],
  add: (d: RelDiag) => void,
): void {
  let level = -1;
  let cur: Entry | undefined;
  let pos = from;
  while (pos < end) {
    let nl = text.indexOf('\n', pos);
    if (nl < 0 || nl >= end) nl = end;
    const next = Math.min(end, nl + 1);
    if (!isBlank(text, pos, nl)) {
      const indent = indentAt(text, pos, nl);
      if (parent < 0 && cur && indent === 0 && /^(?:---|\.\.\.)(?:[ \r\n]|$)/.test(text.slice(pos, pos + 4))) {
        // a second document: an error, and what follows is not read (as the whole parse would say)
        add({
          start: pos,
          end: Math.max(pos + 3, lineEndAt(text, pos)),
          severity: 'error',
          code: 'yaml.syntax',
          message:
            'YAML syntax error: A routing table is a single YAML document: remove the document separator and what follows.',
          rule: 'yaml:MULTIPLE_DOCS',
        });
        cur.end = pos;
        return;
      }
      if (level < 0) level = indent;
      if (indent <= level) {
        if (indent < level && indent > parent) {
          const at = pos + indent;
          add({
            start: at,
            end: Math.max(at + 1, lineEndAt(text, at)),
            severity: 'error',
            code: 'yaml.syntax',
            message:
              'YAML syntax error: Bad indentation: this line is indented less than the entries before it but more than their parent (all mapping items must start at the same column).',
            rule: 'yaml:BAD_INDENT',
          });
        }
        if (cur) cur.end = pos;
        else if (out.length === 0 && pos > from) {
          out.push({ start: from, end: pos }); // blank lines and comments before it
        }
        cur = indent < level && indent > parent ? { start: pos, end, bad: true } : { start: pos, end };
        out.push(cur);
      }
    } else if (!cur && out.length > 0 && parent >= 0) {
      // blank lines right after the block's first line stay with it
      out[out.length - 1].end = next;
    }
    pos = next;
  }
  if (!cur && pos > from && out.length === 0) out.push({ start: from, end });
}
