// Automatic mode's runner: on every monitor change it asks the automatic policy (automatic.ts)
// about every row and runs what it decides through the very action path a click takes. Only
// sessions in its charge (charge.ts: sub-agents, stuck, age, ticket), only workers whose assignment
// names the orchestrator this operator speaks for (authority rule 1) and whose claim was verified
// from the durable record right before (rule 2). It also keeps the wake streaks: an automatic wake
// whose prompt went out counts, a completion report or a person's action starts the count again.
import type { Authority } from '../actions';
import { describeError } from '../error-message';
import type { EpochMs } from '../model';
import type { SessionRow } from '../monitor/row';
import { automaticSwitches, chargeSettings } from '../settings/operator-settings';
import type { ActRunner } from './act-runner';
import { AutomaticPolicy, type AutomaticAction } from './automatic';
import { isWakeAction, outOfCharge, ticketReference, wakeKey, wakeKeyOfRow, type OutOfCharge } from './charge';
import { ClaimCheck } from './claim';
import type { OperatorAuthority } from './operator-authority';
import { TICKET_REREAD_MS, WAKES_REREAD_MS, type OperatorCore } from './operator-core';
import type { ActionOutcome } from './action-outcome';
import type { OperatorStore } from './operator-store';

/** The actions automatic mode runs (the facade's, flagged automatic). */
export interface AutomaticActs {
  abort(row: SessionRow): Promise<unknown>;
  wake(row: SessionRow, abortFirst: boolean, authority: Authority): Promise<unknown>;
  recover(row: SessionRow): Promise<unknown>;
}

export class AutomaticRunner {
  /**
   * Per session (row key), the ticket its recorded assignment names, as last read for
   * automatic.onlyTicketed (src/core/actions/assignment.ts: the dispatch record, else its first
   * user message), and when; sessions being read.
   */
  private readonly taskTickets = new Map<string, { ticket: string | null; at: number }>();
  private readonly readingTickets = new Map<string, Promise<void>>();
  /** Per session, the reason automatic mode last left it alone (logged when it changes). */
  private readonly leftAlone = new Map<string, string>();
  /** Sessions automatic mode leaves alone because another orchestrator assigned them (logged once). */
  private readonly notMine = new Set<string>();
  private readonly automaticListeners = new Set<(action: AutomaticAction, row: SessionRow) => void>();
  /**
   * Per session, when its last act (clicked, automatic or a fired retry) ended. A sample read
   * before that (a round that began while the act ran and was committed after it) shows what the
   * act may have changed: automatic mode waits for a sample read after it. Without this, a round
   * begun before an abort, committing a still-generating row with a newer message after the abort's
   * lock was released, made a new verdict and a second abort.
   */
  private readonly actEnded = new Map<string, EpochMs>();
  readonly claims: ClaimCheck;
  private wakesReadAt = 0;
  private wakesReading = false;

  constructor(
    private readonly core: OperatorCore,
    private readonly authority: OperatorAuthority,
    private readonly runner: ActRunner,
    private readonly store: OperatorStore,
    private readonly acts: AutomaticActs,
  ) {
    this.claims = new ClaimCheck(
      (key) => this.authority.verifyClaim(key),
      () => this.core.now(),
      () => this.consider(),
    );
  }

  /** An automatic action the policy just started. */
  onDidStart(listener: (action: AutomaticAction, row: SessionRow) => void): () => void {
    this.automaticListeners.add(listener);
    return () => this.automaticListeners.delete(listener);
  }

  /** Whether an automatic action is on (the monitor then samples even when nobody looks). */
  armed(): boolean {
    return AutomaticPolicy.armed(automaticSwitches(this.core.settings));
  }

  /**
   * Why automatic mode leaves the session alone (src/core/operations/charge.ts), or null: in its
   * charge, or automatic mode is off. What the row, its tooltip and `status` show as `automaticSkip`.
   */
  skip(row: SessionRow): OutOfCharge | null {
    if (!this.armed()) return null;
    return this.chargeSkip(row) ?? this.authoritySkip(row);
  }

  /**
   * Authority rules 1 and 2 on the row: its newest assignment names another orchestrator, or the
   * last verification of its claim from the durable record (made when automatic mode was about to
   * act; none is started here) found it is not this operator's worker.
   */
  private authoritySkip(row: SessionRow): OutOfCharge | null {
    const authority = this.authority.of(row);
    if (authority.mismatch && authority.named && authority.named !== authority.orchestrator)
      return {
        reason: 'authority',
        text: `authority rule 1: its assignment names orchestrator ${authority.named}, not ${authority.orchestrator ?? 'the one configured here (none)'}`,
      };
    const notMine = this.claims.notMine(row.key);
    return notMine ? { reason: 'authority', text: notMine } : null;
  }

  /** The reasons of charge.ts (sub-agent, stuck, age, ticket). */
  private chargeSkip(row: SessionRow): OutOfCharge | null {
    return outOfCharge(row, chargeSettings(this.core.settings), {
      now: this.core.now(),
      wakes: this.core.wakes.count(wakeKey(row.directory, row.id)),
      ticket: this.core.dispatches.ticket(row.key) ?? this.taskTickets.get(row.key)?.ticket ?? null,
    });
  }

  /** Asks the automatic policy about every row and runs what it decides, through the action path. */
  consider(): void {
    this.resetReported();
    const settings = automaticSwitches(this.core.settings);
    if (!AutomaticPolicy.armed(settings) || !this.store.restored) return;
    const trusted = this.core.o.trusted?.() ?? true;
    const rows = this.core.monitor.rows();
    if (this.leftAlone.size > rows.length) this.leftAlone.clear();
    if (this.actEnded.size > 2 * rows.length) this.forgetActsOfGoneSessions(rows);
    for (const row of rows) {
      const busy =
        this.runner.busy(row.key) ||
        this.core.book.scheduled(row.key) ||
        this.claims.verifying(row.key) ||
        this.readBeforeLastAct(row);
      const action = this.core.policy.decide(row, settings, { trusted, busy });
      if (!action) continue;
      // Only sessions in its charge (a stuck session may still be aborted over budget: that is no wake).
      const skip = this.chargeSkip(row);
      // Its task's ticket is read from the durable record first (outside this round; asked again then).
      if (skip?.reason === 'not-ticketed' && this.readTaskTicket(row)) continue;
      if (skip && !(skip.reason === 'stuck' && action === 'abort')) {
        if (this.leftAlone.get(row.key) !== skip.reason) {
          this.leftAlone.set(row.key, skip.reason);
          this.core.log(
            skip.reason === 'stuck' ? 'warn' : 'info',
            `automatic ${action} on ${row.id} not taken: ${skip.text}`,
          );
        }
        continue;
      }
      this.leftAlone.delete(row.key);
      // Authority rule 1: a worker whose assignment names another orchestrator is that one's to instruct.
      const authority = this.authority.of(row);
      if (authority.mismatch) {
        if (!this.notMine.has(row.key)) {
          this.notMine.add(row.key);
          const here = authority.orchestrator ?? 'the one configured here (none)';
          this.core.log(
            'warn',
            `automatic ${action} on ${row.id} not taken: its assignment names orchestrator ${authority.named}, not ${here}`,
          );
        }
        continue;
      }
      // Authority rule 2: verified from the durable record before every automatic action.
      const claim = this.claims.check(row.key);
      if (claim === 'pending') continue;
      if (claim !== 'mine') {
        if (!this.notMine.has(row.key)) {
          this.notMine.add(row.key);
          this.core.log('warn', `automatic ${action} on ${row.id} not taken: ${claim.notMine}`);
        }
        continue;
      }
      this.claims.consume(row.key);
      this.notMine.delete(row.key);
      this.core.policy.record(row);
      this.store.persist();
      const overBudget = action === 'abort' ? `, over budget (${row.cost ? row.cost.usd : '?'} USD)` : '';
      this.core.log(
        'info',
        `automatic ${action} on ${row.id} (${row.directory}): verdict ${row.verdict}, action ${row.action}${overBudget}`,
      );
      for (const l of this.automaticListeners) l(action, row);
      const token = this.runner.claim(row.key, action);
      const run =
        action === 'recover'
          ? this.acts.recover(row)
          : action === 'abort'
            ? this.acts.abort(row)
            : this.acts.wake(row, action === 'abort-and-wake', authority);
      run
        .catch((err) => this.core.log('error', `automatic ${action} on ${row.id}: ${describeError(err)}`))
        .finally(() => this.runner.release(row.key, token));
    }
  }

  /**
   * Reads the ticket the session's recorded assignment names (at most every TICKET_REREAD_MS), for
   * automatic.onlyTicketed: a dispatch or fact baseline's ticket, or a ticket reference in its first
   * user message (read once, remembered in the state file). Whether a read is under way.
   */
  private readTaskTicket(row: SessionRow): boolean {
    if (this.readingTickets.has(row.key)) return true;
    const known = this.taskTickets.get(row.key);
    if (known && this.core.now() - known.at < TICKET_REREAD_MS) return false;
    if (this.taskTickets.size > 2 * this.core.monitor.rows().length) this.taskTickets.clear();
    const read = async () => {
      const assigner = await this.authority.assigner(row);
      if (assigner.source === 'unread') return null;
      return assigner.source === 'first-message' ? ticketReference(assigner.ticket) : assigner.ticket;
    };
    const done = read()
      .catch(() => null)
      .then((ticket) => {
        this.taskTickets.set(row.key, { ticket, at: this.core.now() });
        this.readingTickets.delete(row.key);
        this.consider();
      })
      .catch((err) => this.core.log('error', `reading the ticket of ${row.id}: ${describeError(err)}`));
    this.readingTickets.set(row.key, done);
    return true;
  }

  /** Settles once no task's ticket is being read (automatic.onlyTicketed) and no claim verified. */
  async chargeSettled(): Promise<void> {
    for (;;) {
      await this.claims.settled();
      if (this.readingTickets.size === 0) return;
      await Promise.all([...this.readingTickets.values()]);
    }
  }

  /**
   * A session whose newest message is a completion report starts its count of wakes again. While
   * a session is stuck, the state file is re-read (at most every WAKES_REREAD_MS) for a reset
   * another process wrote: a person acting through the CLI or another window.
   */
  private resetReported(): void {
    if (!this.core.wakes.counting) return;
    let changed = false;
    for (const row of this.core.monitor.rows())
      if (row.report && this.core.wakes.reset(wakeKey(row.directory, row.id))) changed = true;
    if (changed) this.store.persist();
    this.rereadWakes();
  }

  private rereadWakes(): void {
    const now = this.core.now();
    if (!this.store.hasFile || this.wakesReading || now - this.wakesReadAt < WAKES_REREAD_MS) return;
    if (!this.core.wakes.anyAtLeast(chargeSettings(this.core.settings).maxConsecutiveWakes)) return;
    this.wakesReadAt = now;
    this.wakesReading = true;
    this.store
      .rereadWakes()
      .then((changed) => {
        if (changed)
          this.core.log('info', 'a count of automatic wakes changed in the state file (a person acted): read again');
      })
      .catch(() => undefined)
      .finally(() => (this.wakesReading = false));
  }

  /** A finished act (any outcome but busy): its end is noted, and an automatic wake counted. */
  acted(o: ActionOutcome): void {
    if (o.outcome !== 'busy') this.actEnded.set(o.rowKey, this.core.now());
    this.countWake(o);
  }

  /** Whether the row's latest sample was read before the session's last act ended (see actEnded). */
  private readBeforeLastAct(row: SessionRow): boolean {
    const ended = this.actEnded.get(row.key);
    if (ended === undefined) return false;
    const latest = row.evidence.latest;
    if ((latest.readFrom ?? latest.at) >= ended) {
      this.actEnded.delete(row.key);
      return false;
    }
    return true;
  }

  private forgetActsOfGoneSessions(rows: readonly SessionRow[]): void {
    const shown = new Set(rows.map((r) => r.key));
    for (const key of this.actEnded.keys()) if (!shown.has(key)) this.actEnded.delete(key);
  }

  /**
   * Counts an automatic wake whose prompt went out (`sent` true or "unknown"); a person's action on
   * the session starts the count again.
   */
  countWake(o: ActionOutcome): void {
    const key = wakeKeyOfRow(o.rowKey);
    if (o.outcome === 'busy' || key === null) return;
    if (!o.automatic) {
      if (this.core.wakes.reset(key)) this.store.persist();
      return;
    }
    // A prompt that went out, or may have (its answer never came): counted, so stuck never comes late.
    if (!isWakeAction(o.action) || o.sent === false) return;
    const n = this.core.wakes.woke(key);
    this.store.persist();
    const max = chargeSettings(this.core.settings).maxConsecutiveWakes;
    if (n >= max)
      this.core.log(
        'warn',
        `automatic wake ${n} of ${o.sessionId} without a report: the next time it stops, a person decides`,
      );
  }
}
