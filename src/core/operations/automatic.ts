// Automatic mode (sessionOps.automatic.*): which action to take on a row without a click.
// Off by default and only in trusted workspaces (the extension checks trust); abort only with
// `abortHung` on and only on a settled hung verdict; never the same action twice on one verdict
// (a verdict is identified by the session, the verdict, the action and the newest message id it
// was read on: after an action the newest message moves, so only a new verdict can act again);
// and at most `maxPerHour` automatic actions per session, so a session that falls back at once
// cannot loop. A session whose cost reached budget.sessionUsd (row.budgetLevel 100) is only ever
// aborted, with `abortOverBudget` on, while it generates on a settled verdict that is not waiting
// for a person; automatic mode never wakes or recovers it. Pure: the extension runs what this returns.
import { systemClock } from '../clock';
import type { EpochMs } from '../model';
import type { AutomaticSwitches } from '../settings/operator-settings';
import type { SessionRow } from '../monitor/row';
import { parseVerdictKey, verdictKey, verdictMessage } from '../keys';
import { OPERATOR_STATE_KEEP_MS } from './memory-bounds';

export type AutomaticAction = 'abort' | 'abort-and-wake' | 'wake' | 'recover';

export const MAX_AUTOMATIC_PER_HOUR = 3;

const HOUR = 3_600_000;

/** What automatic mode remembers of one session: the verdict keys it acted on, and when. */
interface ActedOn {
  verdicts: Map<string, EpochMs>;
  /** When the session was last considered. */
  seenAt: EpochMs;
}

export class AutomaticPolicy {
  /**
   * Per session, the verdicts acted on. A verdict read on an older newest message than the session's
   * current one can never come back, so it is forgotten when the session is next considered; a
   * session not considered for OPERATOR_STATE_KEEP_MS (gone, or automatic mode off) is forgotten.
   */
  private readonly acted = new Map<string, ActedOn>();
  private readonly history = new Map<string, EpochMs[]>();
  private prunedAt: EpochMs;

  constructor(
    private readonly now: () => EpochMs = systemClock.now,
    private readonly maxPerHour = MAX_AUTOMATIC_PER_HOUR,
  ) {
    this.prunedAt = now();
  }

  /** The action to take now on this row, or null. Does not record it: call `record` when acting. */
  decide(
    row: SessionRow,
    settings: AutomaticSwitches,
    opts: { trusted: boolean; busy: boolean },
  ): AutomaticAction | null {
    const actedOn = this.consider(row);
    if (!opts.trusted || opts.busy) return null;
    if (row.verdict === null || row.action === null) return null; // never on one snapshot
    if (actedOn?.verdicts.has(verdictKey(row))) return null;
    const recent = (this.history.get(row.key) ?? []).filter((t) => this.now() - t < HOUR);
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
    this.remembered(row.key).verdicts.set(verdictKey(row), this.now());
    const list = (this.history.get(row.key) ?? []).filter((t) => this.now() - t < HOUR);
    list.push(this.now());
    this.history.set(row.key, list);
    this.forgetOldHistory();
  }

  /** Verdicts remembered: those read on each session's current newest message, of sessions seen in the last month. */
  get actedCount(): number {
    let n = 0;
    for (const a of this.acted.values()) n += a.verdicts.size;
    return n;
  }

  /** The session's memory, its verdicts on older messages dropped; marks it seen. */
  private consider(row: SessionRow): ActedOn | undefined {
    this.pruneUnseen();
    const actedOn = this.acted.get(row.key);
    if (!actedOn) return undefined;
    actedOn.seenAt = this.now();
    const newestId = verdictMessage(row);
    for (const k of actedOn.verdicts.keys()) if (parseVerdictKey(k)?.newestId !== newestId) actedOn.verdicts.delete(k);
    if (actedOn.verdicts.size === 0) this.acted.delete(row.key);
    return actedOn;
  }

  private remembered(rowKey: string): ActedOn {
    let actedOn = this.acted.get(rowKey);
    if (!actedOn) this.acted.set(rowKey, (actedOn = { verdicts: new Map(), seenAt: this.now() }));
    return actedOn;
  }

  /** Hourly: sessions not considered for the keep time are forgotten, and action times over an hour old. */
  private pruneUnseen(): void {
    const now = this.now();
    if (now - this.prunedAt < HOUR) return;
    this.prunedAt = now;
    for (const [k, a] of this.acted) if (now - a.seenAt > OPERATOR_STATE_KEEP_MS) this.acted.delete(k);
    this.forgetOldHistory();
  }

  /** Sessions with an automatic action in the last hour (older lists are dropped). */
  get historyCount(): number {
    return this.history.size;
  }

  private forgetOldHistory(): void {
    for (const [k, list] of this.history)
      if (list.length === 0 || this.now() - list[list.length - 1] >= HOUR) this.history.delete(k);
  }

  /** The memory to persist: verdicts acted on and each session's actions in the last hour. */
  memory(): { acted: Record<string, EpochMs>; history: Record<string, EpochMs[]> } {
    const history: Record<string, EpochMs[]> = {};
    for (const [k, list] of this.history) {
      const recent = list.filter((t) => this.now() - t < HOUR);
      if (recent.length) history[k] = recent;
    }
    const acted: Record<string, EpochMs> = {};
    for (const a of this.acted.values()) for (const [k, at] of a.verdicts) acted[k] = at;
    return { acted, history };
  }

  /** Adds a persisted memory (after a reload or a restart): never twice on one verdict still holds. */
  remember(memory: { acted: Record<string, EpochMs>; history: Record<string, EpochMs[]> }): void {
    for (const [k, t] of Object.entries(memory.acted)) {
      const parsed = parseVerdictKey(k);
      if (!parsed) continue;
      const verdicts = this.remembered(parsed.rowKey).verdicts;
      verdicts.set(k, Math.max(verdicts.get(k) ?? 0, t));
    }
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
