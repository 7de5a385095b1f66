// Where the cursor is, in terms of the routing table's structure: the path of the mapping whose
// key is being typed, of the value being typed, or of the list whose item is being typed. Works
// on incomplete text (that is when completion is asked for), so it reads indentation and the
// current line rather than a parse tree. Block style and single-line flow lists/mappings. Pure.
import { MAX_KEY_LENGTH } from './limits';
import { lineEndAt, lineStartAt } from './lines';
import type { PathSeg } from './rnode';

export interface CursorContext {
  /** key: `path` is the mapping; value: `path` is the value's own path; item: `path` is the list's item path (ends with '*'). */
  mode: 'key' | 'value' | 'item';
  path: PathSeg[];
  /** Text of the token typed so far (before the cursor). */
  prefix: string;
  /** Offsets of the token to replace (from its start to the end of the word under the cursor). */
  replaceStart: number;
  replaceEnd: number;
  /** Keys already present in the mapping (key mode), or items already in the flow list (item mode). */
  siblings: Set<string>;
  /** Column of the key being typed (key mode). */
  column: number;
  /** The value needs a leading space (cursor right after `key:`). */
  needsSpace: boolean;
  inFlow: boolean;
}

interface LineInfo {
  indent: number;
  /** Dash columns of `- ` prefixes. */
  dashes: number;
  /** Column of the content after the dashes. */
  contentCol: number;
  /** The key at the content column, when the line is `key:` or `key: value`. */
  key?: string;
  blank: boolean;
}

const KEY_RE = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^\s#'"\-?:,[\]{}&*!|>%@`][^#]*?|[-?:][^\s#][^#]*?)\s*:(?:\s|$)/;

function unquote(k: string): string {
  if (k.startsWith('"') && k.endsWith('"')) return k.slice(1, -1);
  if (k.startsWith("'") && k.endsWith("'")) return k.slice(1, -1).replace(/''/g, "'");
  return k.trim();
}

/** KEY_RE on the first MAX_KEY_LENGTH characters: a key ends within them (as in yaml), and this bounds KEY_RE's backtracking on a long line. */
function keyAt(s: string): RegExpExecArray | null {
  return KEY_RE.exec(s.length > MAX_KEY_LENGTH + 8 ? s.slice(0, MAX_KEY_LENGTH + 8) : s);
}

function lineInfo(line: string): LineInfo {
  const m = /^( *)((?:-(?: +|$))*)/.exec(line) as RegExpExecArray;
  const indent = m[1].length;
  const dashes = (m[2].match(/-/g) ?? []).length;
  const contentCol = m[0].length;
  const rest = line.slice(contentCol);
  if (/^\s*#/.test(line) || line.trim() === '') return { indent, dashes: 0, contentCol: indent, blank: true };
  const k = keyAt(rest);
  return { indent, dashes, contentCol, key: k ? unquote(k[1]) : undefined, blank: false };
}

/** Index of a `#` starting a comment in `s`, or -1. */
function commentStart(s: string): number {
  let q: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === q) q = undefined;
    } else if (c === '"' || c === "'") q = c;
    else if (c === '#' && (i === 0 || s[i - 1] === ' ')) return i;
  }
  return -1;
}

const WORD_RE = /[^\s,[\]{}:#]*/y;

export function cursorContext(text: string, offset: number): CursorContext | undefined {
  const ls = lineStartAt(text, offset);
  const le = lineEndAt(text, ls);
  const line = text.slice(ls, le);
  const col = offset - ls;
  const before = line.slice(0, col);
  if (commentStart(before) >= 0) return undefined;
  const own = /^( *)((?:- +)*)/.exec(before) as RegExpExecArray;
  const indent = own[1].length;
  const ownDashes = (own[2].match(/-/g) ?? []).length;
  const contentCol = own[0].length;
  const rest = before.slice(contentCol);
  WORD_RE.lastIndex = col;
  const tail = WORD_RE.exec(line)?.[0] ?? '';
  const replaceEnd = offset + tail.length;

  const ancestors = parentPath(text, ls, ownDashes > 0 ? indent : contentCol);
  const base: PathSeg[] = [...ancestors];
  for (let i = 0; i < ownDashes; i++) base.push('*');

  // Inside a single-line flow collection?
  const flow = flowContext(rest);
  if (flow) {
    const keyMatch = keyAt(rest.slice(0, flow.openAt));
    const outerKey = keyMatch ? unquote(keyMatch[1]) : undefined;
    const path = outerKey !== undefined ? [...base, outerKey] : [...base];
    const start = ls + contentCol + flow.tokenStart;
    if (flow.kind === 'seq') {
      return {
        mode: 'item',
        path: [...path, '*'],
        prefix: flow.token,
        replaceStart: start,
        replaceEnd,
        siblings: new Set(flow.items),
        column: 0,
        needsSpace: false,
        inFlow: true,
      };
    }
    if (flow.innerKey !== undefined) {
      return {
        mode: 'value',
        path: [...path, flow.innerKey],
        prefix: flow.token,
        replaceStart: start,
        replaceEnd,
        siblings: new Set(),
        column: 0,
        needsSpace: flow.needsSpace,
        inFlow: true,
      };
    }
    return {
      mode: 'key',
      path,
      prefix: flow.token,
      replaceStart: start,
      replaceEnd,
      siblings: new Set(flow.keys),
      column: 0,
      needsSpace: false,
      inFlow: true,
    };
  }

  const kv = keyAt(rest);
  if (kv) {
    const key = unquote(kv[1]);
    const afterColon = rest.slice(kv[0].length);
    const valueStart = ls + contentCol + kv[0].length;
    const endsWithColon = /:$/.test(rest);
    return {
      mode: 'value',
      path: [...base, key],
      prefix: afterColon.trimStart(),
      replaceStart: endsWithColon ? offset : valueStart + (afterColon.length - afterColon.trimStart().length),
      replaceEnd,
      siblings: new Set(),
      column: contentCol,
      needsSpace: endsWithColon,
      inFlow: false,
    };
  }
  if (/^\S*$/.test(rest) || /^"[^"]*$/.test(rest) || /^'[^']*$/.test(rest)) {
    const siblings = siblingKeys(text, ls, contentCol, ownDashes > 0);
    return {
      mode: ownDashes > 0 ? 'item' : 'key',
      path: base,
      prefix: rest,
      replaceStart: ls + contentCol,
      replaceEnd,
      siblings,
      column: contentCol,
      needsSpace: false,
      inFlow: false,
    };
  }
  return undefined;
}

/** The keys (and '*' for list items) leading to the block that holds a token at `col` on the line starting at `ls`. */
function parentPath(text: string, ls: number, col: number): PathSeg[] {
  const path: PathSeg[] = [];
  let searchCol = col;
  let pos = ls;
  while (pos > 0 && searchCol > 0) {
    const prevEnd = pos - 1;
    const prevStart = lineStartAt(text, prevEnd);
    let line = text.slice(prevStart, prevEnd);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    pos = prevStart;
    const info = lineInfo(line);
    if (info.blank) continue;
    if (info.contentCol < searchCol) {
      if (info.key !== undefined) {
        path.unshift(info.key);
        for (let i = 0; i < info.dashes; i++) path.unshift('*');
      } else if (info.dashes > 0) {
        for (let i = 0; i < info.dashes; i++) path.unshift('*');
      } else {
        break; // a scalar at a lower indent: not YAML we can follow
      }
      searchCol = info.indent;
    } else if (info.dashes > 0 && info.indent < searchCol) {
      // `- key: v` whose content is at our column: we are in that item's mapping
      for (let i = 0; i < info.dashes; i++) path.unshift('*');
      searchCol = info.indent;
    }
  }
  return path;
}

/** Keys of the block mapping whose keys sit at `col`, around the line starting at `ls`. */
function siblingKeys(text: string, ls: number, col: number, ownItemStart: boolean): Set<string> {
  const keys = new Set<string>();
  // upward
  if (!ownItemStart) {
    let pos = ls;
    while (pos > 0) {
      const prevEnd = pos - 1;
      const prevStart = lineStartAt(text, prevEnd);
      const info = lineInfo(text.slice(prevStart, prevEnd).replace(/\r$/, ''));
      pos = prevStart;
      if (info.blank) continue;
      if (info.contentCol < col) break;
      if (info.contentCol === col && info.key !== undefined) keys.add(info.key);
      if (info.dashes > 0 && info.indent < col) break; // first line of our item
      if (info.contentCol === col && info.dashes > 0) break;
    }
  }
  // downward
  let pos = lineEndAt(text, ls) + 1;
  while (pos < text.length) {
    const le = lineEndAt(text, pos);
    const info = lineInfo(text.slice(pos, le));
    const next = text.indexOf('\n', le);
    pos = next < 0 ? text.length : next + 1;
    if (info.blank) continue;
    if (info.contentCol < col || (info.dashes > 0 && info.indent <= col)) break;
    if (info.contentCol === col && info.key !== undefined) keys.add(info.key);
  }
  return keys;
}

interface FlowCtx {
  kind: 'seq' | 'map';
  /** Offset (in `rest`) of the opening bracket of the outermost open collection. */
  openAt: number;
  token: string;
  tokenStart: number;
  items: string[];
  keys: string[];
  innerKey?: string;
  needsSpace: boolean;
}

function flowContext(rest: string): FlowCtx | undefined {
  const stack: number[] = [];
  let q: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i];
    if (q) {
      if (c === q) q = undefined;
    } else if (c === '"' || c === "'") q = c;
    else if (c === '[' || c === '{') stack.push(i);
    else if (c === ']' || c === '}') stack.pop();
  }
  if (stack.length !== 1) return undefined; // not in a flow collection, or nested: not handled
  const openAt = stack[0];
  const inner = rest.slice(openAt + 1);
  const parts = inner.split(',');
  const last = parts[parts.length - 1];
  const done = parts.slice(0, -1).map((p) => p.trim());
  if (rest[openAt] === '[') {
    const token = last.trimStart();
    return {
      kind: 'seq',
      openAt,
      token,
      tokenStart: rest.length - token.length,
      items: done.map(unquote),
      keys: [],
      needsSpace: false,
    };
  }
  const colon = last.indexOf(':');
  const keys = done.map((p) => unquote(p.split(':')[0] ?? ''));
  if (colon >= 0) {
    const innerKey = unquote(last.slice(0, colon));
    const valuePart = last.slice(colon + 1);
    const token = valuePart.trimStart();
    return {
      kind: 'map',
      openAt,
      token,
      tokenStart: rest.length - token.length,
      items: [],
      keys,
      innerKey,
      needsSpace: valuePart.length === 0,
    };
  }
  const token = last.trimStart();
  return { kind: 'map', openAt, token, tokenStart: rest.length - token.length, items: [], keys, needsSpace: false };
}
