// A light, position-carrying tree of a YAML document (or of one chunk of it), shared by the fast
// parser and the `yaml` library fallback. Offsets are relative to the parsed text (a chunk), so a
// parsed chunk can be cached by its text and reused wherever the chunk moves in the document.
// Every node also gives its plain JavaScript value (what `yaml`'s toJS() returns), which is what
// the schema validator sees: a scalar carries it, the fast parser's collections build it when asked. Pure: never import 'vscode'.
import { MAX_KEY_LENGTH } from './limits';
import { isAlias, isMap, isNode, isPair, isScalar, isSeq, Scalar, type Document, type Node as YamlNode } from 'yaml';

export type RNode = RScalar | RMap | RSeq | RAlias;

export interface RScalar {
  kind: 'scalar';
  start: number;
  end: number;
  value: string | number | boolean | null;
  /** `empty`: no value at all (`key:` followed by nothing); start === end, just after the colon. */
  style: 'plain' | 'single' | 'double' | 'block' | 'empty';
}

export interface RAlias {
  kind: 'alias';
  start: number;
  end: number;
  value: unknown;
}

export interface RSeq {
  kind: 'seq';
  start: number;
  end: number;
  flow: boolean;
  items: RNode[];
  value: unknown[];
}

export interface RPair {
  key: RNode;
  /** The key as a property name (what toJS() uses). */
  name: string;
  value: RNode;
}

export interface RMap {
  kind: 'map';
  start: number;
  end: number;
  flow: boolean;
  pairs: RPair[];
  value: Record<string, unknown>;
  /** Lazily built name -> last pair with that name (the one toJS() keeps). */
  index?: Map<string, RPair>;
}

/**
 * A mapping whose value is built when asked for (the fast parser's): the tree is the one copy of
 * the document kept, and a value (for the schema validator, a hover) is made from it each time,
 * a new object that the caller keeps or lets go.
 */
export class LazyMap implements RMap {
  readonly kind = 'map';
  declare index?: Map<string, RPair>;
  constructor(
    readonly start: number,
    readonly end: number,
    readonly flow: boolean,
    readonly pairs: RPair[],
  ) {}
  get value(): Record<string, unknown> {
    const value: Record<string, unknown> = {};
    for (const p of this.pairs) setProp(value, p.name, p instanceof ScalarPair ? p.valueValue : p.value.value);
    return value;
  }
}

/** A pair that holds its key's fields, the key node made when asked for (one object per pair, not two). */
export class LazyPair implements RPair {
  constructor(
    readonly keyStart: number,
    readonly keyEnd: number,
    readonly keyValue: RScalar['value'],
    readonly keyStyle: RScalar['style'],
    readonly name: string,
    readonly value: RNode,
  ) {}
  get key(): RScalar {
    return { kind: 'scalar', start: this.keyStart, end: this.keyEnd, value: this.keyValue, style: this.keyStyle };
  }
}

/**
 * A pair whose value is a scalar, holding the fields of both its key and its value: the value node
 * (like the key node) is made when asked for, a new object each time (one object per pair, not three).
 */
export class ScalarPair implements RPair {
  constructor(
    readonly keyStart: number,
    readonly keyEnd: number,
    readonly keyValue: RScalar['value'],
    readonly keyStyle: RScalar['style'],
    readonly name: string,
    readonly valueStart: number,
    readonly valueEnd: number,
    readonly valueValue: RScalar['value'],
    readonly valueStyle: RScalar['style'],
  ) {}
  get key(): RScalar {
    return { kind: 'scalar', start: this.keyStart, end: this.keyEnd, value: this.keyValue, style: this.keyStyle };
  }
  get value(): RScalar {
    return {
      kind: 'scalar',
      start: this.valueStart,
      end: this.valueEnd,
      value: this.valueValue,
      style: this.valueStyle,
    };
  }
}

/** The value of `p` when it is a mapping or a sequence (a ScalarPair makes no node for this). */
export function collectionValue(p: RPair): RMap | RSeq | undefined {
  if (p instanceof ScalarPair) return undefined;
  const v = p.value;
  return v.kind === 'map' || v.kind === 'seq' ? v : undefined;
}

/** A sequence whose value is built when asked for (see LazyMap). */
export class LazySeq implements RSeq {
  readonly kind = 'seq';
  constructor(
    readonly start: number,
    readonly end: number,
    readonly flow: boolean,
    readonly items: RNode[],
  ) {}
  get value(): unknown[] {
    const items = this.items;
    const value = new Array<unknown>(items.length);
    for (let i = 0; i < items.length; i++) value[i] = items[i].value;
    return value;
  }
}

/** Sets a property the way yaml's toJS() does (a `__proto__` key becomes an own property). */
export function setProp(obj: Record<string, unknown>, name: string, value: unknown): void {
  // an own property set again (a duplicate key) keeps its place and takes the later value, as with toJS()
  if (name === '__proto__') {
    Object.defineProperty(obj, name, { value, writable: true, enumerable: true, configurable: true });
  } else {
    obj[name] = value;
  }
}

export function keyName(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') {
    // a collection as a key: its JSON, cut at MAX_KEY_LENGTH (nested collection keys would otherwise
    // grow exponentially, each level escaping the one inside it)
    let json: string;
    try {
      json = JSON.stringify(value) ?? '';
    } catch {
      json = '';
    }
    return json.length > MAX_KEY_LENGTH ? json.slice(0, MAX_KEY_LENGTH) : json;
  }
  return String(value);
}

/** The last pair named `name` (toJS() semantics for duplicate keys). */
export function getPair(map: RMap, name: string): RPair | undefined {
  if (map.pairs.length <= 8) {
    for (let i = map.pairs.length - 1; i >= 0; i--) if (map.pairs[i].name === name) return map.pairs[i];
    return undefined;
  }
  if (!map.index) {
    map.index = new Map();
    for (const p of map.pairs) map.index.set(p.name, p);
  }
  return map.index.get(name);
}

export type PathSeg = string | number;

export interface Located {
  node: RNode;
  /** The pair whose value is `node`, when `node` is a mapping value. */
  pair?: RPair;
  /** The sequence holding `node` and its index, when `node` is an item. */
  seq?: RSeq;
  index?: number;
  /** The mapping holding `pair`. */
  parentMap?: RMap;
}

/** Follows a path of keys and indices from `root`; stops (returning the deepest node reached) at aliases or missing steps. */
export function locate(root: RNode, path: readonly PathSeg[]): { found: Located; complete: boolean } {
  let cur: Located = { node: root };
  for (const seg of path) {
    const n = cur.node;
    if (n.kind === 'map') {
      const p = getPair(n, String(seg));
      if (!p) return { found: cur, complete: false };
      cur = { node: p.value, pair: p, parentMap: n };
    } else if (n.kind === 'seq') {
      const i = typeof seg === 'number' ? seg : Number(seg);
      if (!Number.isInteger(i) || i < 0 || i >= n.items.length) return { found: cur, complete: false };
      cur = { node: n.items[i], seq: n, index: i };
    } else {
      return { found: cur, complete: false };
    }
  }
  return { found: cur, complete: true };
}

/** Parses a JSON pointer (ajv's instancePath) into segments. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The most nodes a document's aliases may expand to (a "billion laughs" shape is refused). */
export const MAX_ALIAS_EXPANSION = 100_000;

/** An alias that could not be given a value: unresolved, inside its own anchor, or past the expansion cap. */
export interface AliasIssue {
  start: number;
  end: number;
  kind: 'unresolved' | 'cycle' | 'expansion';
  name: string;
}

/**
 * Converts a node of a `yaml` Document into an RNode (ranges as yaml reports them). Values are
 * what `toJS()` gives: an alias takes its anchor's value (the same object, built once, so alias
 * chains stay linear). An alias inside its own anchor, to no anchor, or past MAX_ALIAS_EXPANSION
 * expanded nodes reads as null and is reported in `issues`.
 */
export function fromYaml(
  node: YamlNode | null | undefined,
  _doc: Document,
  src: string,
  issues: AliasIssue[] = [],
): RNode {
  /** Anchored nodes: their value and expanded size once converted; undefined while being converted. */
  const anchored = new Map<unknown, { value: unknown; size: number } | undefined>();
  const byName = new Map<string, unknown>();
  let expanded = 0;
  let capped = false;
  const conv = (n: unknown, at: number): RNode => {
    const before = expanded;
    const anchor = isNode(n) && (n as { anchor?: string }).anchor ? n : undefined;
    if (anchor) {
      anchored.set(anchor, undefined);
      byName.set((anchor as { anchor: string }).anchor, anchor);
    }
    const r = convNode(n, at);
    if (anchor) anchored.set(anchor, { value: r.value, size: expanded - before });
    return r;
  };
  const convNode = (n: unknown, at: number): RNode => {
    expanded++;
    if (n === null || n === undefined) return { kind: 'scalar', start: at, end: at, value: null, style: 'empty' };
    if (isScalar(n)) {
      const [s, e] = n.range ?? [at, at];
      const t = n.type;
      const style: RScalar['style'] =
        t === Scalar.QUOTE_DOUBLE
          ? 'double'
          : t === Scalar.QUOTE_SINGLE
            ? 'single'
            : t === Scalar.BLOCK_FOLDED || t === Scalar.BLOCK_LITERAL
              ? 'block'
              : s === e
                ? 'empty'
                : 'plain';
      const v = n.value;
      const value =
        v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
          ? v
          : typeof v === 'bigint'
            ? Number(v)
            : keyName(v);
      return { kind: 'scalar', start: s, end: e, value, style };
    }
    if (isAlias(n)) {
      const [s, e] = n.range ?? [at, at];
      // the latest anchor of that name before the alias (not n.resolve(doc): it walks the whole document each time)
      const target = byName.get(n.source);
      const known = target === undefined ? undefined : anchored.get(target);
      let value: unknown = null;
      if (target === undefined || !anchored.has(target))
        issues.push({ start: s, end: e, kind: 'unresolved', name: n.source });
      else if (!known) issues.push({ start: s, end: e, kind: 'cycle', name: n.source });
      else if (expanded + known.size > MAX_ALIAS_EXPANSION) {
        if (!capped) issues.push({ start: s, end: e, kind: 'expansion', name: n.source });
        capped = true;
      } else {
        expanded += known.size;
        value = known.value;
      }
      return { kind: 'alias', start: s, end: e, value };
    }
    if (isSeq(n)) {
      const [s, e] = n.range ?? [at, at];
      const items: RNode[] = [];
      const value: unknown[] = [];
      let pos = s;
      for (const it of n.items) {
        const c = conv(it, pos);
        items.push(c);
        value.push(c.value);
        pos = c.end;
      }
      return { kind: 'seq', start: s, end: trimEnd(src, s, e), flow: !!n.flow, items, value };
    }
    if (isMap(n)) {
      const [s, e] = n.range ?? [at, at];
      const pairs: RPair[] = [];
      const value: Record<string, unknown> = {};
      for (const p of n.items) {
        const k = conv(p.key, s);
        const kEnd = k.end;
        // `key:` with no value: yaml gives a null scalar just after the colon, or no node.
        const v = p.value === null || p.value === undefined ? emptyAfterColon(src, kEnd) : conv(p.value, kEnd);
        const name = keyName(k.value);
        pairs.push({ key: k, name, value: v });
        setProp(value, name, v.value);
      }
      return { kind: 'map', start: s, end: trimEnd(src, s, e), flow: !!n.flow, pairs, value };
    }
    if (isPair(n)) {
      // A pair as a sequence item (`- ? a : b` / flow `[a: b]`): a single-pair map.
      const k = conv(n.key, at);
      const v = conv(n.value, k.end);
      const name = keyName(k.value);
      const value: Record<string, unknown> = {};
      setProp(value, name, v.value);
      return { kind: 'map', start: k.start, end: v.end, flow: true, pairs: [{ key: k, name, value: v }], value };
    }
    return { kind: 'scalar', start: at, end: at, value: null, style: 'empty' };
  };
  return conv(node, 0);
}

/** Block collections in yaml end after the trailing newline/comments; trim to the last content. */
function trimEnd(src: string, start: number, end: number): number {
  let e = Math.min(end, src.length);
  for (;;) {
    while (e > start && /\s/.test(src[e - 1])) e--;
    // drop a trailing comment on the last line
    const lineStart = src.lastIndexOf('\n', e - 1) + 1;
    const hash = findComment(src, lineStart, e);
    if (hash > start && hash >= lineStart) {
      e = hash;
      continue;
    }
    return e;
  }
}

/** Offset of a `#` that starts a comment within [from, to), or -1. */
function findComment(src: string, from: number, to: number): number {
  let inS = false;
  let inD = false;
  for (let i = from; i < to; i++) {
    const c = src[i];
    if (inD) {
      if (c === '\\') i++;
      else if (c === '"') inD = false;
    } else if (inS) {
      if (c === "'") inS = false;
    } else if (c === '"') inD = true;
    else if (c === "'") inS = true;
    else if (c === '#' && (i === from || src[i - 1] === ' ' || src[i - 1] === '\t')) return i;
  }
  return -1;
}

function emptyAfterColon(src: string, keyEnd: number): RScalar {
  let i = keyEnd;
  while (i < src.length && (src[i] === ' ' || src[i] === '\t')) i++;
  if (src[i] === ':') i++;
  return { kind: 'scalar', start: i, end: i, value: null, style: 'empty' };
}
