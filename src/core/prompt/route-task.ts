// The task a ticket is dispatched with, composed from its effective route (issue 31 item 3): the
// entry (skill and mode) as the instruction the worker starts with, the gates it skips and keeps,
// the preflight checklist after the cap (each item with its evidence) to verify before
// implementing, the notes, then the task text. The dispatch composer
// (src/core/prompt/dispatch.ts) appends the completion-report block with the quota clause
// unchanged. Every fact comes from the table that was read; values are folded onto one line so a
// table cannot change the prompt's structure. Pure, no I/O.
import { inline } from './text';
import type { EffectiveRoute } from '../../language/routing/resolve';

export interface RouteTaskInput {
  route: EffectiveRoute;
  /** The ticket the worker takes (the dispatch's --ticket). */
  ticket: string;
  /** The task text (the dispatch's --prompt-file); absent or blank: the route alone. */
  task?: string | null;
}

function list(items: readonly string[]): string {
  return items.length > 0 ? items.map(inline).join(', ') : 'none';
}

/** The instruction the worker starts with: the route's entry skill and mode. */
export function entryInstruction(route: EffectiveRoute, ticket: string): string {
  const t = inline(ticket);
  const key = inline(route.matched);
  const where = key === 'default' ? 'the default route (no Kind route matched)' : `the ${key} route`;
  const mode = route.entry.mode === null ? 'no mode' : `mode ${inline(route.entry.mode)}`;
  if (route.entry.skill === null)
    return `Start: ticket ${t} takes ${where} of the routing table: entry skill null (natural-language routing: choose the process from the ticket itself), ${mode}.`;
  return `Start: ticket ${t} takes ${where} of the routing table: enter the ${inline(route.entry.skill)} skill, ${mode}.`;
}

/** The gates the route skips and keeps. */
export function gatesSection(route: EffectiveRoute): string {
  return ['Gates:', `- skip: ${list(route.skip)}`, `- keep (never skip these): ${list(route.keepGates)}`].join('\n');
}

/** The preflight checklist after the cap, each item with its evidence; null when the route injects none. */
export function preflightSection(route: EffectiveRoute): string | null {
  if (route.preflight.length === 0) return null;
  return [
    'Preflight checklist: verify each item before implementing:',
    ...route.preflight.map((p, i) => `${i + 1}. [${inline(p.id)}] ${inline(p.item)} (evidence: ${inline(p.evidence)})`),
  ].join('\n');
}

/** The route's notes; null when it has none. */
export function notesSection(route: EffectiveRoute): string | null {
  if (route.notes === null || inline(route.notes) === '') return null;
  return `Route notes: ${inline(route.notes)}`;
}

/**
 * The routed task: entry, gates, preflight (when any), notes (when any), then the task text (when
 * given), separated by blank lines. The task text is kept as written (trimmed).
 */
export function composeRouteTask(input: RouteTaskInput): string {
  const { route } = input;
  const task = input.task && inline(input.task) !== '' ? `Task:\n${input.task.trim()}` : null;
  return [
    entryInstruction(route, input.ticket),
    gatesSection(route),
    preflightSection(route),
    notesSection(route),
    task,
  ]
    .filter((s): s is string => s !== null)
    .join('\n\n');
}
