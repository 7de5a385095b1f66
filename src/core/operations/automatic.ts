// Automatic mode (sessionOps.automatic.*): which action to take on a row without a click.
// Off by default and only in trusted workspaces (the extension checks trust); abort only with
// `abortHung` on and only on a settled hung verdict; never the same action twice on one verdict
// (a verdict is identified by the session, the verdict, the action and the newest message id it
// was read on: after an action the newest message moves, so only a new verdict can act again);
// and at most `maxPerHour` automatic actions per session, so a session that falls back at once
// cannot loop. A session whose cost reached budget.sessionUsd (row.budgetLevel 100) is only ever
// aborted, with `abortOverBudget` on, while it generates on a settled verdict that is not waiting
// for a person; automatic mode never wakes or recovers it. Pure: the extension runs what this returns.
import type { EpochMs } from '../model';
import type { AutomaticSwitches } from '../settings/operator-settings';
import type { SessionRow } from '../monitor/row';
import { verdictKey } from '../ids';
import { TimedMemory } from './memory-bounds';

export type AutomaticAction = 'abort' | 'abort-and-wake' | 'wake' | 'recover';

export const MAX_AUTOMATIC_PER_HOUR = 3;

export class AutomaticPolicy {
  /** Verdict keys acted on, and when. */
  private readonly acted: TimedMemory;
  private readonly history = new Map<string, EpochMs[]>();

  constructor(
    private readonly now: () => EpochMs = Date.now,
    private readonly maxPerHour = MAX_AUTOMATIC_PER_HOUR,
  ) {
    this.acted = new TimedMemory(now);
  }

  /** The action to take now on this row, or null. Does not record it: call `record` when acting. */
  decide(
    row: SessionRow,
    settings: AutomaticSwitches,
    opts: { trusted: boolean; busy: boolean },
  ): AutomaticAction | null {
    if (!opts.trusted || opts.busy) return null;
    if (row.verdict === null || row.action === null) return null; // never on one snapshot
    if (this.acted.has(verdictKey(row))) return null;
    const recent = (this.history.get(row.key) ?? []).filter((t) => this.now() - t < 3_600_000);
    if (recent.length >= this.maxPerHour) return null;
    if (row.budgetLevel === 100)
      return settings.abortOverBudget && row.state === 'generating' && row.verdict !== 'waiting' ? 'abort' : null;
    if (row.action === 'abort-and-wake' && row.verdict === 'hung') return settings.abortHung ? 'abort-and-wake' : null;
    if (row.action === 'recover') {
      // A wall on a session that still generates needs an abort first: only with abortHung.
      if (row.state === 'generating' && !settings.abortHung) return null;
      return settings.recoverQuotaWalls ? 'recover' : null;
    }
    if (row.action === 'wake' && row.verdict === 'idle' && row.state === 'idle')
      return settings.wakeIdle ? 'wake' : null;
    return null;
  }

  record(row: SessionRow): void {
    this.acted.set(verdictKey(row), this.now());
    const list = (this.history.get(row.key) ?? []).filter((t) => this.now() - t < 3_600_000);
    list.push(this.now());
    this.history.set(row.key, list);
    this.forgetOldHistory();
  }

  /** Verdicts remembered (bounded: a month, at most OPERATOR_STATE_MAX_ENTRIES). */
  get actedCount(): number {
    return this.acted.size;
  }

  /** Sessions with an automatic action in the last hour (older lists are dropped). */
  get historyCount(): number {
    return this.history.size;
  }

  private forgetOldHistory(): void {
    for (const [k, list] of this.history)
      if (list.length === 0 || this.now() - list[list.length - 1] >= 3_600_000) this.history.delete(k);
  }

  /** The memory to persist: verdicts acted on and each session's actions in the last hour. */
  memory(): { acted: Record<string, EpochMs>; history: Record<string, EpochMs[]> } {
    const history: Record<string, EpochMs[]> = {};
    for (const [k, list] of this.history) {
      const recent = list.filter((t) => this.now() - t < 3_600_000);
      if (recent.length) history[k] = recent;
    }
    return { acted: this.acted.toRecord(), history };
  }

  /** Adds a persisted memory (after a reload or a restart): never twice on one verdict still holds. */
  remember(memory: { acted: Record<string, EpochMs>; history: Record<string, EpochMs[]> }): void {
    for (const [k, t] of Object.entries(memory.acted)) this.acted.set(k, t);
    for (const [k, list] of Object.entries(memory.history)) {
      const merged = [...new Set([...(this.history.get(k) ?? []), ...list])].sort((a, b) => a - b);
      this.history.set(k, merged);
    }
    this.forgetOldHistory();
  }

  /** Whether any automatic action is on (the monitor then samples even with the views hidden). */
  static armed(settings: AutomaticSwitches): boolean {
    return settings.abortHung || settings.wakeIdle || settings.recoverQuotaWalls || settings.abortOverBudget;
  }
}
