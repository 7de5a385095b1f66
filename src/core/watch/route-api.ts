// GET /api/route?label=Kind/X[&label=...][&highRisk=1] on the watch daemon (issue 31 item 7): the
// effective route of a ticket with these labels in the routing table the watch configuration names
// (its `routing:` key), as `session-ops route --json` answers it. Answers, as status and JSON body:
//   200  the route (the keys of `route --json`)
//   400  {"error"}: no label, more than MAX_ROUTE_LABELS, an empty one, or highRisk not 1/0/true/false
//   404  {"error"}: the configuration names no routing table
//   409  {"ambiguous": [labels]}: Kind labels resolving to different routes
//   422  {"diagnostics": [...]} (as validate --json): the table failed validation
//   503  {"error"}: the routing file could not be read (missing, not a file, above 4 MiB)
// The file is read on every request (an edit is seen without a reload), within the size cap every
// routing reader has. The variant is null: the daemon names no model here.
import { readTextIfSmall, MAX_TEXT_BYTES } from '../../language/fs/readText';
import { resolveRoute } from '../../language/routing/resolve';
import { jsonDiagnostic, routeJson } from '../../language/routing/route-json';

/** The most labels one request may name. */
export const MAX_ROUTE_LABELS = 64;
/** The longest label read. */
export const MAX_ROUTE_LABEL_CHARS = 256;

export interface RouteApiAnswer {
  status: 200 | 400 | 404 | 409 | 422 | 503;
  body: unknown;
}

const error = (status: RouteApiAnswer['status'], message: string): RouteApiAnswer => ({
  status,
  body: { error: message },
});

/** Reads `file` (null: the configuration names none) and answers the query. */
export async function answerRoute(
  file: string | null,
  query: URLSearchParams,
  read: (file: string) => Promise<string | undefined> = (f) => readTextIfSmall(f),
): Promise<RouteApiAnswer> {
  if (file === null)
    return error(404, 'no routing table: the watch configuration names none (add its routing: key, then SIGHUP)');
  const labels = query.getAll('label');
  if (labels.length === 0) return error(400, 'label is required: /api/route?label=Kind/X[&label=...][&highRisk=1]');
  if (labels.length > MAX_ROUTE_LABELS) return error(400, `at most ${MAX_ROUTE_LABELS} labels`);
  if (labels.some((l) => l.trim() === '' || l.length > MAX_ROUTE_LABEL_CHARS))
    return error(400, `every label must be non-empty and at most ${MAX_ROUTE_LABEL_CHARS} characters`);
  const risk = query.get('highRisk');
  if (risk !== null && !['1', '0', 'true', 'false'].includes(risk))
    return error(400, 'highRisk must be 1, 0, true or false');
  const text = await read(file);
  if (text === undefined)
    return error(
      503,
      `the routing table ${file} could not be read (missing, not a file, or larger than ${MAX_TEXT_BYTES / 1024 / 1024} MiB)`,
    );
  const r = resolveRoute(text, labels, { highRisk: risk === '1' || risk === 'true' });
  if (r.kind === 'invalid')
    return { status: 422, body: { diagnostics: r.diagnostics.map((d) => jsonDiagnostic(file, d)) } };
  if (r.kind === 'ambiguous') return { status: 409, body: { ambiguous: r.labels } };
  return { status: 200, body: routeJson(r.route) };
}
