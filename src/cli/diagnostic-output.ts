// Diagnostics as the CLI prints them, one way for `validate` and `route`: a line
// `FILE:LINE:COLUMN: SEVERITY: MESSAGE [CODE]`, or a JSON object (1-based lines and columns).
import type { Diagnostic } from '../core/diagnostics';

export interface JsonDiagnostic {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  severity: Diagnostic['severity'];
  code: string;
  message: string;
  source: string;
}

/** A diagnostic as `validate --json` prints it (1-based lines and columns). */
export function jsonDiagnostic(file: string, d: Diagnostic): JsonDiagnostic {
  return {
    file,
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    endLine: d.range.end.line + 1,
    endColumn: d.range.end.character + 1,
    severity: d.severity,
    code: d.code,
    message: d.message,
    source: d.source,
  };
}

/** A diagnostic as `validate` prints it without --json: one line. */
export function diagnosticLine(d: JsonDiagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message} [${d.code}]\n`;
}
