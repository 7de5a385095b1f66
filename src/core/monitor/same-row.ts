// Whether a freshly built session row says anything new, without serializing it: every field
// compared by value, except the evidence's sample times (`at`), which change every round and are
// only read when a tooltip is opened (from the current row), and the assessment behind the row
// (every field shown is derived from it and compared). Cheaper than JSON.stringify twice per
// row per round, and a round that only re-read the same state reports no changed row. Pure.
import type { SampleEvidence, SessionRow } from './row';

export function sameRow(a: SessionRow, b: SessionRow): boolean {
  for (const key of Object.keys(a) as Array<keyof SessionRow>) {
    if (key === 'evidence' || key === 'assessment') continue;
    if (!equal(a[key], b[key])) return false;
  }
  for (const key of Object.keys(b) as Array<keyof SessionRow>)
    if (!(key in a) && b[key] !== undefined && key !== 'assessment') return false;
  return sameEvidence(a.evidence.latest, b.evidence.latest) && sameEvidence(a.evidence.earlier, b.evidence.earlier);
}

function sameEvidence(a: SampleEvidence | null, b: SampleEvidence | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.state === b.state &&
    a.stepCount === b.stepCount &&
    a.lastStepAt === b.lastStepAt &&
    a.newestId === b.newestId &&
    a.newestRole === b.newestRole
  );
}

/** Structural equality of JSON-like values (what rows are made of). */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a !== a && b !== b; // NaN
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => equal(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => equal(ao[k], bo[k]));
}
