/**
 * The operator: everything Session Ops does to a fleet, for any host (the editor, the CLI, the
 * `session-ops watch` daemon and its HTTP endpoints). A thin facade over its rooms:
 *
 *   acts/abort.ts, acts/wake.ts (wake, abort-and-wake, send of a text), acts/recover.ts,
 *   acts/dispatch.ts, acts/answer.ts, acts/retry.ts   one module per action
 *   act-runner.ts        the one action path: the action lock (taken there only), the operation
 *                        book, the outcome logged once and announced
 *   retry-scheduler.ts   recoveries scheduled after a reset, kept across a restart
 *   automatic-runner.ts  automatic mode: the policy's decisions run through the same actions
 *   operator-store.ts    the state file (operator-state.json)
 *   operator-authority.ts, prompt-source.ts   whom a prompt speaks for, and what it says
 *   operator-core.ts     the options, settings, clock and books every room shares
 *
 * The facade's API (stable; request types in requests.ts):
 *   abort(AbortAct): Acted<AbortResult>          wake(WakeAct): Acted<WakeResult>
 *   send(SendAct): Acted<WakeResult>             recover(RecoverAct): Acted<RecoverResult>
 *   dispatch(DispatchAct): Acted<DispatchResult> answer(AnswerAct): Acted<AnswerResult>
 *   retry(ActionOutcome): Acted<WakeResult | RecoverResult>
 *   authority(row, holds?), recordedAuthority(row, holds?, shown?), wakeTemplate(row),
 *   compose(row, template, model, baseline?, holds?, assigned?), chooseModel(row), providers(row)
 *   busy(key), armed(), automaticSkip(row), considerAutomatic(), claimsSettled(), chargeSettled(),
 *   cancelScheduled(key, announce?), onDidAct(l), onDidStartAutomatic(l), settings,
 *   updateSettings(s), restored, flush(), dispose()
 *   book, lock, reports, retries, policy, wakes, dispatches, assignments (the books, read-only)
 *
 * Every outcome is data (`ActionOutcome`: row text, log line, notice, a kept prompt, and for a
 * refusal its typed `code`). Nothing here imports an editor; the clock and timers are injected
 * (`timers`), as are whom prompts speak for (`authority`) and workspace trust (`trusted`). The
 * operator keeps the completion reports of the monitor's rows itself (no view drives it).
 */
import type { Assigner } from '../actions/assignment';
import type { Authority, Composed, FactBaselineFacts, ModelChoice, PromptTemplate } from '../actions';
import type { AnswerResult } from '../actions/answer';
import type { ModelRef, ProviderListing } from '../model';
import type { SessionRow } from '../monitor/row';
import type { OperatorSettings } from '../settings/operator-settings';
import { ActRunner } from './act-runner';
import { abortAct } from './acts/abort';
import { answerAct } from './acts/answer';
import { dispatchAct } from './acts/dispatch';
import { recoverAct } from './acts/recover';
import { retryAct } from './acts/retry';
import type { ActRooms } from './acts/rooms';
import { sendAct, wakeAct } from './acts/wake';
import type { AutomaticAction, AutomaticPolicy } from './automatic';
import { AutomaticRunner } from './automatic-runner';
import type { OperationBook } from './book';
import type { DispatchRecords, OutOfCharge, WakeStreaks } from './charge';
import { OperatorAuthority } from './operator-authority';
import { OperatorCore, type OperatorOptions } from './operator-core';
import { OperatorStore } from './operator-store';
import type { ActionOutcome } from './action-outcome';
import { PromptSource } from './prompt-source';
import type { ReportBook } from './reports';
import type {
  AbortAct,
  AbortResult,
  Acted,
  AnswerAct,
  DispatchAct,
  DispatchResult,
  RecoverAct,
  RecoverResult,
  SendAct,
  WakeAct,
  WakeResult,
} from './requests';
import type { ScheduledRetries } from './retries';
import { RetryScheduler } from './retry-scheduler';
import type { SessionLock } from './session-lock';
import type { AssignmentBook } from '../actions/assignment';

export {
  ACTION_WAITS,
  TICKET_REREAD_MS,
  WAKES_REREAD_MS,
  type OperatorLog,
  type OperatorMonitor,
  type OperatorOptions,
} from './operator-core';
export { rowBasis } from './acts/wake';
export type {
  AbortAct,
  Acted,
  ActionOptions,
  ActionTarget,
  AnswerAct,
  DispatchAct,
  PermissionReply,
  RecoverAct,
  SendAct,
  WakeAct,
} from './requests';

export class Operator {
  private readonly core: OperatorCore;
  private readonly rooms: ActRooms;
  private readonly automatic: AutomaticRunner;
  private readonly off: () => void;
  private readonly offSeen: () => void;
  /** Settles once the persisted state was read (at once without a state file). */
  readonly restored: Promise<void>;

  constructor(o: OperatorOptions) {
    const core = (this.core = new OperatorCore(o));
    const authority = new OperatorAuthority(core);
    const prompts = new PromptSource(core, authority);
    const store = new OperatorStore(core, () => retries);
    const runner = new ActRunner(core, (outcome) => this.automatic.acted(outcome));
    const retries = new RetryScheduler(core, {
      recover: (row) => this.recover({ target: row, automatic: true }),
      verifyClaim: (key) => authority.verifyClaim(key),
      persist: () => store.persist(),
    });
    this.rooms = { core, runner, authority, prompts, retries, store };
    this.automatic = new AutomaticRunner(core, authority, runner, store, {
      abort: (row) => this.abort({ target: row, automatic: true }),
      wake: (row, abortFirst, speaks) => this.wake({ target: row, abortFirst, authority: speaks, automatic: true }),
      recover: (row) => this.recover({ target: row, automatic: true }),
    });
    this.off = o.monitor.onDidChange((change) => {
      // The completion reports of the rows: every row after a structural change, else the changed ones.
      const full = change.structural.length > 0 || change.rows.length === 0;
      core.reports.sync(
        full ? null : change.rows,
        () => o.monitor.rows(),
        (key) => o.monitor.row(key) !== undefined,
      );
      retries.fireDue();
      this.automatic.consider();
    });
    this.offSeen = core.reports.onDidMarkSeen(() => store.persist());
    this.restored = store.restore().then(() => {
      if (store.hasFile) this.automatic.consider();
    });
  }

  // ---- the books (read-only for hosts) ---------------------------------------------------------

  get book(): OperationBook {
    return this.core.book;
  }
  get lock(): SessionLock {
    return this.core.lock;
  }
  get reports(): ReportBook {
    return this.core.reports;
  }
  get retries(): ScheduledRetries {
    return this.rooms.retries.timers;
  }
  get policy(): AutomaticPolicy {
    return this.core.policy;
  }
  /** Per session, automatic wakes since its last completion report or a person's action (persisted). */
  get wakes(): WakeStreaks {
    return this.core.wakes;
  }
  /** The dispatches made, with the ticket each named (persisted; automatic.onlyTicketed reads them). */
  get dispatches(): DispatchRecords {
    return this.core.dispatches;
  }
  /** Who assigned each worker: the durable record every action reads (authority rules 1 and 2). */
  get assignments(): AssignmentBook {
    return this.core.assignments;
  }

  get settings(): OperatorSettings {
    return this.core.settings;
  }

  /** New settings apply to the next action; scheduled retries stay and read them when they fire. */
  updateSettings(settings: OperatorSettings): void {
    this.core.settings = settings;
  }

  /** Every finished action (clicked, automatic or a fired retry). */
  onDidAct(listener: (o: ActionOutcome) => void): () => void {
    return this.rooms.runner.onDidAct(listener);
  }

  /** An automatic action the policy just started. */
  onDidStartAutomatic(listener: (action: AutomaticAction, row: SessionRow) => void): () => void {
    return this.automatic.onDidStart(listener);
  }

  /** Whether an action runs on the session now (the lock is held, the book says running, or one is decided). */
  busy(rowKey: string): boolean {
    return this.rooms.runner.busy(rowKey);
  }

  // ---- the actions: one request type each ------------------------------------------------------

  abort(req: AbortAct): Promise<Acted<AbortResult>> {
    return abortAct(this.rooms, req);
  }

  wake(req: WakeAct): Promise<Acted<WakeResult>> {
    return wakeAct(this.rooms, req);
  }

  send(req: SendAct): Promise<Acted<WakeResult>> {
    return sendAct(this.rooms, req);
  }

  recover(req: RecoverAct): Promise<Acted<RecoverResult>> {
    return recoverAct(this.rooms, req);
  }

  dispatch(req: DispatchAct): Promise<Acted<DispatchResult>> {
    return dispatchAct(this.rooms, req);
  }

  answer(req: AnswerAct): Promise<Acted<AnswerResult>> {
    return answerAct(this.rooms, req);
  }

  /** Retries an outcome's prompt that did not go out (the same text, or recovery again). */
  retry(outcome: ActionOutcome): Promise<Acted<WakeResult | RecoverResult>> {
    return retryAct(this.rooms, outcome);
  }

  // ---- whom a prompt speaks for, and what it says ---------------------------------------------

  /** `holdsAuthority`: the person confirmed that the orchestrator the prompt speaks for holds the authority. */
  authority(row: SessionRow, holdsAuthority = false): Authority {
    return this.rooms.authority.of(row, holdsAuthority);
  }

  /**
   * `authority` with the worker's durable record read (its dispatch record, else its first user
   * message, read once): what a person confirms before a fact baseline or a dispatch (rule 1).
   * `shown`: the authority the host resolved already (not asked again).
   */
  recordedAuthority(row: SessionRow, holdsAuthority = false, shown?: Authority): Promise<Authority> {
    return this.rooms.authority.recorded(row, holdsAuthority, shown);
  }

  /** The prompt template a wake of this session sends: the quota-wall prompt after a wall, else the wake prompt. */
  wakeTemplate(row: SessionRow): PromptTemplate {
    return this.rooms.prompts.wakeTemplate(row);
  }

  /** The prompt of `template` for the session, on `nextModel`, with its worktree's inventory. */
  compose(
    row: SessionRow,
    template: PromptTemplate,
    nextModel: ModelRef | null,
    baseline?: FactBaselineFacts,
    holdsAuthority = false,
    assigned?: Assigner | null,
  ): Promise<Composed> {
    return this.rooms.prompts.compose(row, template, nextModel, { baseline, holdsAuthority, assigned });
  }

  /** The model a reviewed wake prompt would go out on (the core's choice for the session now). */
  chooseModel(row: SessionRow): Promise<ModelChoice> {
    return this.rooms.prompts.chooseModel(row);
  }

  providers(row: SessionRow): Promise<ProviderListing> {
    return this.rooms.prompts.providers(row);
  }

  // ---- automatic mode and scheduled retries ----------------------------------------------------

  /** Whether an automatic action is on (the monitor then samples even when nobody looks). */
  armed(): boolean {
    return this.automatic.armed();
  }

  /** Why automatic mode leaves the session alone, or null (what `status` shows as `automaticSkip`). */
  automaticSkip(row: SessionRow): OutOfCharge | null {
    return this.automatic.skip(row);
  }

  /** Asks the automatic policy about every row and runs what it decides, through the action methods. */
  considerAutomatic(): void {
    this.automatic.consider();
  }

  /**
   * Settles once no claim is being verified (authority rule 2: an automatic action starts only
   * after its verification, so after a monitor change it may start a moment later).
   */
  claimsSettled(): Promise<void> {
    return this.automatic.claims.settled();
  }

  /** Settles once no task's ticket is being read (automatic.onlyTicketed) and no claim verified. */
  chargeSettled(): Promise<void> {
    return this.automatic.chargeSettled();
  }

  /** Cancels the session's scheduled retry; whether one was pending. */
  cancelScheduled(rowKey: string, announce = true): boolean {
    return this.rooms.retries.cancel(rowKey, announce);
  }

  /** Settles once every change so far is in the state file. */
  flush(): Promise<void> {
    return this.rooms.store.flush();
  }

  dispose(): void {
    this.off();
    this.offSeen();
    this.rooms.retries.dispose();
  }
}
