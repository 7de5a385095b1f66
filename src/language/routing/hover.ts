// Hover over a routing table: the spec's notes from the schema, and the effective route of a route
// key. Positions are 0-based like LSP. Pure.
import type { Range } from '../../core/diagnostics';
import { chunkAt, type RoutingAnalysis } from './analyzer';
import { offsetAt, rangeAt } from './lines';
import { getPair, type PathSeg, type RNode, type RPair } from './rnode';
import { RETIRED_STAGES, LEGACY_SKILLS, deref, schemaAt } from './schema';
import { routeBlockLines } from './describe';
import { maxItemsOf, resolveRouteBlock } from './resolve';
import type { Position } from '../../core/diagnostics';
import { typeSummary } from './completion';

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
