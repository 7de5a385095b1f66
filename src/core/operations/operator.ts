/**
 * The operator: everything Session Ops does to a fleet, for any host (the editor, the CLI, the
 * `session-ops watch` daemon). A host constructs it with the session monitor, a logger and the
 * operator settings, and then either calls an action (abort, wake, send, recover, dispatch,
 * answer: what a click does) or lets the automatic policy act on the monitor's rows, which runs
 * the very same action methods. Every action
 * - holds the session's action lock (`SessionLock.withSessionLock`; a held lock gives outcome `busy`),
 * - records its progress and result in the operation book (what the row shows),
 * - returns its outcome as data (`ActionOutcome`: row text, log line, notice, a kept prompt),
 *   logs it once and announces it on `onDidAct`.
 * Scheduled retries (recovery after a reset within reach) live here with their timers; they read
 * the settings current when they fire. Nothing here imports an editor; the clock and timers are
 * injected (`timers`), as are whom prompts speak for (`authority`) and workspace trust (`trusted`).
 */
import {
  abortSession,
  backendInventory,
  type AbortOptions,
  type AbortResult,
  type DispatchRequest,
  type DispatchResult,
  type RecoverRequest,
  type RecoverResult,
  chooseModel,
  dispatchTask,
  recoverSession,
  RECOVERY_SPACING_MS,
  resolveAuthority,
  takeInventory,
  wakeSession,
  type ActionContext,
  type Authority,
  type Clock,
  type PromptTemplate,
  type Composed,
  type FactBaselineFacts,
  type ModelChoice,
  type PromptFacts,
  type WakeRequest,
  type WakeResult,
  type WorktreeInventory,
} from '../actions';
import { answerRequest } from '../actions/answer';
import { gitInventory } from '../actions/git-inventory';
import type { DecisionBasis } from '../actions/reverify';
import type { BackendClient } from '../backend/client';
import { MIN_SPACING_MS } from '../health/verdict';
import {
  automaticSwitches,
  chargeSettings,
  monitorSettings,
  type OperatorSettings,
} from '../settings/operator-settings';
import type { ModelRef, ProviderListing } from '../model';
import { localTime } from '../monitor/present';
import type { SessionRow } from '../monitor/row';
import type { MonitorChange } from '../monitor/sessionMonitor';
import { describeError } from '../error-message';
import { AutomaticPolicy, type AutomaticAction } from './automatic';
import {
  DispatchRecords,
  isWakeAction,
  outOfCharge,
  ticketReference,
  wakeKey,
  wakeKeyOfRow,
  WakeStreaks,
  type OutOfCharge,
} from './charge';
import { OperationBook, type OperatorAction } from './book';
import { logLine, outcomeOf, type ActionOutcome, type PromptOrigin, type RetryOf } from './outcome';
import { abortOutcome, dispatchOutcome, recoverOutcome, wakeOutcome, type OutcomeBase } from './outcomes';
import { ReportBook } from './reports';
import { ScheduledRetries } from './retries';
import type { SessionLocker } from './lock';
import { InProcessSessionLock, type SessionLock } from './session-lock';
import type { JsonStateFile } from './state-store';
import type { OperatorState, PersistedRetry } from './state-store-operator';
import { composeForRow } from './row-prompt';
import { readAssigner, sourceText, type Assigner, type AssignmentBook } from '../actions/assignment';
import { assignedBy } from '../actions/authority';
import { assignmentBook } from './assignments';
import { ClaimCheck } from './claim';
import { abortRefusal } from './targets';
import { systemTimers, type Timers } from '../timing';

/** What the operator reads of the session monitor. */
export interface OperatorMonitor {
  rows(): readonly SessionRow[];
  row(key: string): SessionRow | undefined;
  client(backendKey: string): Promise<BackendClient>;
  nudge(backendKey: string, directory: string): void;
  /** The smallest sample spacing the monitor accepts (only tests lower it below the spec's 30 s). */
  minSpacingMs(): number;
  onDidChange(listener: (change: MonitorChange) => void): () => void;
}

export type OperatorLog = (level: 'info' | 'warn' | 'error', message: string) => void;

/** How long automatic.onlyTicketed trusts a session's ticket as read before reading its record again. */
export const TICKET_REREAD_MS = 10 * 60_000;

/** How often automatic mode re-reads the state file for a person's reset of a stuck session (another process's). */
export const WAKES_REREAD_MS = 30_000;

/** Bounds of an action's waits: reading idle after an abort, and confirming a sent prompt started. */
export const ACTION_WAITS = { abortMs: 60_000, confirmMs: 60_000 };

export interface OperatorOptions {
  monitor: OperatorMonitor;
  /** The operator settings (src/core/settings), as the host read them. */
  settings: OperatorSettings;
  log: OperatorLog;
  book?: OperationBook;
  lock?: SessionLock;
  reports?: ReportBook;
  timers?: Timers;
  /** The clock of the actions' own waits (polling for idle, confirming); default the system's. */
  actionClock?: Clock;
  /** Whom a session's prompts speak for and its ticket (the editor keeps them per workspace). */
  authority?: (row: SessionRow) => { orchestrator: string | null; ticket: string | null };
  /** Whether automatic actions may run (the editor: the workspace is trusted). Default yes. */
  trusted?: () => boolean;
  /** Where the worktree inventory of a wake prompt comes from; default the backend, then git. */
  inventory?: (client: BackendClient) => WorktreeInventory[];
  waits?: { abortMs: number; confirmMs: number };
  /**
   * Where scheduled retries, automatic mode's memory and seen reports persist (the state
   * directory's operator-state.json); absent: this process only.
   */
  state?: JsonStateFile<OperatorState> | null;
  /** The machine-wide per-session lock held around each POST; default that of the state directory (SESSION_OPS_STATE_DIR ...). */
  postLocker?: SessionLocker;
  /**
   * Who assigned each worker (authority rules 1 and 2); default the record in `state` (this
   * process's memory without one).
   */
  assignments?: AssignmentBook;
  /**
   * Set by a host that must name its orchestrator (the daemon: where to set it, e.g. "orchestrator:
   * in the watch config"): without one its automatic actions are refused, and it acts only on
   * workers whose durable record names that orchestrator (authority rule 2).
   */
  requireOrchestrator?: string;
  /**
   * Whether a recovery that ends in wait-for-reset arms a scheduled retry (default yes). A one-shot
   * host (the CLI, whose caller retries after exit 4) says no: its process would not live to fire it.
   */
  armRetries?: boolean;
}

/** The session an action is for: a monitor row, or a session a host names by id (the CLI). */
export type ActionTarget = Pick<SessionRow, 'key' | 'backendKey' | 'directory' | 'id' | 'title'>;

/** An action's outcome with the core action's own result (null when the action did not start: `busy`). */
export interface Acted<R> {
  outcome: ActionOutcome;
  result: R | null;
}

export type PermissionReply = 'once' | 'always' | 'reject';

export interface ActionOptions {
  /** Started by the automatic policy or a scheduled retry, not by a person. */
  automatic?: boolean;
}

export class Operator {
  readonly book: OperationBook;
  readonly lock: SessionLock;
  readonly reports: ReportBook;
  readonly retries: ScheduledRetries;
  readonly policy: AutomaticPolicy;
  /** Per session, automatic wakes since its last completion report or a person's action (persisted). */
  readonly wakes: WakeStreaks;
  /** The dispatches made, with the ticket each named (persisted; automatic.onlyTicketed reads them). */
  readonly dispatches: DispatchRecords;
  /**
   * Per session (row key), the ticket its recorded assignment names, as last read for
   * automatic.onlyTicketed (src/core/actions/assignment.ts: the dispatch record, else its first
   * user message), and when; sessions being read.
   */
  private readonly taskTickets = new Map<string, { ticket: string | null; at: number }>();
  private readonly readingTickets = new Map<string, Promise<void>>();
  /** Per session, the reason automatic mode last left it alone (logged when it changes). */
  private readonly leftAlone = new Map<string, string>();
  private currentSettings: OperatorSettings;
  private readonly timers: Timers;
  private readonly actListeners = new Set<(o: ActionOutcome) => void>();
  private readonly automaticListeners = new Set<(action: AutomaticAction, row: SessionRow) => void>();
  private readonly off: () => void;
  /** Sessions automatic mode leaves alone because another orchestrator assigned them (logged once). */
  private readonly notMine = new Set<string>();
  /** Each retry's last change (scheduled, cancelled, done), as persisted. */
  private readonly retryChanges = new Map<string, PersistedRetry>();
  /** Retries that came due before the monitor listed their session (after a restart). */
  private readonly dueRetries = new Set<string>();
  private saving: Promise<void> = Promise.resolve();
  private restoredState = false;
  private readonly offSeen: () => void;
  /** Settles once the persisted state was read (at once without a state file). */
  readonly restored: Promise<void>;
  /** Who assigned each worker: the durable record every action reads (authority rules 1 and 2). */
  readonly assignments: AssignmentBook;
  private readonly claims: ClaimCheck;

  constructor(private readonly o: OperatorOptions) {
    this.timers = o.timers ?? systemTimers;
    this.book = o.book ?? new OperationBook(() => this.timers.now());
    this.lock = o.lock ?? new InProcessSessionLock();
    this.reports = o.reports ?? new ReportBook();
    this.retries = new ScheduledRetries(this.timers);
    this.policy = new AutomaticPolicy(() => this.timers.now());
    this.wakes = new WakeStreaks(() => this.timers.now());
    this.dispatches = new DispatchRecords(() => this.timers.now());
    this.currentSettings = o.settings;
    this.assignments = o.assignments ?? assignmentBook(o.state);
    this.claims = new ClaimCheck(
      (key) => this.verifyClaim(key),
      () => this.timers.now(),
      () => this.considerAutomatic(),
    );
    this.off = o.monitor.onDidChange(() => {
      this.fireDue();
      this.considerAutomatic();
    });
    this.offSeen = this.reports.onDidMarkSeen(() => this.persist());
    this.restored = this.restore();
  }

  get settings(): OperatorSettings {
    return this.currentSettings;
  }

  /** New settings apply to the next action; scheduled retries stay and read them when they fire. */
  updateSettings(settings: OperatorSettings): void {
    this.currentSettings = settings;
  }

  /** Every finished action (clicked, automatic or a fired retry). */
  onDidAct(listener: (o: ActionOutcome) => void): () => void {
    this.actListeners.add(listener);
    return () => this.actListeners.delete(listener);
  }

  /** An automatic action the policy just started. */
  onDidStartAutomatic(listener: (action: AutomaticAction, row: SessionRow) => void): () => void {
    this.automaticListeners.add(listener);
    return () => this.automaticListeners.delete(listener);
  }

  /** Whether an action runs on the session now (the lock is held or the book says running). */
  busy(rowKey: string): boolean {
    return this.lock.held(rowKey) || this.book.busy(rowKey) || this.automaticInFlight.has(rowKey);
  }

  /**
   * Sessions with an automatic action decided and not yet under its lock: busy from the decision on,
   * so a round (or a claim verified meanwhile) that asks the policy again before the action holds
   * its lock never starts a second one on the same session.
   */
  private readonly automaticInFlight = new Map<string, symbol>();

  // ---- whom a prompt speaks for, and what it says ---------------------------------------------

  /** `holdsAuthority`: the person confirmed that the orchestrator the prompt speaks for holds the authority. */
  authority(row: SessionRow, holdsAuthority = false): Authority {
    const given = this.o.authority?.(row) ?? { orchestrator: null, ticket: null };
    return resolveAuthority({
      orchestrator: given.orchestrator,
      ticket: given.ticket,
      sessionTitle: row.title,
      newestUserText: row.evidence.latest.newestRole === 'user' ? row.newestText : null,
      holdsAuthority,
    });
  }

  /**
   * `authority` with the worker's durable record read (its dispatch record, else its first user
   * message, read once): what a person confirms before a fact baseline or a dispatch (rule 1).
   */
  async recordedAuthority(row: SessionRow, holdsAuthority = false): Promise<Authority> {
    const client = await this.o.monitor.client(row.backendKey);
    const assigner = await readAssigner(
      { backend: client, directory: row.directory, clock: this.o.actionClock, assignments: this.assignments },
      row.id,
    );
    return assignedBy(this.authority(row, holdsAuthority), null, assigner);
  }

  /**
   * Authority rule 2: why the session is not in this operator's charge (null: verified), read from
   * the durable record now.
   */
  private async verifyClaim(key: string): Promise<string | null> {
    const row = this.o.monitor.row(key);
    if (!row) return 'no longer listed';
    const speaks = this.o.authority?.(row).orchestrator ?? null;
    const required = this.o.requireOrchestrator;
    if (!speaks && required)
      return `no orchestrator session is configured (${required}): no automatic action is taken, since every prompt names the orchestrator its reports go to`;
    const client = await this.o.monitor.client(row.backendKey);
    const assigner = await readAssigner(
      { backend: client, directory: row.directory, clock: this.o.actionClock, assignments: this.assignments },
      row.id,
    );
    const here = speaks ?? 'none set here';
    if (assigner.orchestrator && assigner.orchestrator !== speaks)
      return `authority rule 2: ${sourceText(assigner.source)} names orchestrator ${assigner.orchestrator}, not the one this operator speaks for (${here})`;
    if (!assigner.orchestrator && required)
      return assigner.source === 'unread'
        ? `authority rule 2: its orchestrator could not be verified: ${assigner.detail}`
        : `authority rule 2: ${sourceText(assigner.source)} names no orchestrator, so it cannot be verified as ${here}'s`;
    return null;
  }

  /** The prompt template a wake of this session sends: the quota-wall prompt after a wall, else the wake prompt. */
  wakeTemplate(row: SessionRow): PromptTemplate {
    return row.quotaWall ? 'quota-wake' : 'wake';
  }

  /** The prompt of `template` for the session, on `nextModel`, with its worktree's inventory. */
  async compose(
    row: SessionRow,
    template: PromptTemplate,
    nextModel: ModelRef | null,
    baseline?: FactBaselineFacts,
    holdsAuthority = false,
    assigned?: Assigner | null,
  ): Promise<Composed> {
    const client = await this.o.monitor.client(row.backendKey);
    const sources = this.o.inventory?.(client) ?? [backendInventory(client), gitInventory()];
    const inventory = await takeInventory(sources, { directory: row.directory });
    // Who assigned the worker (its durable record): compared (rule 1), and where reports go when no orchestrator is set here.
    const recorded =
      assigned === undefined
        ? await readAssigner(
            { backend: client, directory: row.directory, clock: this.o.actionClock, assignments: this.assignments },
            row.id,
          )
        : assigned;
    return composeForRow(row, template, {
      now: this.timers.now(),
      authority: assignedBy(this.authority(row, holdsAuthority), null, recorded),
      inventory,
      nextModel,
      baseline: baseline ?? null,
    });
  }

  /** The model a reviewed wake prompt would go out on (the core's choice for the session now). */
  async chooseModel(row: SessionRow): Promise<ModelChoice> {
    const client = await this.o.monitor.client(row.backendKey);
    const [listing, newest] = await Promise.all([
      client.listProviders(row.directory),
      client.newestMessage(row.directory, row.id),
    ]);
    const last =
      newest?.providerID && newest.modelID ? { providerID: newest.providerID, modelID: newest.modelID } : null;
    return chooseModel({
      requested: null,
      last,
      listing,
      wallProvider: row.quotaWall?.provider ?? null,
      providers: [...this.settings['recovery.providers']],
    });
  }

  async providers(row: SessionRow): Promise<ProviderListing> {
    return (await this.o.monitor.client(row.backendKey)).listProviders(row.directory);
  }

  // ---- actions --------------------------------------------------------------------------------

  async abort(row: SessionRow, options: ActionOptions = {}): Promise<ActionOutcome> {
    return (await this.abortTarget(row, { waitMs: this.waits.abortMs }, options)).outcome;
  }

  /** Abort with the host's own bounds (the CLI's --wait): the path of `abort`. */
  abortTarget(target: ActionTarget, abort: AbortOptions, options: ActionOptions = {}): Promise<Acted<AbortResult>> {
    return this.actFor(
      target,
      'abort',
      'aborting',
      options,
      (ctx) => abortSession(ctx, target.id, abort),
      abortOutcome,
    );
  }

  /** Wake (or abort and wake): the prompt the state calls for, on the model the core chooses, then confirm. */
  async wake(row: SessionRow, options: ActionOptions & { abortFirst?: boolean } = {}): Promise<ActionOutcome> {
    const abortFirst = options.abortFirst ?? false;
    const refusal = abortFirst ? abortRefusal(row) : null;
    if (refusal) throw new Error(refusal);
    const template = this.wakeTemplate(row);
    const request = {
      prompt: (facts: PromptFacts) => this.compose(row, template, facts.model, undefined, false, facts.assigned),
      providers: [...this.settings['recovery.providers']],
      abortFirst,
      abort: { waitMs: this.waits.abortMs },
      confirm: { withinMs: this.waits.confirmMs },
      // An automatic wake acts on the row's samples: refused as stale when the session moved since.
      basis: options.automatic ? rowBasis(row) : null,
    };
    return (await this.wakeTarget(row, request, template, options)).outcome;
  }

  /**
   * Wake with a request the host built whole (the CLI: its prompt file or composed prompt, model,
   * agent, providers and waits): the path of `wake`, through the same guard and confirmation.
   */
  wakeTarget(
    target: ActionTarget,
    request: Omit<WakeRequest, 'sessionId'>,
    promptOrigin: PromptOrigin,
    options: ActionOptions = {},
  ): Promise<Acted<WakeResult>> {
    const abortFirst = request.abortFirst ?? false;
    return this.wakeWith(target, options, 'waking', request, (base, result) =>
      wakeOutcome(base, result, promptOrigin, {
        via: 'send',
        text: result.prompt ?? '',
        model: result.model,
        abortFirst: abortFirst && !result.aborted,
        promptOrigin: 'custom',
      }),
    );
  }

  /** Sends a given text (a reviewed or retried prompt) with a given model, through the same guard. */
  async send(
    row: SessionRow,
    text: string,
    model: ModelRef | null,
    options: ActionOptions & { abortFirst?: boolean; promptOrigin?: PromptOrigin; holdsAuthority?: boolean } = {},
  ): Promise<ActionOutcome> {
    const abortFirst = options.abortFirst ?? false;
    const promptOrigin = options.promptOrigin ?? 'custom';
    const holdsAuthority = options.holdsAuthority ?? false;
    const request = {
      prompt: text,
      model,
      authority: { ...this.o.authority?.(row), holdsAuthority },
      factBaseline: promptOrigin === 'fact-baseline',
      abortFirst,
      abort: { waitMs: this.waits.abortMs },
      confirm: { withinMs: this.waits.confirmMs },
    };
    const acted = await this.wakeWith(row, options, 'sending', request, (base, result) =>
      wakeOutcome(base, result, promptOrigin, {
        via: 'send',
        text,
        model,
        abortFirst,
        promptOrigin,
        ...(holdsAuthority ? { holdsAuthority } : {}),
      }),
    );
    return acted.outcome;
  }

  /** The one wake path of `wake`, `send` and `wakeTarget`: optional abort first, the send guard, confirm. */
  private wakeWith(
    target: ActionTarget,
    options: ActionOptions,
    verb: 'waking' | 'sending',
    request: Omit<WakeRequest, 'sessionId'>,
    outcome: (base: OutcomeBase, result: WakeResult) => ActionOutcome,
  ): Promise<Acted<WakeResult>> {
    const abortFirst = request.abortFirst ?? false;
    const action = abortFirst ? 'abort-and-wake' : 'wake';
    const running = abortFirst ? `aborting, then ${verb}` : verb;
    return this.actFor(
      target,
      action,
      running,
      options,
      (ctx) => wakeSession(ctx, { sessionId: target.id, ...request }),
      outcome,
    );
  }

  /** Recover on another provider (spec: recovery procedure after a quota wall). */
  async recover(row: SessionRow, options: ActionOptions = {}): Promise<ActionOutcome> {
    const minSpacingMs = this.o.monitor.minSpacingMs();
    const spacingMs = minSpacingMs < MIN_SPACING_MS ? minSpacingMs : monitorSettings(this.settings).spacingMs;
    const request = {
      prompt: (facts: PromptFacts) => this.compose(row, 'quota-wake', facts.model),
      providers: [...this.settings['recovery.providers']],
      spacingMs,
      minSpacingMs,
      resetWithinReachMs: monitorSettings(this.settings).resetWithinReachMs,
      abort: { waitMs: this.waits.abortMs },
      confirm: { withinMs: this.waits.confirmMs },
    };
    return (await this.recoverTarget(row, request, options)).outcome;
  }

  /**
   * Recover with a request the host built whole (the CLI: its prompt, spacing, model, providers and
   * waits): the path of `recover`. A pending scheduled retry of the session is cancelled first.
   */
  recoverTarget(
    target: ActionTarget,
    request: Omit<RecoverRequest, 'sessionId'>,
    options: ActionOptions = {},
  ): Promise<Acted<RecoverResult>> {
    this.cancelScheduled(target.key, false);
    const spacing = `${(request.spacingMs ?? RECOVERY_SPACING_MS) / 1000} s`;
    return this.actFor(
      target,
      'recover',
      `recovering: two samples ${spacing} apart`,
      options,
      (ctx) => recoverSession(ctx, { sessionId: target.id, ...request }),
      (base, result) => recoverOutcome(base, result, this.timers.now(), (at) => this.schedule(target, at)),
    );
  }

  /**
   * Dispatch a task (the pre-dispatch check runs first; the completion-report block is appended).
   * `effort`: a route's effort (dispatch by route), sent as the model's variant where the backend takes one.
   */
  async dispatch(
    row: SessionRow,
    task: string,
    model: ModelRef,
    options: { holdsAuthority?: boolean; effort?: string | null } = {},
  ): Promise<ActionOutcome> {
    const authority = this.authority(row, options.holdsAuthority ?? false);
    return (await this.dispatchTarget(row, { task, model, authority, effort: options.effort ?? null })).outcome;
  }

  /** Dispatch with a request the host built whole (the CLI: its authority, agent, --fallback): the path of `dispatch`. */
  dispatchTarget(target: ActionTarget, request: Omit<DispatchRequest, 'sessionId'>): Promise<Acted<DispatchResult>> {
    return this.actFor(
      target,
      'dispatch',
      'dispatching',
      {},
      (ctx) => dispatchTask(ctx, { sessionId: target.id, ...request }),
      (base, result) => {
        // The task the session now works on names the ticket of its completion-report block (or none).
        if (result.sent) {
          this.dispatches.note(target.key, request.authority.ticket);
          this.persist();
        }
        return dispatchOutcome(base, result, result.insteadModel);
      },
    );
  }

  /** Answers a pending permission of a session waiting for a person. */
  async answerPermission(row: SessionRow, reply: PermissionReply): Promise<ActionOutcome> {
    const waiting = waitingFor(row, 'permission');
    const said = reply === 'once' ? 'allowed once' : reply === 'always' ? 'allowed always' : 'rejected';
    return this.answer(row, `permission ${waiting.requestID} of ${row.id}: ${said}`, `${waiting.title}: ${said}`, (c) =>
      c.replyPermission(row.directory, waiting.requestID, reply),
    );
  }

  /** Answers a pending question: one list of chosen labels (or typed answers) per question. */
  async answerQuestion(row: SessionRow, answers: string[][]): Promise<ActionOutcome> {
    const waiting = waitingFor(row, 'question');
    return this.answer(
      row,
      `question ${waiting.requestID} of ${row.id} answered`,
      `answered: ${answers.map((a) => a.join(', ')).join('; ')}`,
      (c) => c.replyQuestion(row.directory, waiting.requestID, answers),
    );
  }

  /** Retries an outcome's prompt that did not go out (the same text, or recovery again). */
  async retry(outcome: ActionOutcome): Promise<ActionOutcome> {
    const row = this.o.monitor.row(outcome.rowKey);
    const retry: RetryOf | undefined = outcome.undelivered?.retry;
    if (!row) throw new Error(`session ${outcome.sessionId} is no longer listed`);
    if (!retry) throw new Error('nothing to retry');
    if (retry.via === 'recover') return this.recover(row);
    // The same text to the same worker: a confirmation of the authority given for it is carried.
    return this.send(row, retry.text, retry.model, {
      abortFirst: retry.abortFirst,
      promptOrigin: retry.promptOrigin,
      holdsAuthority: retry.holdsAuthority === true,
    });
  }

  // ---- scheduled retries -----------------------------------------------------------------------

  /** Retries recovery once after the reset; gives the row text. */
  private schedule(row: ActionTarget, at: number): string {
    if (this.o.armRetries === false) return `wait for the reset: retry after ${localTime(at)}`;
    this.retries.schedule(row.key, at, () => this.fireRetry(row.key, row.id));
    this.noteRetry(row.key, row.id, at, 'scheduled');
    this.o.log('info', `recovery of ${row.id} scheduled for ${new Date(at).toISOString()}`);
    return `retry scheduled ${localTime(at)}`;
  }

  /**
   * A scheduled retry fired: recover the session as it reads now (two fresh samples, a provider
   * acceptable now, the session re-read before the POST), if its wall is still there or not yet
   * judged. A session the monitor does not list yet (after a restart) is recovered once it does.
   */
  private fireRetry(key: string, sessionId: string): void {
    this.book.clear(key);
    const current = this.o.monitor.row(key);
    if (!current) {
      this.dueRetries.add(key);
      return;
    }
    this.dueRetries.delete(key);
    const entry = this.retryChanges.get(key);
    this.noteRetry(key, sessionId, entry?.at ?? this.timers.now(), 'done');
    if (current.quotaWall || current.verdict === null)
      // Authority rule 2: a retry kept across a restart instructs the worker only once verified.
      this.verifyClaim(key)
        .then((notMine) => {
          if (!notMine) return this.recover(current, { automatic: true });
          this.o.log('warn', `scheduled recovery of ${sessionId} not taken: ${notMine}`);
          return undefined;
        })
        .catch((err) => this.o.log('error', `scheduled recovery of ${sessionId}: ${describeError(err)}`));
    else this.o.log('info', `scheduled recovery of ${sessionId} not needed: it is no longer at a quota wall`);
  }

  private fireDue(): void {
    for (const key of [...this.dueRetries]) {
      const entry = this.retryChanges.get(key);
      if (this.o.monitor.row(key)) this.fireRetry(key, entry?.sessionId ?? key);
    }
  }

  private noteRetry(key: string, sessionId: string, at: number, state: PersistedRetry['state']): void {
    this.retryChanges.set(key, { key, sessionId, at, state, changedAt: this.timers.now() });
    this.persist();
  }

  /** Reads the persisted state: automatic memory and seen reports added, scheduled retries scheduled again. */
  private async restore(): Promise<void> {
    const file = this.o.state;
    if (file) {
      const { state, warning } = await file.load();
      if (warning) this.o.log('warn', `operator state: ${warning}`);
      this.policy.remember(state);
      this.wakes.remember(state.wakes);
      this.dispatches.remember(state.dispatched);
      this.reports.rememberSeen(state.seen);
      for (const r of Object.values(state.retries)) {
        const have = this.retryChanges.get(r.key);
        if (have && have.changedAt >= r.changedAt) continue;
        this.retryChanges.set(r.key, r);
        if (r.state !== 'scheduled' || this.retries.get(r.key)) continue;
        this.retries.schedule(r.key, r.at, () => this.fireRetry(r.key, r.sessionId));
        this.book.finish(r.key, 'scheduled', `retry scheduled ${localTime(r.at)}`, {
          action: 'scheduled-retry',
          at: r.at,
        });
        this.o.log(
          'info',
          `recovery of ${r.sessionId} scheduled for ${new Date(r.at).toISOString()} (kept across a restart)`,
        );
      }
    }
    this.restoredState = true;
    if (file) this.considerAutomatic();
  }

  /** Merges this operator's plans and memory into the state file (writes one after another). */
  private persist(): void {
    const file = this.o.state;
    if (!file) return;
    const snapshot: OperatorState = {
      version: 1,
      retries: Object.fromEntries(this.retryChanges),
      ...this.policy.memory(),
      seen: this.reports.seenEntries(),
      wakes: this.wakes.memory(),
      dispatched: this.dispatches.memory(),
      assignments: {},
    };
    this.saving = this.saving.then(async () => {
      const r = await file.save(snapshot);
      if (r.warning) this.o.log('warn', `operator state: ${r.warning}`);
    });
  }

  /** Settles once every change so far is in the state file. */
  flush(): Promise<void> {
    return this.saving;
  }

  /** Cancels the session's scheduled retry; whether one was pending. */
  cancelScheduled(rowKey: string, announce = true): boolean {
    const had = this.retries.cancel(rowKey);
    this.dueRetries.delete(rowKey);
    const entry = this.retryChanges.get(rowKey);
    if (had && entry) this.noteRetry(rowKey, entry.sessionId, entry.at, 'cancelled');
    if (!this.book.scheduled(rowKey)) return had;
    this.book.finish(rowKey, 'cancelled', 'scheduled retry cancelled');
    if (announce) this.o.log('info', `scheduled recovery of ${rowKey} cancelled`);
    return true;
  }

  // ---- automatic mode --------------------------------------------------------------------------

  /** Whether an automatic action is on (the monitor then samples even when nobody looks). */
  armed(): boolean {
    return AutomaticPolicy.armed(automaticSwitches(this.settings));
  }

  /**
   * Why automatic mode leaves the session alone (src/core/operations/charge.ts), or null: in its
   * charge, or automatic mode is off. What the row, its tooltip and `status` show as `automaticSkip`.
   */
  automaticSkip(row: SessionRow): OutOfCharge | null {
    if (!this.armed()) return null;
    return this.chargeSkip(row) ?? this.authoritySkip(row);
  }

  /**
   * Authority rules 1 and 2 on the row: its newest assignment names another orchestrator, or the
   * last verification of its claim from the durable record (made when automatic mode was about to
   * act; none is started here) found it is not this operator's worker.
   */
  private authoritySkip(row: SessionRow): OutOfCharge | null {
    const authority = this.authority(row);
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
    return outOfCharge(row, chargeSettings(this.settings), {
      now: this.timers.now(),
      wakes: this.wakes.count(wakeKey(row.directory, row.id)),
      ticket: this.dispatches.ticket(row.key) ?? this.taskTickets.get(row.key)?.ticket ?? null,
    });
  }

  /**
   * Settles once no claim is being verified (authority rule 2: an automatic action starts only
   * after its verification, so after a monitor change it may start a moment later).
   */
  claimsSettled(): Promise<void> {
    return this.claims.settled();
  }

  /** Asks the automatic policy about every row and runs what it decides, through the action methods. */
  considerAutomatic(): void {
    this.resetReported();
    const settings = automaticSwitches(this.settings);
    if (!AutomaticPolicy.armed(settings) || !this.restoredState) return;
    const trusted = this.o.trusted?.() ?? true;
    const rows = this.o.monitor.rows();
    if (this.leftAlone.size > rows.length) this.leftAlone.clear();
    for (const row of rows) {
      const busy = this.busy(row.key) || this.book.scheduled(row.key) || this.claims.verifying(row.key);
      const action = this.policy.decide(row, settings, { trusted, busy });
      if (!action) continue;
      // Only sessions in its charge (a stuck session may still be aborted over budget: that is no wake).
      const skip = this.chargeSkip(row);
      // Its task's ticket is read from the durable record first (outside this round; asked again then).
      if (skip?.reason === 'not-ticketed' && this.readTaskTicket(row)) continue;
      if (skip && !(skip.reason === 'stuck' && action === 'abort')) {
        if (this.leftAlone.get(row.key) !== skip.reason) {
          this.leftAlone.set(row.key, skip.reason);
          this.o.log(
            skip.reason === 'stuck' ? 'warn' : 'info',
            `automatic ${action} on ${row.id} not taken: ${skip.text}`,
          );
        }
        continue;
      }
      this.leftAlone.delete(row.key);
      // Authority rule 1: a worker whose assignment names another orchestrator is that one's to instruct.
      const authority = this.authority(row);
      if (authority.mismatch) {
        if (!this.notMine.has(row.key)) {
          this.notMine.add(row.key);
          const here = authority.orchestrator ?? 'the one configured here (none)';
          this.o.log(
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
          this.o.log('warn', `automatic ${action} on ${row.id} not taken: ${claim.notMine}`);
        }
        continue;
      }
      this.claims.consume(row.key);
      this.notMine.delete(row.key);
      this.policy.record(row);
      this.persist();
      const overBudget = action === 'abort' ? `, over budget (${row.cost ? row.cost.usd : '?'} USD)` : '';
      this.o.log(
        'info',
        `automatic ${action} on ${row.id} (${row.directory}): verdict ${row.verdict}, action ${row.action}${overBudget}`,
      );
      for (const l of this.automaticListeners) l(action, row);
      const token = Symbol(action);
      this.automaticInFlight.set(row.key, token);
      const run =
        action === 'recover'
          ? this.recover(row, { automatic: true })
          : action === 'abort'
            ? this.abort(row, { automatic: true })
            : this.wake(row, { abortFirst: action === 'abort-and-wake', automatic: true });
      run
        .catch((err) => this.o.log('error', `automatic ${action} on ${row.id}: ${describeError(err)}`))
        .finally(() => {
          if (this.automaticInFlight.get(row.key) === token) this.automaticInFlight.delete(row.key);
        });
    }
  }

  // ---- the one path of every action ------------------------------------------------------------

  private get waits(): { abortMs: number; confirmMs: number } {
    return this.o.waits ?? ACTION_WAITS;
  }

  private base(row: ActionTarget, action: OperatorAction, automatic: boolean): OutcomeBase {
    return { action, rowKey: row.key, sessionId: row.id, label: label(row), automatic };
  }

  /** Holds the lock, records the start, runs, records and logs the outcome, then samples the session again. */
  private async act(
    row: ActionTarget,
    action: OperatorAction,
    runningText: string,
    options: ActionOptions,
    run: (ctx: ActionContext, base: OutcomeBase) => Promise<ActionOutcome>,
  ): Promise<ActionOutcome> {
    const base = this.base(row, action, options.automatic ?? false);
    try {
      const locked = await this.lock.withSessionLock(row.key, { purpose: action }, async () => {
        this.book.start(row.key, action, runningText);
        this.automaticInFlight.delete(row.key); // from here the lock and the book say busy
        try {
          const client = await this.o.monitor.client(row.backendKey);
          const ctx: ActionContext = {
            backend: client,
            directory: row.directory,
            clock: this.o.actionClock,
            locker: this.o.postLocker,
            maxPromptBytes: monitorSettings(this.settings).maxPromptBytes,
            assignments: this.assignments,
          };
          return await run(ctx, base);
        } catch (err) {
          this.book.finish(row.key, 'failed', `failed: ${describeError(err)}`);
          throw err;
        }
      });
      const outcome = locked.acquired
        ? locked.value
        : outcomeOf(base, {
            outcome: 'busy',
            rowText: '',
            message: `not started: ${locked.reason}`,
            notice: { level: 'info', text: `an action is already running on "${base.label}".` },
          });
      this.finish(outcome);
      return outcome;
    } finally {
      this.o.monitor.nudge(row.backendKey, row.directory);
    }
  }

  /** `act` for a core action whose result the host also reads: the outcome and the result. */
  private async actFor<R>(
    target: ActionTarget,
    action: OperatorAction,
    runningText: string,
    options: ActionOptions,
    run: (ctx: ActionContext) => Promise<R>,
    outcome: (base: OutcomeBase, result: R) => ActionOutcome,
  ): Promise<Acted<R>> {
    const seen: { result: R | null } = { result: null };
    const acted = await this.act(target, action, runningText, options, async (ctx, base) => {
      seen.result = await run(ctx);
      return outcome(base, seen.result);
    });
    return { outcome: acted, result: seen.result };
  }

  private async answer(
    row: SessionRow,
    logText: string,
    rowText: string,
    send: (client: BackendClient) => Promise<unknown>,
  ): Promise<ActionOutcome> {
    return this.act(row, 'answer', 'answering', {}, async (ctx, base) => {
      const client = await this.o.monitor.client(row.backendKey);
      const result = await answerRequest(ctx, {
        sessionId: row.id,
        requestID: requestID(row),
        send: () => send(client),
      });
      if (result.outcome === 'answered') return outcomeOf(base, { outcome: 'answered', rowText, message: logText });
      const refused = result.outcome === 'refused';
      return outcomeOf(base, {
        outcome: refused ? 'refused' : 'failed',
        rowText: refused ? `refused: ${result.refusal.reason}` : result.message,
        message: result.message,
        notice: { level: refused ? 'warning' : 'error', text: result.message },
      });
    });
  }

  /**
   * Reads the ticket the session's recorded assignment names (at most every TICKET_REREAD_MS), for
   * automatic.onlyTicketed: a dispatch or fact baseline's ticket, or a ticket reference in its first
   * user message (read once, remembered in the state file). Whether a read is under way.
   */
  private readTaskTicket(row: SessionRow): boolean {
    if (this.readingTickets.has(row.key)) return true;
    const known = this.taskTickets.get(row.key);
    if (known && this.timers.now() - known.at < TICKET_REREAD_MS) return false;
    if (this.taskTickets.size > 2 * this.o.monitor.rows().length) this.taskTickets.clear();
    const read = async () => {
      const client = await this.o.monitor.client(row.backendKey);
      const assigner = await readAssigner(
        { backend: client, directory: row.directory, clock: this.o.actionClock, assignments: this.assignments },
        row.id,
      );
      if (assigner.source === 'unread') return null;
      return assigner.source === 'first-message' ? ticketReference(assigner.ticket) : assigner.ticket;
    };
    const done = read()
      .catch(() => null)
      .then((ticket) => {
        this.taskTickets.set(row.key, { ticket, at: this.timers.now() });
        this.readingTickets.delete(row.key);
        this.considerAutomatic();
      })
      .catch((err) => this.o.log('error', `reading the ticket of ${row.id}: ${describeError(err)}`));
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
    if (!this.wakes.counting) return;
    let changed = false;
    for (const row of this.o.monitor.rows())
      if (row.report && this.wakes.reset(wakeKey(row.directory, row.id))) changed = true;
    if (changed) this.persist();
    this.rereadWakes();
  }

  private wakesReadAt = 0;
  private wakesReading = false;

  private rereadWakes(): void {
    const file = this.o.state;
    const now = this.timers.now();
    if (!file || this.wakesReading || now - this.wakesReadAt < WAKES_REREAD_MS) return;
    if (!this.wakes.anyAtLeast(chargeSettings(this.settings).maxConsecutiveWakes)) return;
    this.wakesReadAt = now;
    this.wakesReading = true;
    file
      .load()
      .then(({ state }) => {
        if (this.wakes.remember(state.wakes))
          this.o.log('info', 'a count of automatic wakes changed in the state file (a person acted): read again');
      })
      .catch(() => undefined)
      .finally(() => (this.wakesReading = false));
  }

  /**
   * Counts an automatic wake whose prompt went out (`sent` true or "unknown"); a person's action on
   * the session starts the count again.
   */
  private countWake(o: ActionOutcome): void {
    const key = wakeKeyOfRow(o.rowKey);
    if (o.outcome === 'busy' || key === null) return;
    if (!o.automatic) {
      if (this.wakes.reset(key)) this.persist();
      return;
    }
    // A prompt that went out, or may have (its answer never came): counted, so stuck never comes late.
    if (!isWakeAction(o.action) || o.sent === false) return;
    const n = this.wakes.woke(key);
    this.persist();
    const max = chargeSettings(this.settings).maxConsecutiveWakes;
    if (n >= max)
      this.o.log(
        'warn',
        `automatic wake ${n} of ${o.sessionId} without a report: the next time it stops, a person decides`,
      );
  }

  /** Records a finished outcome on the row, logs it once and announces it. */
  private finish(o: ActionOutcome): void {
    this.countWake(o);
    if (o.outcome !== 'busy') {
      const extra = o.outcome === 'scheduled' ? { action: 'scheduled-retry' as const, at: o.at } : {};
      this.book.finish(o.rowKey, o.outcome, o.rowText, extra);
    }
    const level = o.outcome === 'failed' ? 'warn' : 'info';
    this.o.log(level, logLine(o));
    for (const l of this.actListeners) l(o);
  }

  dispose(): void {
    this.off();
    this.offSeen();
    this.retries.dispose();
  }
}

function label(row: ActionTarget): string {
  return row.title ?? row.id;
}

function requestID(row: SessionRow): string {
  if (!row.waiting) throw new Error(`"${label(row)}" is not waiting for a person`);
  return row.waiting.requestID;
}

/** The samples an automatic decision rests on: the row's latest sample. */
export function rowBasis(row: SessionRow): DecisionBasis {
  const latest = row.evidence.latest;
  return { state: latest.state, newestId: latest.newestId, newestRole: latest.newestRole };
}

function waitingFor(
  row: SessionRow,
  kind: 'permission' | 'question',
): NonNullable<SessionRow['waiting']> & { requestID: string } {
  if (!row.waiting || row.waiting.kind !== kind) throw new Error(`"${label(row)}" is not waiting for a ${kind}`);
  return row.waiting;
}
