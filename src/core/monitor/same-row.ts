// Whether a freshly built session row says anything new, without serializing it: every field
// compared by value, except the evidence's sample times (`at`), which change every round and are
// only read when a tooltip is opened (from the current row), and the assessment behind the row
// (every field shown is derived from it and compared). Cheaper than JSON.stringify twice per
// row per round, and a round that only re-read the same state reports no changed row. Pure.
import { equal } from '../equal';
import type { SampleEvidence, SessionRow } from './row';

export function sameRow(a: SessionRow, b: SessionRow): boolean {
  for (const key in a) {
    if (key === 'evidence' || key === 'assessment') continue;
    if (!equal(a[key as keyof SessionRow], b[key as keyof SessionRow])) return false;
  }
  for (const key in b)
    if (!(key in a) && b[key as keyof SessionRow] !== undefined && key !== 'assessment') return false;
  return sameEvidence(a.evidence.latest, b.evidence.latest) && sameEvidence(a.evidence.earlier, b.evidence.earlier);
}

function sameEvidence(a: SampleEvidence | null, b: SampleEvidence | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.state === b.state &&
    a.stepCount === b.stepCount &&
    a.lastStepAt === b.lastStepAt &&
    a.newestId === b.newestId &&
    a.newestRole === b.newestRole &&
    (a.newestAt ?? null) === (b.newestAt ?? null)
  );
}
