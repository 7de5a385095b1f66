// A fast parser for the plain block-YAML subset that routing tables are written in: block mappings
// and sequences, single-line plain and quoted scalars, single-line flow collections, comments.
// Anything outside the subset (anchors, aliases, tags, block or multi-line scalars, escapes,
// complex keys, directives, tabs in indentation, odd indentation, anything `yaml` would call an
// error) makes it give up (return BAIL), and the caller parses the text with the `yaml` library
// instead. For what it accepts it produces exactly what `yaml` produces: the same JavaScript value
// and the same ranges (checked by a differential test). It is several times faster than `yaml`,
// which is what lets a 10,000-route file validate in a fraction of a second.
// It allocates little, as a 10,000-route table is parsed at once and kept: one node tree (a
// collection's value is built when asked for, a pair holds its key's fields and, when its value is
// a scalar, the value's too: rnode.ts's LazyMap, LazySeq, LazyPair, ScalarPair), arrays of
// their exact size (gathered on one shared stack), line tables reused from parse to parse. Pure.
import { MAX_KEY_LENGTH } from './limits';
import { LazyMap, LazyPair, LazySeq, ScalarPair, type RNode, type RPair, type RScalar } from './rnode';

export const BAIL = Symbol('bail');
export type FastResult = RNode | null | typeof BAIL;

class Bail extends Error {}
const bail = new Bail();

const SP = 32;
const TAB = 9;
const HASH = 35;
const COLON = 58;
const DASH = 45;

/** What FastParser.next searches for: the space before a comment's `#`, a tab, a colon. */
const SEARCHED = [' #', '\t', ':'];
const COMMENT = 0;
const TAB_AT = 1;
const COLON_AT = 2;

/** Parses `src` (one YAML document). Returns the root node, null for an empty document, or BAIL. */
export function fastParse(src: string): FastResult {
  return fastParseRange(src, 0, src.length);
}

/**
 * Parses the lines of `src` from offset `from` (a line start) to `to` (a line start, or the end)
 * as if they were a document of their own, with offsets in `src` (fastSteps.ts parses a large
 * text range by range). Searches never look past `to`.
 */
export function fastParseRange(src: string, from: number, to: number): FastResult {
  try {
    // a slice from 0 shares src's characters (no copy) and bounds every search at `to`
    return new FastParser(to === src.length ? src : src.slice(0, to), from).parseDocument();
  } catch (e) {
    if (e === bail) return BAIL;
    throw e;
  } finally {
    clearStack();
  }
}

/**
 * The pairs and items of the collections being parsed, innermost last: a collection takes its own
 * as an array of their exact size when it ends (arrays grown by push waste most of their room).
 */
const stack: unknown[] = [];
let top = 0;
let highWater = 0;

function push(x: unknown): void {
  stack[top++] = x;
  if (top > highWater) highWater = top;
}

/** The entries pushed since `base`, as a new array; the stack back at `base`. */
function popFrom<T>(base: number): T[] {
  const out = stack.slice(base, top) as T[];
  top = base;
  return out;
}

/** Drops the references the stack still holds (so it keeps no parsed node alive). */
function clearStack(): void {
  stack.fill(undefined, 0, highWater);
  top = 0;
  highWater = 0;
}

/**
 * Short texts seen lately (keys, names, enum values), by a hash of their characters: a text seen
 * before is that same string, not a new copy (a routing table repeats a few dozen words thousands
 * of times).
 */
const recent: (string | undefined)[] = new Array<string | undefined>(1024).fill(undefined);
/** Up to this length V8 copies a slice (longer slices point into their parent, which the table must not keep alive). */
const RECENT_MAX_LENGTH = 12;

/** src.slice(from, to), the string seen before when the same short text was. */
function textOf(src: string, from: number, to: number): string {
  const len = to - from;
  if (len > RECENT_MAX_LENGTH || len === 0) return src.slice(from, to);
  let h = len;
  for (let i = from; i < to; i++) h = Math.imul(h ^ src.charCodeAt(i), 0x01000193);
  const slot = (h ^ (h >>> 15)) & 1023;
  const seen = recent[slot];
  if (seen !== undefined && seen.length === len && src.startsWith(seen, from)) return seen;
  const text = src.slice(from, to);
  recent[slot] = text;
  return text;
}

/** Per-line tables shared by every parse (grown as needed, never shrunk below a small size). */
let lineStart = new Int32Array(256);
let lineEnd = new Int32Array(256);
let lineIndent = new Int32Array(256);
let lineHasContent = new Uint8Array(256);
/** Tables larger than this are given back after the parse that needed them. */
const KEEP_LINES = 1 << 14;

function growLines(need: number): void {
  let n = lineStart.length;
  while (n < need) n *= 2;
  const grow = <A extends Int32Array | Uint8Array>(a: A, make: (k: number) => A): A => {
    const b = make(n);
    b.set(a);
    return b;
  };
  lineStart = grow(lineStart, (k) => new Int32Array(k));
  lineEnd = grow(lineEnd, (k) => new Int32Array(k));
  lineIndent = grow(lineIndent, (k) => new Int32Array(k));
  lineHasContent = grow(lineHasContent, (k) => new Uint8Array(k));
}

function shrinkLines(): void {
  if (lineStart.length <= KEEP_LINES) return;
  lineStart = new Int32Array(256);
  lineEnd = new Int32Array(256);
  lineIndent = new Int32Array(256);
  lineHasContent = new Uint8Array(256);
}

const INT_RE = /^[-+]?[0-9]+$/;
const FLOAT_RE = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
const EXP_RE = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const SPECIAL_RE = /^(?:0o[0-7]+|0x[0-9a-fA-F]+|[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;

/** Resolves a plain scalar with the YAML 1.2 core schema, as `yaml` does. */
function resolvePlain(s: string): string | number | boolean | null {
  const c = s.charCodeAt(0);
  if (s.length <= 5) {
    switch (s) {
      case '~':
      case 'null':
      case 'Null':
      case 'NULL':
        return null;
      case 'true':
      case 'True':
      case 'TRUE':
        return true;
      case 'false':
      case 'False':
      case 'FALSE':
        return false;
    }
  }
  // Only strings that start like a number can be numbers.
  if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) {
    if (INT_RE.test(s)) return parseInt(s, 10);
    if (FLOAT_RE.test(s) || EXP_RE.test(s)) return parseFloat(s);
    if (SPECIAL_RE.test(s)) throw bail;
  }
  return s;
}

class FastParser {
  private readonly src: string;
  /** Per line (the shared tables, filled by the constructor): start offset, end offset (before \r?\n), indent, whether it holds content (not blank, not only a comment). */
  private readonly ls: Int32Array;
  private readonly le: Int32Array;
  private readonly ind: Int32Array;
  private readonly content: Uint8Array;
  private readonly lines: number;
  private li = 0;
  /** Where the flow node parsed last ends (parseFlow, flowItem). */
  private flowEnd = 0;
  /** Per searched text (` #`, tab, colon): the offset searched from, and the first match at or after it (src.length: none). */
  private readonly searchedFrom = [-1, -1, -1];
  private readonly found = [0, 0, 0];

  constructor(src: string, from: number) {
    this.src = src;
    if (from === 0 && src.charCodeAt(0) === 0xfeff) throw bail; // byte-order mark: let yaml handle it
    const n = src.length;
    let pos = from;
    let k = 0;
    try {
      while (pos <= n) {
        let nl = src.indexOf('\n', pos);
        if (nl < 0) nl = n;
        let end = nl;
        if (end > pos && src.charCodeAt(end - 1) === 13) end--;
        let i = pos;
        while (i < end && src.charCodeAt(i) === SP) i++;
        const c = i < end ? src.charCodeAt(i) : -1;
        if (c === TAB) throw bail; // tabs in indentation: let yaml decide
        if (k === lineStart.length) growLines(k + 1);
        lineStart[k] = pos;
        lineEnd[k] = end;
        lineIndent[k] = i - pos;
        lineHasContent[k] = c !== -1 && c !== HASH ? 1 : 0;
        k++;
        if (c === 13) throw bail; // a lone \r
        pos = nl + 1;
        if (nl === n) break;
      }
    } catch (e) {
      shrinkLines();
      throw e;
    }
    this.ls = lineStart;
    this.le = lineEnd;
    this.ind = lineIndent;
    this.content = lineHasContent;
    this.lines = k;
  }

  parseDocument(): RNode | null {
    try {
      return this.parseRoot();
    } finally {
      shrinkLines();
    }
  }

  private parseRoot(): RNode | null {
    const first = this.nextContent(0);
    if (first < 0) return null;
    const s = this.src;
    const p = this.ls[first] + this.ind[first];
    const c = s.charCodeAt(p);
    if (c === 37 /* % */) throw bail;
    if (this.ind[first] === 0 && (s.startsWith('---', p) || s.startsWith('...', p))) throw bail;
    this.li = first;
    const root = this.parseNodeAtLine(this.ind[first]);
    if (this.nextContent(this.li) >= 0) throw bail;
    return root;
  }

  /** The first offset at or after `from` of SEARCHED[what] (src.length when none); a search is reused while it answers. */
  private next(what: number, from: number): number {
    if (from < this.searchedFrom[what] || this.found[what] < from) {
      const k = this.src.indexOf(SEARCHED[what], from);
      this.searchedFrom[what] = from;
      this.found[what] = k < 0 ? this.src.length : k;
    }
    return this.found[what];
  }

  /** Index of the first content line at or after `from`, or -1. */
  private nextContent(from: number): number {
    const n = this.lines;
    for (let i = from; i < n; i++) if (this.content[i] === 1) return i;
    return -1;
  }

  private isDashAt(p: number, lineEnd: number): boolean {
    if (this.src.charCodeAt(p) !== DASH) return false;
    if (p + 1 >= lineEnd) return true;
    const c = this.src.charCodeAt(p + 1);
    return c === SP;
  }

  /** Parses the block node whose first line is `li`, at column `indent` of that line. */
  private parseNodeAtLine(indent: number): RNode {
    const line = this.li;
    const p = this.ls[line] + indent;
    if (this.isDashAt(p, this.le[line])) return this.parseSeq(indent);
    const keyEnd = this.scanKey(p, this.le[line]);
    if (keyEnd >= 0) return this.parseMap(indent, p);
    // a lone scalar or flow collection on its own line
    const node = this.parseInline(p, this.le[line]);
    this.li = line + 1;
    return node;
  }

  /**
   * If the text at p looks like `key:` (followed by space or end of line), returns the offset of the
   * colon; otherwise -1. Throws bail for keys outside the subset.
   */
  private scanKey(p: number, end: number): number {
    const s = this.src;
    const c = s.charCodeAt(p);
    if (c === 34 /* " */ || c === 39 /* ' */) {
      const close = c === 34 ? this.scanDouble(p, end) : this.scanSingle(p, end);
      if (close < 0) throw bail;
      if (close < end && s.charCodeAt(close) === COLON) {
        if (close + 1 === end || s.charCodeAt(close + 1) === SP) return close;
        throw bail;
      }
      return -1;
    }
    if (c === 91 /* [ */ || c === 123 /* { */) return -1;
    for (let i = p; i < end; i++) {
      const ch = s.charCodeAt(i);
      if (ch === COLON) {
        if (i + 1 === end || s.charCodeAt(i + 1) === SP) return i;
      } else if (ch === HASH) {
        if (s.charCodeAt(i - 1) === SP) return -1;
      } else if (ch === TAB) {
        throw bail;
      }
    }
    return -1;
  }

  private parseKey(p: number, colon: number): RScalar {
    const s = this.src;
    if (colon - p > MAX_KEY_LENGTH) throw bail; // yaml: an implicit key is at most 1024 characters
    const c = s.charCodeAt(p);
    if (c === 34 || c === 39) return this.quoted(p, colon);
    this.checkPlainStart(p, colon);
    let e = colon;
    while (e > p && s.charCodeAt(e - 1) === SP) e--;
    return { kind: 'scalar', start: p, end: e, value: resolvePlain(textOf(s, p, e)), style: 'plain' };
  }

  /** Bails on plain scalars that start with an indicator. */
  private checkPlainStart(p: number, end: number): void {
    const c = this.src.charCodeAt(p);
    switch (c) {
      case 45: // -
      case 63: // ?
      case 58: {
        // `-x`, `?x`, `:x` are plain scalars when a safe character follows
        const n = p + 1 < end ? this.src.charCodeAt(p + 1) : SP;
        if (n === SP || n === TAB || n === 44 || n === 91 || n === 93 || n === 123 || n === 125 || n === HASH)
          throw bail;
        return;
      }
      case 44: // ,
      case 91:
      case 93:
      case 123:
      case 125:
      case 35: // #
      case 38: // &
      case 42: // *
      case 33: // !
      case 124: // |
      case 62: // >
      case 37: // %
      case 64: // @
      case 96: // `
      case 39:
      case 34:
        throw bail;
    }
    if (p >= end) throw bail;
  }

  private parseMap(indent: number, firstAt: number): LazyMap {
    const s = this.src;
    const base = top;
    let at = firstAt;
    let start = -1;
    let end: number;
    for (;;) {
      const line = this.li;
      const lineEnd = this.le[line];
      const colon = this.scanKey(at, lineEnd);
      if (colon < 0) throw bail;
      const key = this.parseKey(at, colon);
      if (start < 0) start = key.start;
      let q = colon + 1;
      while (q < lineEnd && s.charCodeAt(q) === SP) q++;
      let v: RNode;
      if (q >= lineEnd || (s.charCodeAt(q) === HASH && q > colon + 1)) {
        this.li = line + 1;
        v = this.parseBlockValue(indent, true, q);
      } else {
        v = this.parseInline(q, lineEnd);
        this.li = line + 1;
        const nx = this.nextContent(this.li);
        if (nx >= 0 && this.ind[nx] > indent) throw bail; // continuation of a multi-line scalar, or an error
      }
      push(pairOf(key, v));
      end = v.kind === 'scalar' && v.style === 'empty' ? colon + 1 : v.end;
      const nx = this.nextContent(this.li);
      if (nx < 0) break;
      const ni = this.ind[nx];
      if (ni < indent) break;
      if (ni > indent) throw bail;
      const np = this.ls[nx] + ni;
      if (this.isDashAt(np, this.le[nx])) throw bail;
      this.li = nx;
      at = np;
    }
    return new LazyMap(start, end, false, popFrom<RPair>(base));
  }

  /** After `key:` or `-` with nothing else on the line: the nested block, or an empty scalar. */
  private parseBlockValue(indent: number, seqAtSameIndent: boolean, emptyAt: number): RNode {
    const nx = this.nextContent(this.li);
    if (nx >= 0) {
      const ni = this.ind[nx];
      const np = this.ls[nx] + ni;
      if (ni > indent) {
        this.li = nx;
        return this.parseNodeAtLine(ni);
      }
      if (ni === indent && seqAtSameIndent && this.isDashAt(np, this.le[nx])) {
        this.li = nx;
        return this.parseSeq(ni);
      }
    }
    return { kind: 'scalar', start: emptyAt, end: emptyAt, value: null, style: 'empty' };
  }

  private parseSeq(indent: number): LazySeq {
    const s = this.src;
    const base = top;
    let start = -1;
    let end: number;
    for (;;) {
      const line = this.li;
      const lineEnd = this.le[line];
      const dash = this.ls[line] + indent;
      if (start < 0) start = dash;
      let q = dash + 1;
      while (q < lineEnd && s.charCodeAt(q) === SP) q++;
      let item: RNode;
      if (q >= lineEnd || s.charCodeAt(q) === HASH) {
        this.li = line + 1;
        item = this.parseBlockValue(indent, false, dash + 1);
        if (item.kind === 'scalar' && item.style === 'empty') throw bail; // `-` alone: yaml's range differs, rare
      } else if (this.isDashAt(q, lineEnd)) {
        throw bail; // `- - x`
      } else if (this.scanKey(q, lineEnd) >= 0) {
        item = this.parseMap(q - this.ls[line], q);
      } else {
        item = this.parseInline(q, lineEnd);
        this.li = line + 1;
        const nx = this.nextContent(this.li);
        if (nx >= 0 && this.ind[nx] > indent) throw bail;
      }
      push(item);
      end = item.end;
      const nx = this.nextContent(this.li);
      if (nx < 0) break;
      const ni = this.ind[nx];
      if (ni < indent) break;
      if (ni > indent) throw bail;
      if (!this.isDashAt(this.ls[nx] + ni, this.le[nx])) break;
      this.li = nx;
    }
    return new LazySeq(start, end, false, popFrom<RNode>(base));
  }

  /** A scalar or flow collection that must end on this line (only spaces or a comment may follow). */
  private parseInline(p: number, lineEnd: number): RNode {
    const s = this.src;
    const c = s.charCodeAt(p);
    let node: RNode;
    let after: number;
    if (c === 91 || c === 123) {
      node = this.parseFlow(p, lineEnd);
      after = this.flowEnd;
    } else if (c === 34 || c === 39) {
      const close = c === 34 ? this.scanDouble(p, lineEnd) : this.scanSingle(p, lineEnd);
      if (close < 0) throw bail;
      node = this.quoted(p, close);
      after = close;
    } else {
      this.checkPlainStart(p, lineEnd);
      // the scalar runs to the end of the line or to a comment (` #`); a `: ` or a tab in it: bail
      const comment = this.next(COMMENT, p);
      const stop = comment + 1 < lineEnd ? comment + 1 : lineEnd;
      if (this.next(TAB_AT, p) < stop) throw bail;
      for (let k = this.next(COLON_AT, p); k < stop; k = this.next(COLON_AT, k + 1))
        if (k + 1 === lineEnd || s.charCodeAt(k + 1) === SP) throw bail;
      let e = stop;
      while (e > p && s.charCodeAt(e - 1) === SP) e--;
      node = { kind: 'scalar', start: p, end: e, value: resolvePlain(textOf(s, p, e)), style: 'plain' };
      after = e;
    }
    // only spaces or a comment may follow
    let i = after;
    while (i < lineEnd && s.charCodeAt(i) === SP) i++;
    if (i < lineEnd) {
      if (s.charCodeAt(i) !== HASH || i === after) throw bail;
    }
    return node;
  }

  /** Offset just past the closing quote of a double-quoted scalar on this line, or -1. Bails on escapes. */
  private scanDouble(p: number, end: number): number {
    const s = this.src;
    for (let i = p + 1; i < end; i++) {
      const ch = s.charCodeAt(i);
      if (ch === 92 /* \ */) throw bail;
      if (ch === 34) return i + 1;
    }
    return -1;
  }

  private scanSingle(p: number, end: number): number {
    const s = this.src;
    for (let i = p + 1; i < end; i++) {
      if (s.charCodeAt(i) === 39) {
        if (i + 1 < end && s.charCodeAt(i + 1) === 39) {
          i++;
          continue;
        }
        return i + 1;
      }
    }
    return -1;
  }

  /** A quoted scalar from p to close (exclusive, just past the closing quote). */
  private quoted(p: number, close: number): RScalar {
    const s = this.src;
    const dq = s.charCodeAt(p) === 34;
    let text = textOf(s, p + 1, close - 1);
    if (!dq) text = text.replace(/''/g, "'");
    return { kind: 'scalar', start: p, end: close, value: text, style: dq ? 'double' : 'single' };
  }

  /** A flow collection starting at p that ends on this line; flowEnd is set just past it. */
  private parseFlow(p: number, lineEnd: number): RNode {
    const s = this.src;
    const open = s.charCodeAt(p);
    let i = p + 1;
    const skip = () => {
      while (i < lineEnd && s.charCodeAt(i) === SP) i++;
      if (i >= lineEnd) throw bail; // multi-line flow collection
      if (s.charCodeAt(i) === HASH) throw bail;
    };
    const base = top;
    if (open === 91) {
      skip();
      if (s.charCodeAt(i) === 93) {
        this.flowEnd = i + 1;
        return new LazySeq(p, i + 1, true, []);
      }
      for (;;) {
        skip();
        push(this.flowItem(i, lineEnd));
        i = this.flowEnd;
        skip();
        const ch = s.charCodeAt(i);
        if (ch === 44) {
          i++;
          skip();
          if (s.charCodeAt(i) === 93) throw bail; // trailing comma
          continue;
        }
        if (ch === 93) {
          this.flowEnd = i + 1;
          return new LazySeq(p, i + 1, true, popFrom<RNode>(base));
        }
        throw bail;
      }
    }
    // flow mapping
    skip();
    if (s.charCodeAt(i) === 125) {
      this.flowEnd = i + 1;
      return new LazyMap(p, i + 1, true, []);
    }
    for (;;) {
      skip();
      const k = this.flowItem(i, lineEnd, true);
      if (k.kind !== 'scalar' || this.flowEnd - i > MAX_KEY_LENGTH) throw bail;
      i = this.flowEnd;
      if (s.charCodeAt(i) !== COLON) throw bail;
      i++;
      if (i < lineEnd && s.charCodeAt(i) !== SP) throw bail;
      skip();
      const ch0 = s.charCodeAt(i);
      if (ch0 === 44 || ch0 === 125) throw bail; // `{a: }`: empty value, rare
      const v = this.flowItem(i, lineEnd);
      push(pairOf(k as RScalar, v));
      i = this.flowEnd;
      skip();
      const ch = s.charCodeAt(i);
      if (ch === 44) {
        i++;
        skip();
        if (s.charCodeAt(i) === 125) throw bail;
        continue;
      }
      if (ch === 125) {
        this.flowEnd = i + 1;
        return new LazyMap(p, i + 1, true, popFrom<RPair>(base));
      }
      throw bail;
    }
  }

  /** A node inside a flow collection starting at p; flowEnd is set just past it. */
  private flowItem(p: number, lineEnd: number, isKey = false): RNode {
    const s = this.src;
    const c = s.charCodeAt(p);
    if (c === 91 || c === 123) {
      if (isKey) throw bail;
      return this.parseFlow(p, lineEnd);
    }
    if (c === 34 || c === 39) {
      const close = c === 34 ? this.scanDouble(p, lineEnd) : this.scanSingle(p, lineEnd);
      if (close < 0) throw bail;
      // `"a":b` is a JSON-like pair; keep it simple
      if (!isKey && s.charCodeAt(close) === COLON) throw bail;
      this.flowEnd = close;
      return this.quoted(p, close);
    }
    this.checkPlainStart(p, lineEnd);
    let e = p;
    let i = p;
    for (; i < lineEnd; i++) {
      const ch = s.charCodeAt(i);
      if (ch === 44 || ch === 91 || ch === 93 || ch === 123 || ch === 125) break;
      if (ch === COLON) {
        const nx = i + 1 < lineEnd ? s.charCodeAt(i + 1) : SP;
        if (nx === SP || nx === 44 || nx === 93 || nx === 125 || nx === 91 || nx === 123) {
          if (!isKey) throw bail; // implicit pair inside a flow sequence
          break;
        }
      }
      if (ch === HASH && s.charCodeAt(i - 1) === SP) throw bail;
      if (ch === TAB) throw bail;
      if (ch !== SP) e = i + 1;
    }
    this.flowEnd = e;
    return { kind: 'scalar', start: p, end: e, value: resolvePlain(textOf(s, p, e)), style: 'plain' };
  }
}

/** The pair of `key` and `value`, as the parser makes it. */
export function pairOf(key: RScalar, value: RNode): RPair {
  const v = key.value;
  const name = v === null ? '' : String(v);
  if (value.kind === 'scalar')
    return new ScalarPair(key.start, key.end, v, key.style, name, value.start, value.end, value.value, value.style);
  return new LazyPair(key.start, key.end, v, key.style, name, value);
}
