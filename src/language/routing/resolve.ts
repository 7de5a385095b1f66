// Route resolution: a validated routing table and a ticket's labels -> the effective route (which
// key matched, entry, gates, the preflight items the cap keeps and drops, effort and the model's
// variant for it, notes, the review budget, and the DAG blocks of a parent kind). Pure, no I/O.
//
// Which route a ticket takes: only `Kind/*` labels count (others are ignored). Each Kind label
// with a route of its own under `routes` resolves to it; a Kind label without one resolves to
// nothing, and `default` is taken when no label resolves (the spec: "used when no kind route
// matches"). Labels resolving to routes of equal content (the same key given twice, or two keys
// with identical routes, e.g. one an alias of the other) are one route: `matched` is the first of
// them as given. Labels resolving to routes that differ are ambiguous: an error naming them,
// never a silent first match. A table with an error diagnostic resolves nothing.
import type { Diagnostic } from '../../core/diagnostics';
import { validateRouting } from './analyzer';
import { applyCap } from './cap';
import { parseText } from './parse';
import { PARENT_KINDS } from './schema';

export interface ResolvedPreflightItem {
  id: string;
  item: string;
  evidence: string;
  addedCycle: string | null;
}

export interface ResolvedEntry {
  /** null: natural-language routing. */
  skill: string | null;
  mode: string | null;
}

/** One route as resolved: the keys every route block shares. */
export interface ResolvedRoute {
  entry: ResolvedEntry;
  skip: string[];
  keepGates: string[];
  /** Kept by preflight.max_items, in document order. */
  preflight: ResolvedPreflightItem[];
  /** Dropped by preflight.max_items, in document order. */
  preflightDropped: ResolvedPreflightItem[];
  effort: string | null;
  notes: string | null;
}

export interface ResolvedDag {
  route: ResolvedRoute;
  taskRoute: ResolvedRoute & { inherit: string | null };
  singleGate: {
    id: string | null;
    dimensions: string[];
    replaces: string[];
    depthFrom: string | null;
    neverTrim: boolean | null;
  };
  reviewDepth: Record<string, { reviewers: number | null; rounds: number | null; dimSplit: string | null }>;
}

/** How the effort maps to the model's variant, for the text output. */
export type VariantSource =
  /** No effort on the route. */
  | 'no-effort'
  /** No model was given, so no variant table is known. */
  | 'no-model'
  /** The model has no variant table: the effort is ignored. */
  | 'no-variant-table'
  /** The model's variant table has no variant named like the effort: the effort is ignored. */
  | 'no-such-variant'
  /** The variant of the effort's name. */
  | 'variant';

export interface EffectiveRoute extends ResolvedRoute {
  /** The route key: a Kind/* label, or "default". */
  matched: string;
  variant: string | null;
  variantSource: VariantSource;
  /** The model's variant names when it has a variant table (for the text output). */
  modelVariants: string[] | null;
  /** review.max_rounds.default, or .high_risk when the ticket is high risk; null without a review block. */
  reviewRounds: number | null;
  /** Which budget reviewRounds is: review.max_rounds.default or .high_risk; null without a review block. */
  reviewBudget: 'default' | 'high_risk' | null;
  /** The DAG blocks, for a Kind/Epic or Kind/Feature ticket when the table has `dag`. */
  dag: ResolvedDag | null;
}

export interface ResolveOptions {
  highRisk?: boolean;
  /**
   * The chosen model's variant names: undefined when no model was given; null or empty when the
   * model has no variant table.
   */
  modelVariants?: readonly string[] | null;
}

export type Resolution =
  | { kind: 'route'; route: EffectiveRoute }
  | { kind: 'ambiguous'; labels: string[] }
  | { kind: 'invalid'; diagnostics: Diagnostic[] };

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function numOrNull(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

/** preflight.max_items of a table's value, when it is a valid one (an integer >= 1). */
export function maxItemsOf(table: unknown): number | undefined {
  const pf = isObj(table) ? table.preflight : undefined;
  const m = isObj(pf) ? pf.max_items : undefined;
  return typeof m === 'number' && Number.isInteger(m) && m >= 1 ? m : undefined;
}

/** The preflight list of a route value split by the cap. */
export function cappedPreflight(
  list: unknown,
  max: number | undefined,
): { preflight: ResolvedPreflightItem[]; preflightDropped: ResolvedPreflightItem[] } {
  const items = (Array.isArray(list) ? list : []).flatMap((it, index) => {
    if (!isObj(it)) return [];
    const addedCycle = it.added_cycle === undefined || it.added_cycle === null ? null : String(it.added_cycle);
    const item: ResolvedPreflightItem = {
      id: String(it.id ?? ''),
      item: String(it.item ?? ''),
      evidence: String(it.evidence ?? ''),
      addedCycle,
    };
    return [{ cycle: addedCycle ?? undefined, index, item }];
  });
  const { kept, dropped } = applyCap(items, max);
  return { preflight: kept.map((k) => k.item), preflightDropped: dropped.map((d) => d.item) };
}

/** One route block's value resolved (a missing or malformed block reads as an empty route). */
export function resolveRouteBlock(value: unknown, max: number | undefined): ResolvedRoute {
  const r = isObj(value) ? value : {};
  const entry = isObj(r.entry) ? r.entry : {};
  return {
    entry: { skill: strOrNull(entry.skill), mode: strOrNull(entry.mode) },
    skip: strings(r.skip),
    keepGates: strings(r.keep_gates),
    ...cappedPreflight(r.preflight, max),
    effort: strOrNull(r.effort),
    notes: strOrNull(r.notes),
  };
}

function resolveDag(dag: Obj, max: number | undefined): ResolvedDag {
  const route = isObj(dag.route) ? dag.route : {};
  const task = isObj(dag.task_route) ? dag.task_route : {};
  const gate = isObj(route.single_gate) ? route.single_gate : {};
  const depth = isObj(dag.review_depth) ? dag.review_depth : {};
  const reviewDepth: ResolvedDag['reviewDepth'] = {};
  for (const [level, d] of Object.entries(depth)) {
    const o = isObj(d) ? d : {};
    reviewDepth[level] = {
      reviewers: numOrNull(o.reviewers),
      rounds: numOrNull(o.rounds),
      dimSplit: strOrNull(o.dim_split),
    };
  }
  return {
    route: resolveRouteBlock(route, max),
    taskRoute: { ...resolveRouteBlock(task, max), inherit: strOrNull(task.inherit) },
    singleGate: {
      id: strOrNull(gate.id),
      dimensions: strings(gate.dimensions),
      replaces: strings(gate.replaces),
      depthFrom: strOrNull(gate.depth_from),
      neverTrim: typeof gate.never_trim === 'boolean' ? gate.never_trim : null,
    },
    reviewDepth,
  };
}

/** The variant an effort maps to on a model with these variants (see VariantSource). */
export function variantFor(
  effort: string | null,
  modelVariants: readonly string[] | null | undefined,
): { variant: string | null; variantSource: VariantSource } {
  if (effort === null) return { variant: null, variantSource: 'no-effort' };
  if (modelVariants === undefined) return { variant: null, variantSource: 'no-model' };
  if (modelVariants === null || modelVariants.length === 0) return { variant: null, variantSource: 'no-variant-table' };
  if (!modelVariants.includes(effort)) return { variant: null, variantSource: 'no-such-variant' };
  return { variant: effort, variantSource: 'variant' };
}

/** Deep equality of two plain JSON-like values (YAML-derived). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => sameValue(x, b[i]));
  }
  if (!isObj(a) || !isObj(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
}

/**
 * Which route key the labels select: a Kind/* key, "default", or the labels that are ambiguous.
 * `routes` is the table's `routes` mapping.
 */
export function matchRoute(routes: Obj, labels: readonly string[]): { key: string } | { ambiguous: string[] } {
  const hits: { label: string; route: unknown }[] = [];
  for (const label of labels) {
    if (!label.startsWith('Kind/') || !Object.hasOwn(routes, label)) continue;
    if (hits.some((h) => h.label === label)) continue;
    hits.push({ label, route: routes[label] });
  }
  if (hits.length === 0) return { key: 'default' };
  if (hits.every((h) => sameValue(h.route, hits[0].route))) return { key: hits[0].label };
  return { ambiguous: hits.map((h) => h.label) };
}

/** The effective route of a ticket with `labels` in the routing table `text`. */
export function resolveRoute(text: string, labels: readonly string[], options: ResolveOptions = {}): Resolution {
  const diagnostics = validateRouting(text);
  if (diagnostics.some((d) => d.severity === 'error')) return { kind: 'invalid', diagnostics };
  const table = parseText(text).root?.value;
  if (!isObj(table)) return { kind: 'invalid', diagnostics };
  return resolveTable(table, labels, options);
}

/** The effective route in a table's value that passed validation. */
export function resolveTable(table: Obj, labels: readonly string[], options: ResolveOptions = {}): Resolution {
  const routes = isObj(table.routes) ? table.routes : {};
  const m = matchRoute(routes, labels);
  if ('ambiguous' in m) return { kind: 'ambiguous', labels: m.ambiguous };
  const max = maxItemsOf(table);
  const route = resolveRouteBlock(m.key === 'default' ? table.default : routes[m.key], max);
  const review = isObj(table.review) && isObj(table.review.max_rounds) ? table.review.max_rounds : undefined;
  const reviewRounds = review ? numOrNull(options.highRisk ? review.high_risk : review.default) : null;
  const parent = labels.some((l) => (PARENT_KINDS as readonly string[]).includes(l));
  const modelVariants =
    options.modelVariants === undefined || options.modelVariants === null || options.modelVariants.length === 0
      ? null
      : [...options.modelVariants];
  return {
    kind: 'route',
    route: {
      matched: m.key,
      ...route,
      ...variantFor(route.effort, options.modelVariants),
      modelVariants,
      reviewRounds,
      reviewBudget: review ? (options.highRisk ? 'high_risk' : 'default') : null,
      dag: parent && isObj(table.dag) ? resolveDag(table.dag, max) : null,
    },
  };
}
