// Documented limits of the routing reader, checked before any parser runs so that hostile input
// (thousands of nested `[`, `{` or indented blocks) is reported instead of overflowing the stack:
// - MAX_NESTING: nesting deeper than this many levels is not checked (real tables nest about 6);
// - MAX_KEY_LENGTH: an implicit key longer than this is a YAML error (as in `yaml`, YAML 1.2);
// - MAX_DIAGNOSTICS: problems past this many in one document are not listed (one diagnostic says so);
//   past that point unknown top-level keys and routes are not even parsed (nothing of them would be
//   listed; hover, lenses and the outline's detail are not given there), and past MAX_DIAGNOSTICS + 1
//   unknown top-level keys, a run of further ones is one chunk, named by its first key in the outline;
// - MAX_SYMBOLS: the outline (document symbols) lists at most this many entries, nested ones counted
//   (every route of a 10,000-route table is listed; a hostile file of 500,000 keys is not sent whole);
// - MAX_LENS_KEYS: CodeLenses go on at most this many route keys (one lens past them says so);
// - aliases: see MAX_ALIAS_EXPANSION in rnode.ts.
// The depth is an upper bound read line by line (block indentation levels, compact `- `/`? `
// indicators, open flow brackets outside quotes and comments): it may over-count odd layouts,
// never under-count. Pure.

export const MAX_NESTING = 100;
export const MAX_KEY_LENGTH = 1024;
export const MAX_DIAGNOSTICS = 1000;
export const MAX_SYMBOLS = 20000;
/**
 * CodeLenses are put on at most this many route keys (the first, `default` counted; two lenses
 * each): past them one lens, without a command, says how many keys have none (a 14,000-route table
 * would otherwise send 28,000 lenses on every request).
 */
export const MAX_LENS_KEYS = 2000;

/** The offset of the first place nested deeper than `limit` levels, or -1. */
export function tooDeepAt(text: string, limit = MAX_NESTING): number {
  const scan = new DepthScan(text, limit);
  while (scan.found === undefined) scan.scan(Infinity);
  return scan.found;
}

/** Lines scanned between two yields of tooDeepSteps. */
const DEPTH_LINES_PER_STEP = 20000;

/** tooDeepAt as a generator that yields every DEPTH_LINES_PER_STEP lines (a caller's slices). */
export function* tooDeepSteps(text: string, limit = MAX_NESTING): Generator<void, number, void> {
  const scan = new DepthScan(text, limit);
  for (;;) {
    scan.scan(DEPTH_LINES_PER_STEP);
    if (scan.found !== undefined) return scan.found;
    yield;
  }
}

/** The line scan behind tooDeepAt, resumable (a plain method: V8 optimizes it as it does not a generator's loop). */
class DepthScan {
  /** The offset found, -1 for none; undefined while the scan goes on. */
  found: number | undefined;
  private readonly indents: number[] = [];
  private flow = 0;
  private flowIndent = 0;
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly limit: number,
  ) {
    if (cannotNestPast(text, limit)) this.found = -1;
  }

  scan(maxLines: number): void {
    if (this.found !== undefined) return;
    const { text, limit, indents } = this;
    let { flow, flowIndent, pos } = this;
    const n = text.length;
    for (let lines = 0; lines < maxLines && pos < n; lines++) {
      let nl = text.indexOf('\n', pos);
      if (nl < 0) nl = n;
      let i = pos;
      while (i < nl && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
      const c = i < nl ? text.charCodeAt(i) : -1;
      if (c !== -1 && c !== 35 && c !== 13) {
        const indent = i - pos;
        // a flow collection's lines are indented more than the line that opened it: a line that is
        // not has left it (or the bracket was text, as in `a[b`), so the block indentation counts again
        if (flow > 0 && indent <= flowIndent) flow = 0;
        if (flow === 0) {
          while (indents.length && indents[indents.length - 1] > indent) indents.pop();
          if (!indents.length || indents[indents.length - 1] < indent) indents.push(indent);
        }
        let depth = indents.length + flow;
        if (depth > limit) {
          this.found = i;
          return;
        }
        let quote = 0;
        for (let j = i; j < nl; j++) {
          const ch = text.charCodeAt(j);
          if (quote) {
            if (ch === quote) quote = 0;
            else if (ch === 92 && quote === 34) j++;
            continue;
          }
          if (ch === 34 || ch === 39) {
            const prev = j === pos ? 32 : text.charCodeAt(j - 1);
            if (prev === 32 || prev === 9 || prev === 91 || prev === 123 || prev === 44 || prev === 58) quote = ch;
          } else if (ch === 35 && (j === pos || text.charCodeAt(j - 1) === 32 || text.charCodeAt(j - 1) === 9)) break;
          else if (ch === 91 || ch === 123) {
            if (flow === 0) flowIndent = indent;
            flow++;
            depth++;
          } else if (ch === 93 || ch === 125) {
            if (flow > 0) flow--;
            depth--;
          } else if ((ch === 45 || ch === 63 || ch === 58) && (j + 1 === nl || text.charCodeAt(j + 1) === 32)) depth++;
          if (depth > limit) {
            this.found = j;
            return;
          }
        }
      }
      pos = nl + 1;
    }
    this.flow = flow;
    this.flowIndent = flowIndent;
    this.pos = pos;
    if (pos >= n) this.found = -1;
  }
}

const NESTING_CHARS = ['\n', '[', '{', '-', '?', ':'];

/**
 * A cheap bound (substring searches only) that proves a text cannot nest past `limit`: every level
 * tooDeepAt counts comes from a line, a bracket or an indicator (`- `, `? `, `: `), so a text with
 * fewer of those than the limit is never too deep. Most chunks of a routing table are.
 */
function cannotNestPast(text: string, limit: number): boolean {
  let count = 1;
  for (const ch of NESTING_CHARS) {
    for (let i = text.indexOf(ch); i >= 0; i = text.indexOf(ch, i + 1)) if (++count > limit) return false;
  }
  return true;
}
