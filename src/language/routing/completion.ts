// Completion over a routing table: keys and enum values at the cursor, Kind/* route keys used
// elsewhere. Positions are 0-based like LSP. Pure.
import type { Range } from '../../core/diagnostics';
import { cursorContext } from './cursor-context';
import { offsetAt, rangeAt } from './lines';
import { PARENT_KINDS, deref, schemaAt, typesOf, type JsonSchema, type Resolved } from './schema';
import { scalarText } from './fixes';
import type { Position } from '../../core/diagnostics';

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

export function typeSummary(r: Resolved): string {
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
