// An effective route as text, one line per field: what `session-ops route` prints and what the
// language server's hover on a route key shows. Pure.
import type { EffectiveRoute, ResolvedDag, ResolvedEntry, ResolvedPreflightItem, ResolvedRoute } from './resolve';

function list(items: readonly string[]): string {
  return items.length > 0 ? items.join(', ') : 'none';
}

export function entryText(e: ResolvedEntry): string {
  const skill = e.skill === null ? 'natural-language routing (skill null)' : `skill ${e.skill}`;
  return `${skill}, mode ${e.mode ?? 'none'}`;
}

function itemText(p: ResolvedPreflightItem): string {
  return `${p.id}: ${p.item} (evidence: ${p.evidence}; ${p.addedCycle === null ? 'no added_cycle' : `added_cycle ${p.addedCycle}`})`;
}

/** The preflight lines of a route: kept items, then what the cap drops. */
export function preflightLines(r: Pick<ResolvedRoute, 'preflight' | 'preflightDropped'>, indent = ''): string[] {
  const all = r.preflight.length + r.preflightDropped.length;
  if (all === 0) return [`${indent}Preflight: none`];
  const out = [
    r.preflightDropped.length > 0
      ? `${indent}Preflight (${r.preflight.length} of ${all} kept by preflight.max_items):`
      : `${indent}Preflight:`,
    ...r.preflight.map((p) => `${indent}  - ${itemText(p)}`),
  ];
  if (r.preflightDropped.length > 0)
    out.push(
      `${indent}Dropped by preflight.max_items (oldest added_cycle first):`,
      ...r.preflightDropped.map((p) => `${indent}  - ${itemText(p)}`),
    );
  return out;
}

/** The lines every route block shares: entry, gates, preflight after the cap. */
export function routeBlockLines(r: ResolvedRoute, indent = ''): string[] {
  return [
    `${indent}Entry: ${entryText(r.entry)}`,
    `${indent}Skip: ${list(r.skip)}`,
    `${indent}Keep gates: ${list(r.keepGates)}`,
    ...preflightLines(r, indent),
  ];
}

/** What the effort does on the chosen model. */
export function effortText(r: Pick<EffectiveRoute, 'effort' | 'variant' | 'variantSource' | 'modelVariants'>): string {
  if (r.effort === null) return 'none';
  switch (r.variantSource) {
    case 'variant':
      return `${r.effort}; variant: ${r.variant}`;
    case 'no-model':
      return `${r.effort}; variant: unknown (no model was given)`;
    case 'no-variant-table':
      return `${r.effort}; ignored: the model has no variant table`;
    case 'no-such-variant':
      return `${r.effort}; ignored: the model's variants (${list(r.modelVariants ?? [])}) have none named ${r.effort}`;
    default:
      return r.effort;
  }
}

function dagLines(d: ResolvedDag): string[] {
  const g = d.singleGate;
  const depth = Object.entries(d.reviewDepth).map(
    ([level, v]) =>
      `    ${level}: ${v.reviewers ?? '?'} reviewer(s), ${v.rounds ?? '?'} round(s), dim split ${v.dimSplit ?? 'none'}`,
  );
  return [
    'DAG route:',
    ...routeBlockLines(d.route, '  '),
    `Task route (inherit: ${d.taskRoute.inherit ?? 'none'}):`,
    ...routeBlockLines(d.taskRoute, '  '),
    `Single gate: ${g.id ?? 'none'}, dimensions ${list(g.dimensions)}; depth from ${g.depthFrom ?? 'none'}; never trim: ${g.neverTrim === null ? 'unset' : String(g.neverTrim)}; replaces ${list(g.replaces)}`,
    'Review depth:',
    ...(depth.length > 0 ? depth : ['    none']),
  ];
}

/** The whole effective route as text, one field per line. */
export function effectiveRouteLines(r: EffectiveRoute): string[] {
  const review =
    r.reviewRounds === null || r.reviewBudget === null
      ? 'none (the table has no review block)'
      : `${r.reviewRounds} (review.max_rounds.${r.reviewBudget})`;
  return [
    `Route: ${r.matched}`,
    ...routeBlockLines(r),
    `Effort: ${effortText(r)}`,
    `Notes: ${r.notes ?? 'none'}`,
    `Review rounds: ${review}`,
    ...(r.dag ? dagLines(r.dag) : []),
  ];
}
