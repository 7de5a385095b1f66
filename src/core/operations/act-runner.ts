// The one path of every operator action: the act's one lock (act-lock.ts: this process's and the
// machine-wide one) is taken here and only here (a held lock gives outcome `busy`), the start is recorded in the operation book (what the row
// shows), the core action runs with its context, and the outcome is recorded, logged once and
// announced; then the session is sampled again. Automatic actions are busy from the decision on
// (`claim`), so nothing starts a second action on the session before this one holds its lock.
import type { ActionContext } from '../actions';
import { machineLocker } from '../actions/reverify';
import { describeError } from '../error-message';
import { monitorSettings } from '../settings/operator-settings';
import type { SessionLocker } from '../state/session-locker';
import { ActLock } from './act-lock';
import type { OperatorAction } from './book';
import { label, type OperatorCore } from './operator-core';
import { logLine, outcomeOf, type ActionOutcome } from './action-outcome';
import type { OutcomeBase } from './result-outcome';
import type { Acted, ActionOptions, ActionTarget } from './requests';

export class ActRunner {
  private readonly listeners = new Set<(o: ActionOutcome) => void>();
  /**
   * Sessions with an automatic action decided and not yet under its lock: busy from the decision on,
   * so a round (or a claim verified meanwhile) that asks the policy again before the action holds
   * its lock never starts a second one on the same session.
   */
  private readonly decided = new Map<string, symbol>();

  /** The one lock of an act (this process's and the machine-wide one), taken in `run` only. */
  private readonly lock: ActLock;

  constructor(
    private readonly core: OperatorCore,
    /** Runs first on every finished outcome (the automatic runner counts wakes). */
    private readonly beforeFinish: (o: ActionOutcome) => void,
  ) {
    this.lock = new ActLock(core.lock, () => machineLocker(core.o.postLocker));
  }

  /** Every finished action (clicked, automatic or a fired retry). */
  onDidAct(listener: (o: ActionOutcome) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether an action runs on the session now (the lock is held, the book says running, or one is decided). */
  busy(rowKey: string): boolean {
    return this.lock.held(rowKey) || this.core.book.busy(rowKey) || this.decided.has(rowKey);
  }

  /** An automatic action was decided on the session: busy until it holds the lock (or `release`). */
  claim(rowKey: string, action: string): symbol {
    const token = Symbol(action);
    this.decided.set(rowKey, token);
    return token;
  }

  release(rowKey: string, token: symbol): void {
    if (this.decided.get(rowKey) === token) this.decided.delete(rowKey);
  }

  /**
   * Holds the lock, records the start, runs the core action, records and logs the outcome, then
   * samples the session again. `outcome` reads the core action's result as an ActionOutcome.
   */
  async run<R>(
    target: ActionTarget,
    action: OperatorAction,
    runningText: string,
    options: ActionOptions,
    run: (ctx: ActionContext) => Promise<R>,
    outcome: (base: OutcomeBase, result: R) => ActionOutcome,
  ): Promise<Acted<R>> {
    const base: OutcomeBase = {
      action,
      rowKey: target.key,
      sessionId: target.id,
      label: label(target),
      automatic: options.automatic ?? false,
    };
    const seen: { result: R | null } = { result: null };
    try {
      const locked = await this.lock.hold(
        target,
        action,
        () => {
          this.core.book.start(target.key, action, runningText);
          this.decided.delete(target.key); // from here the lock and the book say busy
        },
        async (locker) => {
          try {
            seen.result = await run(this.context(target, await this.core.client(target.backendKey), locker));
            return outcome(base, seen.result);
          } catch (err) {
            this.core.book.finish(target.key, 'failed', `failed: ${describeError(err)}`);
            throw err;
          }
        },
      );
      const o = locked.acquired
        ? locked.value
        : outcomeOf(base, {
            outcome: 'busy',
            code: 'busy',
            rowText: '',
            message: `not started: ${locked.reason}`,
            notice: { level: 'info', text: `an action is already running on "${base.label}".` },
          });
      this.finish(o);
      return { outcome: o, result: seen.result };
    } finally {
      this.core.monitor.nudge(target.backendKey, target.directory);
    }
  }

  private context(target: ActionTarget, client: ActionContext['backend'], locker: SessionLocker): ActionContext {
    return {
      backend: client,
      directory: target.directory,
      clock: this.core.timers,
      locker,
      maxPromptBytes: monitorSettings(this.core.settings).maxPromptBytes,
      assignments: this.core.assignments,
    };
  }

  /** Records a finished outcome on the row, logs it once and announces it. */
  private finish(o: ActionOutcome): void {
    this.beforeFinish(o);
    if (o.outcome !== 'busy') {
      const extra = o.outcome === 'scheduled' ? { action: 'scheduled-retry' as const, at: o.at } : {};
      this.core.book.finish(o.rowKey, o.outcome, o.rowText, extra);
    }
    this.core.log(o.outcome === 'failed' ? 'warn' : 'info', logLine(o));
    for (const l of this.listeners) l(o);
  }
}
