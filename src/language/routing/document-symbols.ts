// Document symbols of a routing table (routes, dag blocks) and its route keys with their ranges.
// Positions are 0-based like LSP. Pure.
import type { Range } from '../../core/diagnostics';
import { type RoutingAnalysis } from './analyzer';
import { rangeAt } from './lines';
import { getPair, type RMap, type RNode, type RPair } from './rnode';
import { MAX_SYMBOLS } from './limits';

export type SymbolKindName =
  'namespace' | 'class' | 'module' | 'struct' | 'constant' | 'object' | 'string' | 'array' | 'property';

export interface SymbolEntry {
  name: string;
  detail?: string;
  kind: SymbolKindName;
  range: Range;
  selectionRange: Range;
  children?: SymbolEntry[];
}

function routeDetail(v: RNode): string | undefined {
  if (v.kind !== 'map') return undefined;
  const parts: string[] = [];
  const entry = getPair(v, 'entry')?.value;
  if (entry && entry.kind === 'map') {
    const skill = getPair(entry, 'skill')?.value.value;
    const mode = getPair(entry, 'mode')?.value.value;
    parts.push(
      [
        skill === null || skill === undefined ? 'natural language' : String(skill),
        mode === null || mode === undefined ? '' : String(mode),
      ]
        .filter(Boolean)
        .join(' · '),
    );
  }
  const effort = getPair(v, 'effort')?.value.value;
  if (effort !== undefined && effort !== null) parts.push(`effort ${String(effort)}`);
  return parts.length ? parts.join(', ') : undefined;
}

function kindOfTop(name: string): SymbolKindName {
  switch (name) {
    case 'version':
      return 'constant';
    case '$schema':
      return 'string';
    case 'default':
      return 'class';
    case 'routes':
      return 'namespace';
    case 'dag':
      return 'module';
    default:
      return 'object';
  }
}

function pairSymbol(
  lineStarts: readonly number[],
  base: number,
  p: RPair,
  kind: SymbolKindName,
  detail?: string,
  children?: SymbolEntry[],
): SymbolEntry {
  const end = Math.max(p.key.end, p.value.end);
  return {
    name: p.name,
    ...(detail ? { detail } : {}),
    kind,
    range: rangeAt(lineStarts, base + p.key.start, base + end),
    selectionRange: rangeAt(lineStarts, base + p.key.start, base + p.key.end),
    ...(children && children.length ? { children } : {}),
  };
}

function dagChildren(lineStarts: readonly number[], base: number, dag: RNode): SymbolEntry[] {
  if (dag.kind !== 'map') return [];
  return dag.pairs.map((p) => {
    const kids: SymbolEntry[] = [];
    if (p.value.kind === 'map') {
      for (const q of p.value.pairs) {
        if (q.value.kind === 'map' || (q.value.kind === 'seq' && q.name === 'oversize_signals'))
          kids.push(pairSymbol(lineStarts, base, q, 'struct'));
      }
    }
    return pairSymbol(
      lineStarts,
      base,
      p,
      'struct',
      p.name === 'route' || p.name === 'task_route' ? routeDetail(p.value) : undefined,
      kids,
    );
  });
}

function topSymbol(lineStarts: readonly number[], base: number, p: RPair, childBudget: number): SymbolEntry {
  const kind = kindOfTop(p.name);
  if (p.name === 'default') return pairSymbol(lineStarts, base, p, kind, routeDetail(p.value));
  if (p.name === 'dag') return pairSymbol(lineStarts, base, p, kind, undefined, dagChildren(lineStarts, base, p.value));
  if (p.name === 'routes' && p.value.kind === 'map') {
    const pairs = (p.value as RMap).pairs;
    const kids = pairs
      .slice(0, Math.max(0, childBudget))
      .map((q) => pairSymbol(lineStarts, base, q, 'class', routeDetail(q.value)));
    return pairSymbol(lineStarts, base, p, kind, `${pairs.length} route${pairs.length === 1 ? '' : 's'}`, kids);
  }
  if (p.name === 'version') return pairSymbol(lineStarts, base, p, kind, String(p.value.value));
  return pairSymbol(lineStarts, base, p, kind);
}

/** The entries of a symbol and its children (for the MAX_SYMBOLS budget). */
function symbolCount(s: SymbolEntry): number {
  let n = 1;
  if (s.children) for (const c of s.children) n += symbolCount(c);
  return n;
}

/**
 * The outline of an analysed table: at most `limit` entries, nested ones counted (the first in
 * document order; a table of hundreds of thousands of keys is not sent whole). Linear in the
 * entries listed, however many keys the document has.
 */
export function documentSymbols(analysis: RoutingAnalysis, limit = MAX_SYMBOLS): SymbolEntry[] {
  const ls = analysis.lineStarts;
  const out: SymbolEntry[] = [];
  let routes: SymbolEntry | undefined;
  let routesCount = 0;
  let budget = limit;
  for (const c of analysis.chunks) {
    const root = c.parsed.root;
    if (c.skipped && c.role === 'top' && budget > 0) {
      // not parsed (past the listed problems): its name, over its lines
      const range = rangeAt(ls, c.start, Math.max(c.start, c.end - 1));
      const sel = rangeAt(ls, c.start, c.start + c.name.length);
      const detail = c.more ? `and ${c.more.toLocaleString('en-US')} more unknown keys` : undefined;
      out.push({ name: c.name, kind: 'property', range, selectionRange: sel, ...(detail ? { detail } : {}) });
      budget--;
      continue;
    }
    if (!root || root.kind !== 'map') continue;
    if (budget <= 0) {
      // nothing more is listed; the routes' count still says how many there are
      if (c.role !== 'route' || !routes) continue;
      routesCount++;
      routes.detail = `${routesCount} route${routesCount === 1 ? '' : 's'}`;
      continue;
    }
    if (c.role === 'whole') {
      for (const p of root.pairs) {
        if (budget <= 0) break;
        const s = topSymbol(ls, c.start, p, budget - 1);
        budget -= symbolCount(s);
        out.push(s);
      }
      continue;
    }
    const p = root.pairs[0];
    if (!p) continue;
    if (c.role === 'top' && c.header) {
      routes = pairSymbol(ls, c.start, p, 'namespace', undefined, []);
      out.push(routes);
      budget--;
      continue;
    }
    if (c.role === 'route' && routes) {
      const s = pairSymbol(ls, c.start, p, 'class', routeDetail(p.value));
      (routes.children ??= []).push(s);
      routes.range = { start: routes.range.start, end: s.range.end };
      routesCount++;
      routes.detail = `${routesCount} route${routesCount === 1 ? '' : 's'}`;
      budget--;
      continue;
    }
    const s = topSymbol(ls, c.start, p, budget - 1);
    budget -= symbolCount(s);
    out.push(s);
  }
  return out;
}

/** Route keys (Kind/* labels) defined in an analysed document. */
export function routeKeysOf(analysis: RoutingAnalysis): string[] {
  const keys: string[] = [];
  for (const c of analysis.chunks) {
    const root = c.parsed.root;
    if (!root || root.kind !== 'map') continue;
    if (c.role === 'route') {
      if (root.pairs[0]) keys.push(root.pairs[0].name);
    } else {
      const routes = getPair(root, 'routes');
      if (routes && routes.value.kind === 'map') for (const p of routes.value.pairs) keys.push(p.name);
    }
  }
  return keys;
}

/** A route key of an analysed document and where its key is: a `Kind/*` key under `routes`, or `default`. */
export interface RouteKeyRange {
  key: string;
  range: Range;
}

/** The route keys of an analysed document (whose values are mappings), in document order: where its CodeLenses go. */
export function routeKeyRanges(analysis: RoutingAnalysis): RouteKeyRange[] {
  const ls = analysis.lineStarts;
  const out: Array<RouteKeyRange & { at: number }> = [];
  const add = (base: number, p: RPair) =>
    out.push({ key: p.name, at: base + p.key.start, range: rangeAt(ls, base + p.key.start, base + p.key.end) });
  const isRoute = (p: RPair) => p.name.startsWith('Kind/') && p.value.kind === 'map';
  for (const c of analysis.chunks) {
    const root = c.parsed.root;
    if (!root || root.kind !== 'map') continue;
    if (c.role === 'route') {
      const p = root.pairs[0];
      if (p && isRoute(p)) add(c.start, p);
      continue;
    }
    for (const p of root.pairs) {
      if (p.name === 'default' && p.value.kind === 'map') add(c.start, p);
      if (p.name === 'routes' && p.value.kind === 'map') for (const q of p.value.pairs) if (isRoute(q)) add(c.start, q);
    }
  }
  return out.sort((a, b) => a.at - b.at).map(({ key, range }) => ({ key, range }));
}
