// The JSON of an effective route: what `session-ops route --json` prints and the watch daemon's
// GET /api/route answers (issue 31 items 2 and 7), and a diagnostic as `validate --json` prints it.
// Pure.
import type { Diagnostic } from '../../core/diagnostics';
import type { EffectiveRoute, ResolvedRoute } from './resolve';

function blockJson(r: ResolvedRoute) {
  return {
    entry: { skill: r.entry.skill, mode: r.entry.mode },
    skip: r.skip,
    keepGates: r.keepGates,
    preflight: r.preflight,
    preflightDropped: r.preflightDropped,
    effort: r.effort,
    notes: r.notes,
  };
}

/** The --json document: the keys, in its order. */
export function routeJson(r: EffectiveRoute) {
  const b = blockJson(r);
  return {
    matched: r.matched,
    entry: b.entry,
    skip: b.skip,
    keepGates: b.keepGates,
    preflight: b.preflight,
    preflightDropped: b.preflightDropped,
    effort: b.effort,
    variant: r.variant,
    notes: b.notes,
    reviewRounds: r.reviewRounds,
    dag: r.dag
      ? {
          route: blockJson(r.dag.route),
          taskRoute: { ...blockJson(r.dag.taskRoute), inherit: r.dag.taskRoute.inherit },
          singleGate: r.dag.singleGate,
          reviewDepth: r.dag.reviewDepth,
        }
      : null,
  };
}

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
