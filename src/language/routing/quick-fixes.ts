// Quick fixes of a routing table: the fixes its diagnostics carry, for a range. Pure.
import type { Diagnostic, Range } from '../../core/diagnostics';
import { type RoutingAnalysis } from './analyzer';
import type { FixData, RoutingDiagnosticData } from './types';
import type { Position } from '../../core/diagnostics';

export interface QuickFix {
  title: string;
  isPreferred: boolean;
  diagnostic: Diagnostic;
  edits: FixData['edits'];
}

function intersects(a: Range, b: Range): boolean {
  const before = (p: Position, q: Position) => p.line < q.line || (p.line === q.line && p.character < q.character);
  return !before(a.end, b.start) && !before(b.end, a.start);
}

/** Quick fixes for the diagnostics that touch `range`. */
export function quickFixes(analysis: RoutingAnalysis, range: Range): QuickFix[] {
  const out: QuickFix[] = [];
  for (const d of analysis.diagnostics) {
    if (!intersects(d.range, range)) continue;
    const data = d.data as RoutingDiagnosticData | undefined;
    for (const f of data?.fixes ?? [])
      out.push({ title: f.title, isPreferred: !!f.isPreferred, diagnostic: d, edits: f.edits });
  }
  return out;
}
