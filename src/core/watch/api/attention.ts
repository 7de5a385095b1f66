// What needs a person, from a fleet row (a `status --json` session): the one rule the web page's
// attention list (src/web/fleet-model.ts) and the event stream's `alert` events (./event-feed.ts)
// both use. Pure: no Node import, so the page's bundle takes it as it is.
import type { StatusSession } from '../../health/status-document';

/** Why a row needs a person, in the order the page's attention list shows them. */
export type AttentionReason = 'waiting' | 'escalated' | 'stuck' | 'hung' | 'over-budget';

export const ATTENTION_ORDER: readonly AttentionReason[] = ['waiting', 'escalated', 'stuck', 'hung', 'over-budget'];

/** An `alert` event's kind: every attention reason, and a quota wall. */
export type AlertKind = AttentionReason | 'quota-wall';

type AttentionFields = Pick<
  StatusSession,
  'verdict' | 'waiting' | 'action' | 'escalation' | 'automaticSkip' | 'overBudget' | 'headline'
>;

/** Why a row needs a person, in ATTENTION_ORDER; empty when it does not. */
export function attentionOf(row: Omit<AttentionFields, 'headline'>): AttentionReason[] {
  const out: AttentionReason[] = [];
  if (row.verdict === 'waiting' || row.waiting) out.push('waiting');
  if (row.action === 'escalate' || row.escalation) out.push('escalated');
  if (row.automaticSkip?.reason === 'stuck') out.push('stuck');
  if (row.verdict === 'hung') out.push('hung');
  if (row.overBudget) out.push('over-budget');
  return out;
}

/** The alert kinds a row is in now: its attention reasons, and `quota-wall` when that is its headline. */
export function alertKindsOf(row: AttentionFields): AlertKind[] {
  const kinds: AlertKind[] = attentionOf(row);
  if (row.headline === 'quota-wall') kinds.push('quota-wall');
  return kinds;
}

/**
 * Per row, the alert kinds it was in when last seen; `enter` answers the kinds it entered since, so
 * each transition into a state is told once (leaving it and coming back is a new transition).
 */
export class AlertStates {
  private readonly byRow = new Map<string, readonly AlertKind[]>();

  /** The row's kinds now; the kinds it entered (all of them for a row not seen before). */
  enter(rowKey: string, kinds: readonly AlertKind[]): AlertKind[] {
    const before = this.byRow.get(rowKey) ?? [];
    if (kinds.length === 0) this.byRow.delete(rowKey);
    else this.byRow.set(rowKey, kinds);
    return kinds.filter((k) => !before.includes(k));
  }

  /** Records a kind the row entered through another path (an act's outcome); false: it was in it already. */
  add(rowKey: string, kind: AlertKind): boolean {
    const before = this.byRow.get(rowKey) ?? [];
    if (before.includes(kind)) return false;
    this.byRow.set(rowKey, [...before, kind]);
    return true;
  }

  /** Takes the rows' present kinds as known, telling nothing (a first client: no transition seen yet). */
  prime(rows: Iterable<[rowKey: string, kinds: readonly AlertKind[]]>): void {
    this.byRow.clear();
    for (const [key, kinds] of rows) if (kinds.length > 0) this.byRow.set(key, kinds);
  }

  forget(rowKey: string): void {
    this.byRow.delete(rowKey);
  }

  clear(): void {
    this.byRow.clear();
  }

  get size(): number {
    return this.byRow.size;
  }
}
