// Where and how a schema error of a routing table is named and placed (messages.ts writes the
// diagnostics): the path of the offending value in words, its shown value, the key or value span a
// diagnostic covers. Pure.
import { lineEndAt } from './lines';
import { locate, parsePointer, type Located, type PathSeg, type RNode } from './rnode';
import { isBlockCollection } from './fixes';

export interface MapContext {
  /** Root node of the parsed text the errors refer to. */
  root: RNode;
  /** The parsed text (offsets of `root` are relative to it). */
  text: string;
  /** Path from the document root to the validated value (['routes'] when validating the routes map). */
  prefix: readonly PathSeg[];
}

// ---- naming ----

export function segsOf(pointer: string): string[] {
  return parsePointer(pointer);
}

export function fullPath(ctx: MapContext, segs: readonly string[]): PathSeg[] {
  return [...ctx.prefix, ...segs];
}

/** "/routes/*\/skip/*" style rule name: route keys and indices generalized. */
export function ruleOf(path: readonly PathSeg[], keyword: string, detail?: string): string {
  const parts = path.map((p, i) =>
    typeof p === 'number' || /^\d+$/.test(String(p))
      ? '*'
      : i > 0 && path[i - 1] === 'routes' && i === 1
        ? '*'
        : String(p),
  );
  return `/${parts.join('/')}:${keyword}${detail !== undefined ? `:${detail}` : ''}`;
}

export function lastKey(path: readonly PathSeg[]): string | undefined {
  for (let i = path.length - 1; i >= 0; i--) {
    const p = path[i];
    if (typeof p === 'string' && !/^\d+$/.test(p)) return p;
  }
  return undefined;
}

/** Human name of the value at `path`: `"max_items"`, `item 2 of "skip"`, `the routing table`, `route "Kind/Bug"`. */
export function describe(path: readonly PathSeg[]): string {
  if (path.length === 0) return 'the routing table';
  const last = path[path.length - 1];
  if (typeof last === 'number' || /^\d+$/.test(String(last))) {
    const owner = lastKey(path.slice(0, -1));
    return `item ${Number(last) + 1} of "${owner ?? '?'}"`;
  }
  if (path.length === 2 && path[0] === 'routes') return `route "${last}"`;
  return `"${last}"`;
}

/** Noun for the values an enum at `path` accepts. */
export function enumNoun(path: readonly PathSeg[], defName: string | undefined): string {
  if (defName === 'stage') return 'stage';
  const key = lastKey(path);
  const isItem = /^\d+$/.test(String(path[path.length - 1]));
  switch (key) {
    case 'skill':
      return 'skill';
    case 'mode':
      return 'mode';
    case 'effort':
      return 'effort';
    case 'dimensions':
      return 'dimension';
    case 'inherit_parent':
      return 'parent kind';
    case 'id':
      if (path.includes('oversize_signals')) return 'oversize signal id';
      if (path.includes('single_gate')) return 'gate id';
      return 'id';
    default:
      return isItem ? `value in "${key}"` : `value for "${key}"`;
  }
}

export function typeName(t: string): string {
  switch (t) {
    case 'integer':
      return 'an integer';
    case 'object':
      return 'a mapping';
    case 'array':
      return 'a list';
    case 'string':
      return 'a string';
    case 'boolean':
      return 'a boolean (true or false)';
    case 'null':
      return 'null';
    case 'number':
      return 'a number';
    default:
      return t;
  }
}

export function actualType(v: unknown): string {
  if (v === null || v === undefined) return 'empty (null)';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'number') return Number.isInteger(v) ? `the number ${v}` : `the number ${v}`;
  if (typeof v === 'boolean') return `the boolean ${v}`;
  return `the string ${JSON.stringify(shown(v as string))}`;
}

/** Longest value quoted whole in a message; a longer one is cut (a message never copies a huge scalar). */
export const MAX_QUOTED_CHARS = 80;

/** `s`, cut to MAX_QUOTED_CHARS with its length said when longer. */
export function shown(s: string): string {
  return s.length <= MAX_QUOTED_CHARS
    ? s
    : `${s.slice(0, MAX_QUOTED_CHARS)}... (${s.length.toLocaleString('en-US')} characters)`;
}

export function fmtValue(v: unknown): string {
  return typeof v === 'string' ? `"${shown(v)}"` : JSON.stringify(v);
}

export function listValues(values: readonly unknown[]): string {
  const strs = values.map((v) => (v === null ? 'null' : String(v)));
  if (strs.length <= 1) return strs.join('');
  return `${strs.slice(0, -1).join(', ')} or ${strs[strs.length - 1]}`;
}

// ---- ranges ----

export interface Span {
  start: number;
  end: number;
}

export function firstLine(ctx: MapContext, n: RNode): Span {
  return {
    start: n.start,
    end: Math.max(
      n.start,
      Math.min(lineEndAt(ctx.text, n.start), n.end > n.start ? n.end : lineEndAt(ctx.text, n.start)),
    ),
  };
}

/** The key of the pair holding the located node, or the node's first line. */
export function keySpan(ctx: MapContext, loc: Located): Span {
  if (loc.pair) return { start: loc.pair.key.start, end: loc.pair.key.end };
  return firstLine(ctx, loc.node);
}

/** The offending value: a scalar or flow collection itself; a block collection by its key. */
export function valueSpan(ctx: MapContext, loc: Located): Span {
  const n = loc.node;
  if (n.kind === 'scalar' && n.style === 'empty') return loc.pair ? keySpan(ctx, loc) : { start: n.start, end: n.end };
  if (isBlockCollection(n)) return keySpan(ctx, loc);
  if (n.kind === 'scalar' && n.style === 'block') return loc.pair ? keySpan(ctx, loc) : firstLine(ctx, n);
  return { start: n.start, end: n.end };
}

export function at(ctx: MapContext, segs: readonly string[]): Located {
  return locate(ctx.root, segs).found;
}
