// Diagnostics before they are placed in the document: offsets relative to the parsed chunk, quick
// fixes as offset edits. The analyzer adds the chunk's offset and converts to line/character.
import type { Severity } from '../../core/diagnostics';

export const SOURCE = 'session-ops.routing';

export interface OffsetEdit {
  start: number;
  end: number;
  newText: string;
}

export interface RelFix {
  title: string;
  preferred?: boolean;
  edits: OffsetEdit[];
}

export interface RelDiag {
  start: number;
  end: number;
  severity: Severity;
  code: string;
  message: string;
  fixes?: RelFix[];
  /** Schema rule that produced it (normalized instance path + keyword), for coverage tests. */
  rule?: string;
}

/** What a quick fix looks like once placed (0-based ranges), carried in Diagnostic.data. */
export interface FixData {
  title: string;
  isPreferred?: boolean;
  edits: { range: import('../../core/diagnostics').Range; newText: string }[];
}

export interface RoutingDiagnosticData {
  fixes?: FixData[];
  rule?: string;
}
