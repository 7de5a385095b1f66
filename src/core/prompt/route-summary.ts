// The summary a person reads above a dispatch-by-route task in the editor (Dispatch Ticket...):
// the effective route, one field per line as `session-ops route` prints it (the items the cap
// drops, the effort's variant on the chosen model), in a Markdown comment that Send drops whole
// (prompt/send.ts sends what follows a leading comment). The task itself is the core's one
// composition (src/core/prompt/route-task.ts). Pure.
import { effectiveRouteLines } from '../../language/routing/describe';
import type { EffectiveRoute } from '../../language/routing/resolve';

/** "--" cannot end the comment early ("-->") nor appear in it. */
const safe = (s: string) => s.replace(/--/g, '- -');

/** The effective route as a Markdown comment for the top of a prompt document; `routingFile` names where it was read. */
export function routeSummaryComment(route: EffectiveRoute, ticket: string, routingFile: string): string {
  return [
    `<!-- Dispatch of ticket ${safe(ticket)} by ${safe(routingFile)}`,
    ...effectiveRouteLines(route).map(safe),
    '',
    'This comment is not sent. Add the task text at the end (optional); the completion-report block',
    '(with the quota self-report clause) is appended when it is sent, and the effort goes as the',
    "model's variant where the backend takes one.",
    '-->',
  ].join('\n');
}
