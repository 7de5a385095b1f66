// Editor features over a routing table, as pure functions the language server adapts to LSP:
// completion (keys and enum values at the cursor, Kind/* route keys used elsewhere), hover (the
// spec's notes from the schema), quick fixes (from the diagnostics' fixes) and document symbols
// (routes, dag blocks). Positions are 0-based like LSP. Pure: never import 'vscode'.
import type { Diagnostic, Range } from '../../core/diagnostics';
import { chunkAt, type RoutingAnalysis } from './analyzer';
import { cursorContext } from './cursor-context';
import { offsetAt, rangeAt } from './lines';
import { getPair, type PathSeg, type RMap, type RNode, type RPair } from './rnode';
import { MAX_SYMBOLS } from './limits';
import {
  PARENT_KINDS,
  RETIRED_STAGES,
  LEGACY_SKILLS,
  deref,
  schemaAt,
  typesOf,
  type JsonSchema,
  type Resolved,
} from './schema';
import { scalarText } from './fixes';
import type { FixData, RoutingDiagnosticData } from './types';
import { routeBlockLines } from './describe';
import { maxItemsOf, resolveRouteBlock } from './resolve';
import type { Position } from '../../core/diagnostics';

// ---------------------------------------------------------------- completion

export interface CompletionEntry {
  label: string;
  kind: 'property' | 'value' | 'route';
  detail?: string;
  documentation?: string;
  insertText: string;
  /** Range the insert text replaces. */
  range: Range;
  sortText: string;
  /** True when the insert text spans lines (continuation lines carry relative indentation). */
  multiline?: boolean;
}

function typeSummary(r: Resolved): string {
  const s = r.schema;
  if (s.const !== undefined) return `constant ${JSON.stringify(s.const)}`;
  if (r.defName === 'stage') return 'stage';
  if (r.defName === 'stageList') return 'list of stage';
  if (r.defName === 'preflightList') return 'list of preflight item';
  const types = typesOf(s);
  if (types.includes('array') && s.items) {
    const it = deref(s.items);
    if (it.defName) return `list of ${humanDef(it.defName)}`;
    const itTypes = typesOf(it.schema);
    return `list of ${it.schema.enum ? 'enum' : itTypes.join(' | ') || 'any'}`;
  }
  if (s.enum) return `enum${types.includes('null') ? ' or null' : ''}`;
  if (r.defName && types.includes('object')) return humanDef(r.defName);
  return types.join(' | ') || 'any';
}

function humanDef(name: string): string {
  return (
    (
      {
        route: 'route',
        entry: 'entry',
        preflightItem: 'preflight item',
        preflightPolicy: 'preflight policy',
        stage: 'stage',
        oversizeSignal: 'oversize signal',
        dagRoute: 'dag route',
        taskRoute: 'task route',
        singleGate: 'single gate',
        ticketCreation: 'ticket creation',
        verifyMilestone: 'verify milestone',
        sizeDerivation: 'size derivation',
        reviewDepth: 'review depth',
        depth: 'review depth level',
        routes: 'routes',
        filing: 'filing block',
        review: 'review block',
        dag: 'dag block',
      } as Record<string, string>
    )[name] ?? name
  );
}

/**
 * Completion at `pos`. `routeKeys` are Kind/* labels used elsewhere in the workspace.
 * `schemaItems` false leaves schema-driven items out (another YAML server provides them).
 */
export function complete(
  text: string,
  lineStarts: readonly number[],
  pos: Position,
  routeKeys: readonly string[] = [],
  schemaItems = true,
): CompletionEntry[] {
  const offset = offsetAt(lineStarts, text, pos);
  const ctx = cursorContext(text, offset);
  if (!ctx) return [];
  const range = rangeAt(lineStarts, ctx.replaceStart, Math.max(ctx.replaceStart, ctx.replaceEnd));
  const out: CompletionEntry[] = [];
  const lead = ctx.needsSpace ? ' ' : '';

  if (ctx.mode === 'key' && ctx.path.length === 1 && ctx.path[0] === 'routes') {
    const seen = new Set<string>();
    const labels = [...routeKeys, ...PARENT_KINDS].filter((k) => /^Kind\/\S/.test(k));
    for (const k of labels) {
      if (seen.has(k) || ctx.siblings.has(k)) continue;
      seen.add(k);
      out.push({
        label: k,
        kind: 'route',
        detail: 'route for a Kind/* label',
        documentation: routeKeys.includes(k) ? `\`${k}\` is used elsewhere in the workspace.` : undefined,
        insertText: ctx.inFlow ? `${k}: {}` : `${k}:\n  `,
        range,
        sortText: `0${String(out.length).padStart(4, '0')}`,
        multiline: !ctx.inFlow,
      });
    }
    return out;
  }
  if (!schemaItems) return [];

  const r = schemaAt(ctx.path);
  if (!r) return [];
  if (ctx.mode === 'key' || (ctx.mode === 'item' && typesOf(r.schema).includes('object') && !ctx.inFlow)) {
    const props = r.schema.properties ?? {};
    const required = new Set(r.schema.required ?? []);
    let i = 0;
    for (const [name, sub] of Object.entries(props)) {
      if (ctx.siblings.has(name)) continue;
      const sr = deref(sub);
      const types = typesOf(sr.schema);
      let insertText: string;
      let multiline = false;
      if (ctx.inFlow) insertText = `${scalarText(name)}: `;
      else if (types.includes('object') && !sr.schema.enum) {
        insertText = `${scalarText(name)}:\n  `;
        multiline = true;
      } else if (
        types.includes('array') &&
        sr.schema.items &&
        !deref(sr.schema.items).schema.enum &&
        typesOf(deref(sr.schema.items).schema).includes('object')
      ) {
        insertText = `${scalarText(name)}:\n  - `;
        multiline = true;
      } else insertText = `${scalarText(name)}: `;
      out.push({
        label: name,
        kind: 'property',
        detail: `${typeSummary(sr)}${required.has(name) ? ' (required)' : ''}`,
        documentation: sr.description,
        insertText,
        range,
        sortText: `${required.has(name) ? 0 : 1}${String(i++).padStart(4, '0')}`,
        multiline,
      });
    }
    return out;
  }
  // value or list item
  const target = r;
  const values = valuesFor(target.schema);
  let i = 0;
  for (const v of values) {
    const label = v === null ? 'null' : String(v);
    if (ctx.mode === 'item' && ctx.siblings.has(label)) continue;
    out.push({
      label,
      kind: 'value',
      detail: typeSummary(target),
      documentation:
        v === null && ctx.path[ctx.path.length - 1] === 'skill'
          ? 'null means natural-language routing.'
          : target.description,
      insertText: lead + scalarText(v),
      range,
      sortText: `0${String(i++).padStart(4, '0')}`,
    });
  }
  return out;
}

function valuesFor(s: JsonSchema): unknown[] {
  if (s.const !== undefined) return [s.const];
  if (s.enum) return s.enum;
  const types = typesOf(s);
  if (types.includes('boolean')) return [true, false];
  if (types.includes('array') && s.items) {
    const it = deref(s.items).schema;
    if (it.enum) return it.enum;
  }
  return [];
}

// ---------------------------------------------------------------- hover

export interface HoverResult {
  markdown: string;
  range: Range;
}

interface Hit {
  path: PathSeg[];
  node: RNode;
  onKey: boolean;
  start: number;
  end: number;
}

/** The deepest key or scalar/flow value containing `offset` (relative to the chunk). */
function hitAt(root: RNode, offset: number): Hit | undefined {
  const path: PathSeg[] = [];
  let node: RNode = root;
  for (;;) {
    if (node.kind === 'map') {
      let next: RPair | undefined;
      for (const p of node.pairs) {
        if (offset >= p.key.start && offset <= p.key.end)
          return { path: [...path, p.name], node: p.value, onKey: true, start: p.key.start, end: p.key.end };
        const vs = p.value.start;
        const ve = p.value.end;
        if (offset >= vs && offset <= ve && !(p.value.kind === 'scalar' && p.value.style === 'empty')) next = p;
      }
      if (!next) return undefined;
      path.push(next.name);
      node = next.value;
    } else if (node.kind === 'seq') {
      const idx = node.items.findIndex((it) => offset >= it.start && offset <= it.end);
      if (idx < 0) return undefined;
      path.push(idx);
      node = node.items[idx];
    } else {
      return { path, node, onKey: false, start: node.start, end: node.end };
    }
  }
}

/** preflight.max_items of the analysed table, read from its top-level `preflight` block. */
function analysedMaxItems(analysis: RoutingAnalysis): number | undefined {
  for (const c of analysis.chunks) {
    if (c.role === 'route') continue;
    const root = c.parsed.root;
    const p = root && root.kind === 'map' ? getPair(root, 'preflight') : undefined;
    if (p) return maxItemsOf({ preflight: p.value.value });
  }
  return undefined;
}

/** The effective route of a route key's value as one block: entry, gates, preflight after the cap, effort. */
function effectiveRouteBlock(analysis: RoutingAnalysis, value: RNode): string[] {
  const r = resolveRouteBlock(value.value, analysedMaxItems(analysis));
  return [
    '**Effective route**',
    '',
    '```text',
    ...routeBlockLines(r),
    `Effort: ${r.effort ?? 'none'}${r.effort ? " (the model's variant of that name, when it has a variant table)" : ''}`,
    '```',
  ];
}

/**
 * Hover at `pos`. `schema` false (another YAML server gives the schema's hover) keeps only what
 * the schema cannot say: the effective route on a route key.
 */
export function hover(
  analysis: RoutingAnalysis,
  pos: Position,
  options: { schema?: boolean } = {},
): HoverResult | undefined {
  const offset = offsetAt(analysis.lineStarts, analysis.text, pos);
  const chunk = chunkAt(analysis, offset);
  if (!chunk || !chunk.parsed.root) return undefined;
  const hit = hitAt(chunk.parsed.root, offset - chunk.start);
  if (!hit) return undefined;
  const path = [...chunk.prefix, ...hit.path];
  const last = path[path.length - 1];
  const isRoute = path.length === 2 && path[0] === 'routes';
  const routeKey = hit.onKey && hit.node.kind === 'map' && (isRoute || (path.length === 1 && last === 'default'));
  const range = rangeAt(analysis.lineStarts, chunk.start + hit.start, chunk.start + hit.end);
  if (options.schema === false)
    return routeKey ? { markdown: effectiveRouteBlock(analysis, hit.node).join('\n'), range } : undefined;
  const r = schemaAt(path);
  const lines: string[] = [];
  if (hit.onKey) {
    if (isRoute) lines.push(`**${String(last)}** · route`, '', `Route for tickets labelled \`${String(last)}\`.`);
    else lines.push(`**${String(last)}**${r ? ` · ${typeSummary(r)}` : ''}`);
    if (r?.description && !isRoute) lines.push('', r.description);
    if (r && isRoute) lines.push('', deref(r.schema).schema.description ?? '');
    if (!r) lines.push('', 'Not part of the routing table schema.');
  } else {
    if (!r) return undefined;
    const keyName =
      typeof last === 'number' || /^\d+$/.test(String(last))
        ? `item ${Number(last) + 1} of ${String(path[path.length - 2])}`
        : String(last);
    lines.push(`**${keyName}** · ${typeSummary(r)}`);
    if (r.description) lines.push('', r.description);
    const v = hit.node.value;
    if (typeof v === 'string' && RETIRED_STAGES.includes(v) && (r.defName === 'stage' || r.schema.enum))
      lines.push('', `\`${v}\` is a retired stage id and no longer valid.`);
    else if (typeof v === 'string' && String(last) === 'skill' && LEGACY_SKILLS.includes(v))
      lines.push('', `\`${v}\` is a legacy skill entry and no longer valid.`);
  }
  if (r?.schema.enum)
    lines.push('', `Allowed: ${r.schema.enum.map((e) => `\`${e === null ? 'null' : String(e)}\``).join(', ')}`);
  else if (r?.schema.items && deref(r.schema.items).schema.enum)
    lines.push(
      '',
      `Allowed items: ${(deref(r.schema.items).schema.enum ?? []).map((e) => `\`${String(e)}\``).join(', ')}`,
    );
  if (routeKey) lines.push('', ...effectiveRouteBlock(analysis, hit.node));
  return { markdown: lines.join('\n'), range };
}

// ---------------------------------------------------------------- quick fixes

export interface QuickFix {
  title: string;
  isPreferred: boolean;
  diagnostic: Diagnostic;
  edits: FixData['edits'];
}

function intersects(a: Range, b: Range): boolean {
  const before = (p: Position, q: Position) => p.line < q.line || (p.line === q.line && p.character < q.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}

/** Quick fixes for the diagnostics that touch `range`. */
export function quickFixes(analysis: RoutingAnalysis, range: Range): QuickFix[] {
  const out: QuickFix[] = [];
  for (const d of analysis.diagnostics) {
    if (!intersects(d.range, range)) continue;
    const data = d.data as RoutingDiagnosticData | undefined;
    for (const f of data?.fixes ?? [])
      out.push({ title: f.title, isPreferred: !!f.isPreferred, diagnostic: d, edits: f.edits });
  }
  return out;
}

// ---------------------------------------------------------------- document symbols

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
