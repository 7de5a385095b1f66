// The diagnostic shape shared by routing-table and source-analysis validation, the language
// server (which maps it to LSP) and `session-ops validate` (which prints it). Positions are
// 0-based like LSP; the CLI converts to 1-based lines and columns.

export type Severity = 'error' | 'warning' | 'information' | 'hint';

export interface Position {
  /** 0-based line. */
  line: number;
  /** 0-based UTF-16 column. */
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface Diagnostic {
  range: Range;
  severity: Severity;
  /** Stable machine-readable code, e.g. "schema.enum", "routing.skip-and-keep", "page.missing-column". */
  code: string;
  /** One clear sentence. */
  message: string;
  /** "session-ops.routing" or "session-ops.pages". */
  source: string;
  /** Optional data for quick fixes (replacement suggestions etc.). */
  data?: unknown;
}
