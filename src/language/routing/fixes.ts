// Quick-fix building blocks: nearest-value suggestions, YAML-safe scalar text, removing a sequence
// item, and skeletons for missing required blocks (from the schema). All edits are offset edits on
// the text they were computed for. Pure.
import type { RMap, RNode, RPair, RSeq } from './rnode';
import { deref, typesOf, type JsonSchema } from './schema';
import type { OffsetEdit } from './types';
import { lineEndAt, lineStartAt } from './lines';

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  if (m === 0) return n;
  if (n === 0) return m;
  const d: number[][] = [];
  for (let i = 0; i <= m; i++) d.push(new Array<number>(n + 1).fill(0));
  for (let i = 0; i <= m; i++) d[i][0] = i;
  for (let j = 0; j <= n; j++) d[0][j] = j;
  for (let i = 1; i <= m; i++) {
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[m][n];
}

/** A value longer than this is no misspelling of a name: it gets no suggestion (and no alignment costing its length). */
export const MAX_SUGGESTED_FROM = 256;

/** The candidate nearest to `value` when it is close enough to be a likely misspelling. */
export function nearest(value: string, candidates: readonly string[]): string | undefined {
  if (value.length > MAX_SUGGESTED_FROM) return undefined;
  const v = value.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const lc = c.toLowerCase();
    let dist = editDistance(v, lc);
    if (lc === v) dist = 0;
    else if (lc.replace(/[-_\s]/g, '') === v.replace(/[-_\s]/g, '')) dist = Math.min(dist, 0.5);
    if (dist < bestD) {
      bestD = dist;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(1, Math.min(3, Math.floor(Math.max(value.length, best.length) / 3)));
  return bestD <= limit ? best : undefined;
}

const PLAIN_SAFE = /^[A-Za-z_$][A-Za-z0-9_./$-]*$/;
const RESERVED = /^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;

/** YAML text for a scalar value: plain when that reads back as the same string, else quoted. */
export function scalarText(value: unknown, style?: string): string {
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const s = String(value);
  if (style === 'single') return `'${s.replace(/'/g, "''")}'`;
  if (style === 'double') return JSON.stringify(s);
  if (PLAIN_SAFE.test(s) && !RESERVED.test(s)) return s;
  return JSON.stringify(s);
}

export function columnOf(text: string, offset: number): number {
  return offset - lineStartAt(text, offset);
}

/** Edits that remove item `index` of `seq` (a block item's whole line, or a flow item and its comma). */
export function removeSeqItem(text: string, seq: RSeq, index: number, pair?: RPair): OffsetEdit[] {
  const item = seq.items[index];
  if (seq.flow) {
    if (index < seq.items.length - 1) return [{ start: item.start, end: seq.items[index + 1].start, newText: '' }];
    if (index > 0) return [{ start: seq.items[index - 1].end, end: item.end, newText: '' }];
    return [{ start: seq.start, end: seq.end, newText: '[]' }];
  }
  if (seq.items.length === 1 && pair) {
    // the only item: `key:\n  - x` becomes `key: []`
    const colon = text.indexOf(':', pair.key.end);
    return [{ start: colon + 1, end: lineEndAt(text, item.end), newText: ' []' }];
  }
  const from = lineStartAt(text, item.start);
  let to = lineEndAt(text, item.end);
  if (to < text.length) to = text.indexOf('\n', to) + 1 || text.length;
  return [{ start: from, end: to, newText: '' }];
}

/** Placeholder text for a value of schema `s` (valid where possible). */
export function placeholder(s0: JsonSchema): string {
  const s = deref(s0).schema;
  if (s.const !== undefined) return scalarText(s.const);
  if (s.enum && s.enum.length) {
    const first = s.enum.find((v) => v !== null);
    return scalarText(first === undefined ? null : first);
  }
  const types = typesOf(s);
  if (types.includes('array')) {
    const items = s.items ? deref(s.items).schema : undefined;
    const min = s.minItems ?? 0;
    if (items?.enum && min > 0)
      return `[${items.enum
        .filter((v) => v !== null)
        .slice(0, Math.max(min, 1))
        .map((v) => scalarText(v))
        .join(', ')}]`;
    return '[]';
  }
  if (types.includes('object')) return '{}';
  if (types.includes('boolean')) return 'false';
  if (types.includes('integer') || types.includes('number')) return String(s.minimum ?? 0);
  if (types.includes('string')) return '""';
  return 'null';
}

/** Block YAML lines for `name: <skeleton of s>` at `indent` spaces (required properties only). */
export function skeletonLines(name: string, s0: JsonSchema, indent: number, unit = 2): string[] {
  const s = deref(s0).schema;
  const pad = ' '.repeat(indent);
  const key = scalarText(name);
  if (typesOf(s).includes('object') && s.properties && (s.required?.length ?? 0) > 0) {
    const lines = [`${pad}${key}:`];
    for (const r of s.required ?? []) {
      const sub = s.properties[r];
      if (sub) lines.push(...skeletonLines(r, sub, indent + unit, unit));
      else lines.push(`${pad}${' '.repeat(unit)}${scalarText(r)}: null`);
    }
    return lines;
  }
  return [`${pad}${key}: ${placeholder(s)}`];
}

/** Flow YAML for the skeleton of `s` (for insertion into a flow mapping). */
export function skeletonFlow(s0: JsonSchema): string {
  const s = deref(s0).schema;
  if (typesOf(s).includes('object') && s.properties && (s.required?.length ?? 0) > 0) {
    return `{${(s.required ?? []).map((r) => `${scalarText(r)}: ${s.properties?.[r] ? skeletonFlow(s.properties[r]) : 'null'}`).join(', ')}}`;
  }
  return placeholder(s);
}

/** The edit inserting property `name` (skeleton from `s`) into mapping `map`. */
export function insertProperty(text: string, map: RMap, name: string, s: JsonSchema, eol: string): OffsetEdit {
  if (map.flow) {
    const close = map.end - 1;
    const sep = map.pairs.length > 0 ? ', ' : '';
    return { start: close, end: close, newText: `${sep}${scalarText(name)}: ${skeletonFlow(s)}` };
  }
  const col = columnOf(text, map.start);
  const at = lineEndAt(text, map.end);
  return { start: at, end: at, newText: eol + skeletonLines(name, s, col).join(eol) };
}

/** The edit replacing an empty value (`key:` with nothing) by a skeleton block for `s`. */
export function fillEmptyValue(text: string, pair: RPair, s0: JsonSchema, eol: string): OffsetEdit | undefined {
  const s = deref(s0).schema;
  const col = columnOf(text, pair.key.start);
  const colon = text.indexOf(':', pair.key.end);
  if (colon < 0) return undefined;
  const lines = skeletonLines('x', s, col);
  const body = lines.slice(1);
  if (body.length === 0) return { start: colon + 1, end: pair.value.end, newText: ' ' + placeholder(s) };
  return { start: colon + 1, end: lineEndAt(text, colon), newText: eol + body.join(eol) };
}

export function eolOf(text: string): string {
  const i = text.indexOf('\n');
  return i > 0 && text.charCodeAt(i - 1) === 13 ? '\r\n' : '\n';
}

export function isBlockCollection(n: RNode): boolean {
  return (n.kind === 'map' || n.kind === 'seq') && !n.flow;
}
