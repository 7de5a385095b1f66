// The fast parser for a large text, with yields: a text the fast parser reads in one go would
// block the language server for as long as it takes (a 7.9 MB table the chunker cannot split, such
// as one with a duplicated top-level key: about 0.3-0.7 s), so a large text is parsed range by
// range. A block collection is split into its entries (the lines at its indentation), adjacent
// entries parsed together up to `group` characters (fastParseRange, offsets in the whole text), with a
// yield after each range; an entry larger than `big` that is a `key:` whose block value sits on the
// lines below is split the same way, one level down. The ranges' pairs (or items) make one
// collection: the same tree fastParse makes of the whole text, or BAIL where it gives up (held by
// a differential test). Pure.
import { BAIL, fastParse, fastParseRange, pairOf, type FastResult } from './fastParse';
import { LazyMap, LazySeq, type RNode, type RPair } from './rnode';

export interface FastStepOptions {
  /** Texts up to this many characters are parsed at once. */
  min: number;
  /** Adjacent entries are parsed together up to this many characters. */
  group: number;
  /** An entry larger than this is split one level down (when it is a `key:` with a block value). */
  big: number;
  /** Lines scanned between two yields. */
  linesPerStep: number;
}

export const FAST_STEPS: FastStepOptions = { min: 128 * 1024, group: 32 * 1024, big: 128 * 1024, linesPerStep: 20000 };

/** A line with nothing but spaces or a comment; a line whose content starts with `-` and a space (or ends there); any other. */
const BLANK = 0;
const DASH = 1;
const OTHER = 2;

class Bail extends Error {}
const bail = new Bail('bail');

/** The lines of a text (start, indentation, kind), scanned in steps. */
class Lines {
  start = new Int32Array(1024);
  indent = new Int32Array(1024);
  kind = new Uint8Array(1024);
  count = 0;
  /** A tab or a lone CR where the indentation ends: the fast parser gives up on the text. */
  gaveUp = false;
  private pos = 0;

  constructor(private readonly src: string) {}

  /** Scans up to `maxLines` more lines; true when the text is done. */
  scan(maxLines: number): boolean {
    const src = this.src;
    const n = src.length;
    let pos = this.pos;
    for (let k = 0; k < maxLines; k++) {
      let nl = src.indexOf('\n', pos);
      if (nl < 0) nl = n;
      let end = nl;
      if (end > pos && src.charCodeAt(end - 1) === 13) end--;
      let i = pos;
      while (i < end && src.charCodeAt(i) === 32) i++;
      const c = i < end ? src.charCodeAt(i) : -1;
      if (c === 9 || c === 13) this.gaveUp = true;
      if (this.count === this.start.length) this.grow();
      const at = this.count++;
      this.start[at] = pos;
      this.indent[at] = i - pos;
      this.kind[at] =
        c === -1 || c === 35 ? BLANK : c === 45 && (i + 1 >= end || src.charCodeAt(i + 1) === 32) ? DASH : OTHER;
      if (nl >= n) return true;
      pos = nl + 1;
    }
    this.pos = pos;
    return false;
  }

  private grow(): void {
    const size = this.start.length * 2;
    const start = new Int32Array(size);
    start.set(this.start);
    const indent = new Int32Array(size);
    indent.set(this.indent);
    const kind = new Uint8Array(size);
    kind.set(this.kind);
    this.start = start;
    this.indent = indent;
    this.kind = kind;
  }

  /** The offset where line `i` starts (the text's length for i === count). */
  offset(i: number, textLength: number): number {
    return i < this.count ? this.start[i] : textLength;
  }

  /** The first line in [from, to) with content, or -1. */
  nextContent(from: number, to: number): number {
    for (let i = from; i < to; i++) if (this.kind[i] !== BLANK) return i;
    return -1;
  }
}

/** fastParse(src), yielding between ranges of a large text. */
export function* fastParseSteps(src: string, options: FastStepOptions = FAST_STEPS): Generator<void, FastResult, void> {
  if (src.length <= options.min) return fastParse(src);
  const lines = new Lines(src);
  while (!lines.scan(options.linesPerStep)) yield;
  if (lines.gaveUp) return BAIL;
  const first = lines.nextContent(0, lines.count);
  if (first < 0) return fastParse(src); // blank lines and comments only
  try {
    return yield* new Stepped(src, lines, options).node(0, lines.count, lines.indent[first]);
  } catch (e) {
    if (e === bail) return BAIL;
    throw e;
  }
}

class Stepped {
  constructor(
    private readonly src: string,
    private readonly lines: Lines,
    private readonly o: FastStepOptions,
  ) {}

  private at(line: number): number {
    return this.lines.offset(line, this.src.length);
  }

  /** The parse of lines [a, b) as a document of their own; throws bail where the fast parser gives up. */
  private range(a: number, b: number): RNode {
    const r = fastParseRange(this.src, this.at(a), this.at(b));
    if (r === BAIL || r === null) throw bail;
    return r;
  }

  /**
   * The line after entry `e` of a collection at indentation `ind` in lines [e, b): the next entry's
   * first line, or b. A line indented less, or (in a sequence) one that is not an item, ends the
   * collection where the fast parser, reading the whole text, gives up: here too.
   */
  private nextEntry(e: number, b: number, ind: number, seq: boolean): number {
    const { indent, kind } = this.lines;
    for (let i = e + 1; i < b; i++) {
      const k = kind[i];
      if (k === BLANK) continue;
      const n = indent[i];
      if (n > ind) continue;
      if (n < ind) throw bail;
      if (seq) {
        if (k !== DASH) throw bail;
        return i;
      }
      // an item at the indentation of a map's keys belongs to the value of the key before it
      if (k !== DASH) return i;
    }
    return b;
  }

  /** The block node in lines [a, b) whose first content line is indented `ind`. */
  *node(a: number, b: number, ind: number): Generator<void, RNode, void> {
    const lines = this.lines;
    const first = lines.nextContent(a, b);
    const seq = lines.kind[first] === DASH;
    const entries: (RPair | RNode)[] = [];
    let start = -1;
    let end = -1;
    /** The first line of the entries not parsed yet (with the blank lines before them). */
    let from = a;
    /** Entries from `from` to the one at hand (else the lines before it are blank). */
    let pending = false;
    for (let e = first; e < b;) {
      const next = this.nextEntry(e, b, ind, seq);
      if (!seq && this.at(next) - this.at(e) > this.o.big) {
        const big = yield* this.bigPair(e, next, ind);
        if (big) {
          if (pending) {
            start = this.add(this.range(from, e), seq, entries, start);
            yield;
          }
          entries.push(big.pair);
          if (start < 0) start = big.start;
          end = big.end;
          from = next;
          pending = false;
          e = next;
          continue;
        }
      }
      if (next >= b || this.at(next) - this.at(from) >= this.o.group) {
        const r = this.range(from, next);
        if (from === a && next >= b) return r; // one range: the whole collection (or a lone scalar)
        start = this.add(r, seq, entries, start);
        end = r.end;
        from = next;
        pending = false;
        yield;
      } else pending = true;
      e = next;
    }
    return seq
      ? new LazySeq(start, end, false, entries as RNode[])
      : new LazyMap(start, end, false, entries as RPair[]);
  }

  /** Adds the pairs (items) of a range's collection to `entries`; the collection's start. */
  private add(r: RNode, seq: boolean, entries: (RPair | RNode)[], start: number): number {
    if (seq) {
      if (r.kind !== 'seq' || r.flow) throw bail;
      for (const item of r.items) entries.push(item);
    } else {
      if (r.kind !== 'map' || r.flow) throw bail;
      for (const p of r.pairs) entries.push(p);
    }
    return start < 0 ? r.start : start;
  }

  /**
   * A large entry [e, next) of a map at indentation `ind` whose first line is `key:` alone and whose
   * value is indented further: its pair, the value parsed in steps; undefined for any other entry.
   */
  private *bigPair(
    e: number,
    next: number,
    ind: number,
  ): Generator<void, { pair: RPair; start: number; end: number } | undefined, void> {
    const head = fastParseRange(this.src, this.at(e), this.at(e + 1));
    if (head === BAIL || head === null || head.kind !== 'map' || head.flow || head.pairs.length !== 1) return undefined;
    const p = head.pairs[0];
    if (p.value.kind !== 'scalar' || p.value.style !== 'empty' || p.key.kind !== 'scalar') return undefined;
    const v = this.lines.nextContent(e + 1, next);
    if (v < 0 || this.lines.indent[v] <= ind) return undefined;
    const value = yield* this.node(e + 1, next, this.lines.indent[v]);
    return { pair: pairOf(p.key, value), start: p.key.start, end: value.end };
  }
}
