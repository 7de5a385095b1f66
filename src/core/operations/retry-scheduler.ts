// The operator's scheduled retries: a recovery that ends in wait-for-reset (no provider free, a
// reset within reach) is retried once, a little after the reset (retries.ts holds the timers);
// each retry's last change (scheduled, cancelled, done) is kept for the state file, so a retry
// survives a restart and fires once the monitor lists its session again. A retry fired recovers
// the session as it reads then, only when it is verified to be this operator's worker (rule 2).
import { describeError } from '../error-message';
import type { EpochMs } from '../model';
import { localTime } from '../monitor/present';
import type { SessionRow } from '../monitor/row';
import type { OperatorCore } from './operator-core';
import type { ActionTarget } from './requests';
import { ScheduledRetries } from './retries';
import type { PersistedRetry } from './state-store-operator';

export interface RetryHooks {
  /** Recover the session now (an automatic recovery through the action path). */
  recover(row: SessionRow): Promise<unknown>;
  /** Authority rule 2: why the session is not this operator's (null: verified). */
  verifyClaim(key: string): Promise<string | null>;
  /** A change to persist. */
  persist(): void;
}

export class RetryScheduler {
  readonly timers: ScheduledRetries;
  /** Each retry's last change (scheduled, cancelled, done), as persisted. */
  private readonly changes = new Map<string, PersistedRetry>();
  /** Retries that came due before the monitor listed their session (after a restart). */
  private readonly due = new Set<string>();

  constructor(
    private readonly core: OperatorCore,
    private readonly hooks: RetryHooks,
  ) {
    this.timers = new ScheduledRetries(core.timers);
  }

  /** Retries recovery once after the reset; gives the row text. */
  schedule(row: ActionTarget, at: EpochMs): string {
    if (this.core.o.armRetries === false) return `wait for the reset: retry after ${localTime(at)}`;
    this.timers.schedule(row.key, at, () => this.fire(row.key, row.id));
    this.note(row.key, row.id, at, 'scheduled');
    this.core.log('info', `recovery of ${row.id} scheduled for ${new Date(at).toISOString()}`);
    return `retry scheduled ${localTime(at)}`;
  }

  /**
   * A scheduled retry fired: recover the session as it reads now (two fresh samples, a provider
   * acceptable now, the session re-read before the POST), if its wall is still there or not yet
   * judged. A session the monitor does not list yet (after a restart) is recovered once it does.
   */
  private fire(key: string, sessionId: string): void {
    this.core.book.clear(key);
    const current = this.core.monitor.row(key);
    if (!current) {
      this.due.add(key);
      return;
    }
    this.due.delete(key);
    const entry = this.changes.get(key);
    this.note(key, sessionId, entry?.at ?? this.core.now(), 'done');
    if (current.quotaWall || current.verdict === null)
      // Authority rule 2: a retry kept across a restart instructs the worker only once verified.
      this.hooks
        .verifyClaim(key)
        .then((notMine) => {
          if (!notMine) return this.hooks.recover(current);
          this.core.log('warn', `scheduled recovery of ${sessionId} not taken: ${notMine}`);
          return undefined;
        })
        .catch((err) => this.core.log('error', `scheduled recovery of ${sessionId}: ${describeError(err)}`));
    else this.core.log('info', `scheduled recovery of ${sessionId} not needed: it is no longer at a quota wall`);
  }

  /** Fires the retries that came due before their session was listed, now that it is. */
  fireDue(): void {
    for (const key of [...this.due]) {
      const entry = this.changes.get(key);
      if (this.core.monitor.row(key)) this.fire(key, entry?.sessionId ?? key);
    }
  }

  private note(key: string, sessionId: string, at: EpochMs, state: PersistedRetry['state']): void {
    this.changes.set(key, { key, sessionId, at, state, changedAt: this.core.now() });
    this.hooks.persist();
  }

  /** Cancels the session's scheduled retry; whether one was pending. */
  cancel(rowKey: string, announce = true): boolean {
    const had = this.timers.cancel(rowKey);
    this.due.delete(rowKey);
    const entry = this.changes.get(rowKey);
    if (had && entry) this.note(rowKey, entry.sessionId, entry.at, 'cancelled');
    if (!this.core.book.scheduled(rowKey)) return had;
    this.core.book.finish(rowKey, 'cancelled', 'scheduled retry cancelled');
    if (announce) this.core.log('info', `scheduled recovery of ${rowKey} cancelled`);
    return true;
  }

  /** Adds the persisted retries (after a reload or a restart): newer changes win; scheduled ones are armed again. */
  restore(retries: Record<string, PersistedRetry>): void {
    for (const r of Object.values(retries)) {
      const have = this.changes.get(r.key);
      if (have && have.changedAt >= r.changedAt) continue;
      this.changes.set(r.key, r);
      if (r.state !== 'scheduled' || this.timers.get(r.key)) continue;
      this.timers.schedule(r.key, r.at, () => this.fire(r.key, r.sessionId));
      this.core.book.finish(r.key, 'scheduled', `retry scheduled ${localTime(r.at)}`, {
        action: 'scheduled-retry',
        at: r.at,
      });
      this.core.log(
        'info',
        `recovery of ${r.sessionId} scheduled for ${new Date(r.at).toISOString()} (kept across a restart)`,
      );
    }
  }

  /** What the state file keeps. */
  entries(): Record<string, PersistedRetry> {
    return Object.fromEntries(this.changes);
  }

  dispose(): void {
    this.timers.dispose();
  }
}
