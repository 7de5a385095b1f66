// Diagnostics as the CLI prints them, one way for `validate` and `route`: a line
// `FILE:LINE:COLUMN: SEVERITY: MESSAGE [CODE]`, or a JSON object (1-based lines and columns).

import type { JsonDiagnostic } from '../language/routing/route-json';

export { jsonDiagnostic, type JsonDiagnostic } from '../language/routing/route-json';

/** A diagnostic as `validate` prints it without --json: one line. */
export function diagnosticLine(d: JsonDiagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message} [${d.code}]\n`;
}
