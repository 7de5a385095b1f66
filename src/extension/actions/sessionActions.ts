// The session actions in the editor: Abort, Wake, Abort and Wake, Recover on Another Provider,
// Wake with Prompt..., Dispatch Task..., and sending a reviewed prompt. Every choice and every
// rule lives in src/core/actions (model choice, send guard, abort-then-confirm-idle, recovery,
// pre-dispatch check, prompt composition); this module only gathers input, shows progress on
// the row, and reports results. A prompt that could not be sent is never lost: the message
// offers Retry and Open Prompt.
import * as vscode from 'vscode';
import {
  abortSession,
  backendInventory,
  chooseModel,
  composePrompt,
  dispatchTask,
  recoverSession,
  resolveAuthority,
  takeInventory,
  wakeSession,
  type ActionContext,
  type Authority,
  type ComposeKind,
  type Composed,
  type FactBaselineFacts,
  type Inventory,
  type PromptFacts,
  type RecoverResult,
  type WakeResult,
} from '../../core/actions';
import { gitInventory } from '../../core/actions/git-inventory';
import type { BackendClient } from '../../core/backend/client';
import { MIN_SPACING_MS } from '../../core/health/verdict';
import type { ModelRef, ProviderListing } from '../../core/model';
import { localTime, until } from '../../core/monitor/present';
import type { SessionRow } from '../../core/monitor/row';
import type { SessionMonitor } from '../../core/monitor/sessionMonitor';
import type { OperationBook } from '../../core/operations/book';
import type { Configuration } from '../configuration';
import type { SessionsNode, SessionsView } from '../views/sessionsView';
import type { PromptDocuments, PromptTarget } from './promptDocuments';

export interface ActionDeps {
  monitor: SessionMonitor;
  sessions: SessionsView;
  configuration: Configuration;
  operations: OperationBook;
  prompts: PromptDocuments;
  workspaceState: vscode.Memento;
  log: vscode.LogOutputChannel;
}

type Target = SessionsNode | SessionRow | undefined;

const ORCHESTRATOR_KEY = 'sessionOps.orchestratorSessionId';
const TICKETS_KEY = 'sessionOps.tickets';

export class SessionActions {
  /** Scheduled retries after a reset, by row key. */
  private readonly scheduled = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly deps: ActionDeps) {}

  // ---- targets -----------------------------------------------------------------------------

  /** The row a command acts on: the clicked node, a row, or a pick among the rows that qualify. */
  async row(target: Target, title: string, qualifies: (r: SessionRow) => boolean): Promise<SessionRow | undefined> {
    if (target && 'kind' in target) {
      const row = this.deps.sessions.row(target);
      if (!row) throw new Error('select a session first');
      return row;
    }
    if (target && 'key' in target) return this.deps.monitor.rows().find((r) => r.key === target.key) ?? target;
    const rows = this.deps.monitor.rows().filter(qualifies);
    if (rows.length === 0) throw new Error(`no session qualifies for "${title}" right now`);
    const pick = await vscode.window.showQuickPick(
      rows.map((r) => ({ label: r.title ?? r.id, description: `${r.badge} · ${r.id}`, detail: r.directory, row: r })),
      { title, matchOnDescription: true },
    );
    return pick?.row;
  }

  private async context(row: SessionRow): Promise<{ ctx: ActionContext; client: BackendClient }> {
    const client = await this.deps.monitor.client(row.backendKey);
    return { ctx: { backend: client, directory: row.directory }, client };
  }

  private async inventory(client: BackendClient, directory: string): Promise<Inventory> {
    return takeInventory([backendInventory(client), gitInventory()], { directory });
  }

  orchestrator(): string | null {
    return this.deps.workspaceState.get<string>(ORCHESTRATOR_KEY) ?? null;
  }

  private ticketFor(row: SessionRow): string | null {
    return this.deps.workspaceState.get<Record<string, string>>(TICKETS_KEY, {})[row.key] ?? null;
  }

  private authority(row: SessionRow): Authority {
    return resolveAuthority({
      orchestrator: this.orchestrator(),
      ticket: this.ticketFor(row),
      sessionTitle: row.title,
      newestUserText: row.evidence.latest.newestRole === 'user' ? row.newestText : null,
    });
  }

  /** Shows whom the prompt speaks for; a modal warning when the worker names another orchestrator. */
  private async checkAuthority(row: SessionRow, authority: Authority): Promise<boolean> {
    const speaks = authority.orchestrator
      ? `speaks for orchestrator ${authority.orchestrator}`
      : 'names no orchestrator (the worker fills it in)';
    this.deps.log.info(`prompt to ${row.id} ${speaks}`);
    if (authority.warnings.length === 0) return true;
    const go = await vscode.window.showWarningMessage(
      `${authority.warnings.join('\n')}\n\nThis prompt ${speaks}.`,
      { modal: true },
      'Send Anyway',
    );
    return go === 'Send Anyway';
  }

  async setOrchestrator(): Promise<void> {
    const value = await vscode.window.showInputBox({
      title: 'Orchestrator session id',
      prompt:
        'The session that holds the orchestrating authority; wake and dispatch prompts speak for it (remembered for this workspace). Empty to clear.',
      value: this.orchestrator() ?? '',
      ignoreFocusOut: true,
    });
    if (value === undefined) return;
    await this.deps.workspaceState.update(ORCHESTRATOR_KEY, value.trim() || undefined);
  }

  // ---- progress and results on the row ---------------------------------------------------------

  private async run<T>(
    row: SessionRow,
    kind: Parameters<OperationBook['start']>[1],
    text: string,
    fn: () => Promise<T>,
  ): Promise<T | undefined> {
    const ops = this.deps.operations;
    if (ops.busy(row.key)) {
      void vscode.window.showInformationMessage(
        `Session Ops: an action is already running on "${row.title ?? row.id}".`,
      );
      return undefined;
    }
    ops.start(row.key, kind, text);
    try {
      return await vscode.window.withProgress(
        { location: { viewId: 'sessionOps.sessions' }, title: `${text}: ${row.title ?? row.id}` },
        fn,
      );
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      ops.finish(row.key, 'failed', `failed: ${message}`);
      throw err;
    } finally {
      if (ops.busy(row.key)) ops.finish(row.key, 'failed', 'ended without a result');
      this.deps.monitor.nudge(row.backendKey, row.directory);
    }
  }

  /** A prompt that did not go out: say why, keep it, offer Retry and Open Prompt. */
  private undelivered(
    row: SessionRow,
    message: string,
    prompt: string | null,
    target: PromptTarget,
    retry: () => Promise<unknown>,
  ): void {
    this.deps.log.warn(`prompt to ${row.id} not sent: ${message}`);
    const buttons = prompt ? ['Retry', 'Open Prompt'] : ['Retry'];
    // Not awaited: the command ends now; the prompt stays reachable from the message's buttons.
    void vscode.window
      .showErrorMessage(`Session Ops: "${row.title ?? row.id}": ${message}`, ...buttons)
      .then(async (choice) => {
        try {
          if (choice === 'Retry') await retry();
          else if (choice === 'Open Prompt' && prompt) await this.deps.prompts.open(prompt, target);
        } catch (err) {
          this.deps.log.error(`retry of the prompt to ${row.id}: ${err instanceof Error ? err.message : String(err)}`);
        }
      });
  }

  private target(
    row: SessionRow,
    kind: PromptTarget['kind'],
    model: ModelRef | null,
    basis: string | null,
    extra: Partial<PromptTarget> = {},
  ): PromptTarget {
    return {
      backendKey: row.backendKey,
      directory: row.directory,
      sessionId: row.id,
      label: row.title ?? row.id,
      kind,
      model,
      modelBasis: basis,
      ...extra,
    };
  }

  private reportWake(
    row: SessionRow,
    result: WakeResult,
    retry: () => Promise<unknown>,
    kind: PromptTarget['kind'],
  ): Promise<void> | void {
    const ops = this.deps.operations;
    const on = result.model ? `${result.model.providerID}/${result.model.modelID}` : null;
    this.deps.log.info(`wake ${row.id}: ${result.message}`);
    switch (result.outcome) {
      case 'confirmed':
        ops.finish(row.key, 'confirmed', `woken on ${on}, confirmed`);
        return;
      case 'not-confirmed':
        if (result.model) {
          ops.finish(row.key, 'not-confirmed', `sent on ${on}, not confirmed`);
          void vscode.window.showWarningMessage(`Session Ops: ${result.message}`);
          return;
        }
        ops.finish(row.key, 'not-idle', result.message);
        return this.undelivered(
          row,
          result.message,
          result.prompt,
          this.target(row, kind, result.model, result.modelBasis),
          retry,
        );
      case 'refused':
        ops.finish(row.key, 'refused', `refused: ${result.refusal?.reason ?? result.message}`);
        return this.undelivered(
          row,
          result.message,
          result.prompt,
          this.target(row, kind, result.refusal?.model ?? null, result.modelBasis),
          retry,
        );
      case 'error':
        ops.finish(row.key, 'failed', `not sent: ${result.error?.message ?? result.message}`);
        return this.undelivered(
          row,
          result.message,
          result.prompt,
          this.target(row, kind, result.model, result.modelBasis),
          retry,
        );
    }
  }

  // ---- composition -----------------------------------------------------------------------------

  /** The prompt builder for the session's state: the quota-wall prompt after a wall, else the wake prompt. */
  private builder(
    row: SessionRow,
    client: BackendClient,
    kind: ComposeKind,
    baseline?: FactBaselineFacts,
  ): (facts: PromptFacts) => Promise<Composed> {
    return (facts) => this.compose(row, client, kind, facts.model, baseline);
  }

  /** The prompt of `kind` for the session, on `nextModel`, with the worktree's inventory. */
  private async compose(
    row: SessionRow,
    client: BackendClient,
    kind: ComposeKind,
    nextModel: ModelRef | null,
    baseline?: FactBaselineFacts,
  ): Promise<Composed> {
    return composePrompt(kind, {
      now: Date.now(),
      authority: this.authority(row),
      inventory: await this.inventory(client, row.directory),
      task: row.title,
      wakeReason: row.verdict === 'hung' ? 'hung' : 'idle',
      failureText: row.failureText,
      wall: row.quotaWall ? { ...row.quotaWall, text: row.failureText } : null,
      nextModel,
      baseline: baseline ?? null,
    });
  }

  private composeKind(row: SessionRow): ComposeKind {
    return row.quotaWall ? 'quota-wake' : 'wake';
  }

  // ---- commands --------------------------------------------------------------------------------

  async abort(target: Target): Promise<void> {
    const row = await this.row(target, 'Abort', (r) => r.state === 'generating');
    if (!row) return;
    if (row.verdict !== 'hung') {
      const why =
        row.verdict === 'healthy' ? 'It reads healthy: it is still working.' : 'It has no settled hung verdict.';
      const go = await vscode.window.showWarningMessage(
        `Abort "${row.title ?? row.id}"? ${why} Files it already wrote survive; prompts queued before the abort may never fire.`,
        { modal: true },
        'Abort',
      );
      if (go !== 'Abort') return;
    }
    const { ctx } = await this.context(row);
    const result = await this.run(row, 'abort', 'aborting', () => abortSession(ctx, row.id, { waitMs: 60_000 }));
    if (!result) return;
    this.deps.log.info(`abort ${row.id}: ${result.message}`);
    if (result.idle) {
      this.deps.operations.finish(row.key, 'idle', 'aborted, idle confirmed');
      void vscode.window.showInformationMessage(
        `Session Ops: "${row.title ?? row.id}" aborted and reads idle. Prompts queued before the abort may never fire: re-send them.`,
      );
    } else {
      this.deps.operations.finish(row.key, result.outcome === 'error' ? 'failed' : 'not-idle', result.message);
      void vscode.window.showWarningMessage(`Session Ops: ${result.message}`);
    }
  }

  /** One click: the prompt the state calls for, on the model the core chooses, then confirm. */
  async wake(
    target: Target,
    options: { abortFirst?: boolean; automatic?: boolean } = {},
  ): Promise<WakeResult | undefined> {
    const abortFirst = options.abortFirst ?? false;
    const title = abortFirst ? 'Abort and Wake' : 'Wake';
    const row = await this.row(target, title, (r) => (abortFirst ? r.verdict === 'hung' : r.state === 'idle'));
    if (!row) return undefined;
    if (abortFirst && this.waiting(row))
      throw new Error(
        `"${row.title ?? row.id}" is waiting for a person: answer it instead (aborting would throw the question away)`,
      );
    if (abortFirst && row.verdict !== 'hung' && !options.automatic) {
      const go = await vscode.window.showWarningMessage(
        `"${row.title ?? row.id}" has no settled hung verdict. Abort it and wake it anyway?`,
        { modal: true },
        'Abort and Wake',
      );
      if (go !== 'Abort and Wake') return undefined;
    }
    const authority = this.authority(row);
    if (!options.automatic && !(await this.checkAuthority(row, authority))) return undefined;
    const { ctx, client } = await this.context(row);
    const kind = this.composeKind(row);
    const result = await this.run(
      row,
      abortFirst ? 'abort-and-wake' : 'wake',
      abortFirst ? 'aborting, then waking' : 'waking',
      () =>
        wakeSession(ctx, {
          sessionId: row.id,
          prompt: this.builder(row, client, kind),
          providers: this.deps.configuration.recoveryProviders(),
          abortFirst,
          abort: { waitMs: 60_000 },
          confirm: { withinMs: 60_000 },
        }),
    );
    if (!result) return undefined;
    await this.reportWake(
      row,
      result,
      () => this.sendText(row, result.prompt ?? '', result.model, abortFirst && !result.aborted),
      kind,
    );
    return result;
  }

  private waiting(row: SessionRow): boolean {
    return Boolean(row.waiting) || row.verdict === 'waiting';
  }

  /** Sends a given text (a reviewed or retried prompt) with a given model, through the same guard. */
  async sendText(
    row: SessionRow,
    text: string,
    model: ModelRef | null,
    abortFirst = false,
    kind: PromptTarget['kind'] = 'custom',
  ): Promise<WakeResult | undefined> {
    const { ctx } = await this.context(row);
    const result = await this.run(
      row,
      abortFirst ? 'abort-and-wake' : 'wake',
      abortFirst ? 'aborting, then sending' : 'sending',
      () =>
        wakeSession(ctx, {
          sessionId: row.id,
          prompt: text,
          model,
          abortFirst,
          abort: { waitMs: 60_000 },
          confirm: { withinMs: 60_000 },
        }),
    );
    if (!result) return undefined;
    await this.reportWake(row, result, () => this.sendText(row, text, model, abortFirst, kind), kind);
    return result;
  }

  async recover(target: Target, options: { automatic?: boolean } = {}): Promise<RecoverResult | undefined> {
    const row = await this.row(target, 'Recover on Another Provider', (r) => r.quotaWall !== null);
    if (!row) return undefined;
    const authority = this.authority(row);
    if (!options.automatic && !(await this.checkAuthority(row, authority))) return undefined;
    this.cancelScheduled(row, false);
    const { ctx, client } = await this.context(row);
    // The configured spacing (30-60 s); only the editor tests lower the monitor's minimum.
    const minSpacingMs = this.deps.monitor.minSpacingMs();
    const spacingMs =
      minSpacingMs < MIN_SPACING_MS ? minSpacingMs : this.deps.configuration.sampleSpacingSeconds() * 1000;
    const result = await this.run(row, 'recover', `recovering: two samples ${spacingMs / 1000} s apart`, () =>
      recoverSession(ctx, {
        sessionId: row.id,
        prompt: (facts) => this.builder(row, client, 'quota-wake')(facts),
        providers: this.deps.configuration.recoveryProviders(),
        spacingMs,
        minSpacingMs,
        resetWithinReachMs: this.deps.configuration.resetWithinReachMs(),
        abort: { waitMs: 60_000 },
        confirm: { withinMs: 60_000 },
      }),
    );
    if (!result) return undefined;
    this.deps.log.info(`recover ${row.id}: ${result.message}`);
    const ops = this.deps.operations;
    const on = result.model ? `${result.model.providerID}/${result.model.modelID}` : null;
    switch (result.decision) {
      case 'recovered':
        ops.finish(
          row.key,
          result.confirmed ? 'confirmed' : 'not-confirmed',
          `recovered on ${on}, ${result.confirmed ? 'confirmed' : 'not confirmed'}`,
        );
        break;
      case 'wait-for-reset':
        if (result.waitUntil !== null) this.schedule(row, result.waitUntil);
        break;
      case 'escalated': {
        ops.finish(row.key, 'escalated', 'escalated: nothing sent');
        const lines = result.marks.map(
          (m) =>
            `${m.provider}: marked ${localTime(m.markedAt)}, reset ${m.resetAt !== null ? `${localTime(m.resetAt)} (${until(m.resetAt, Date.now())})` : 'unknown'}`,
        );
        await vscode.window.showWarningMessage(
          `Session Ops: "${row.title ?? row.id}" needs a person. ${result.message}`,
          { modal: true, detail: `Nothing was sent.\n\nMarked providers:\n${lines.join('\n') || '(none)'}` },
        );
        break;
      }
      case 'refused':
        ops.finish(row.key, 'refused', `refused: ${result.refusal?.reason ?? result.message}`);
        if (result.prompt)
          await this.undelivered(
            row,
            result.message,
            result.prompt,
            this.target(row, 'quota-wake', result.model, null),
            () => this.recover(row),
          );
        else void vscode.window.showWarningMessage(`Session Ops: ${result.message}`);
        break;
      default:
        ops.finish(row.key, 'failed', result.message);
        await this.undelivered(
          row,
          result.message,
          result.prompt,
          this.target(row, 'quota-wake', result.model, null),
          () => this.recover(row),
        );
    }
    return result;
  }

  /** No provider is free and a reset is within reach: retry once after it, never in a tight loop. */
  private schedule(row: SessionRow, at: number): void {
    this.cancelScheduled(row, false);
    const delay = Math.max(0, at - Date.now()) + 5_000;
    this.deps.operations.finish(row.key, 'scheduled', `retry scheduled ${localTime(at)}`, {
      kind: 'scheduled-retry',
      at,
    });
    const timer = setTimeout(() => {
      this.scheduled.delete(row.key);
      this.deps.operations.clear(row.key);
      const current = this.deps.monitor.rows().find((r) => r.key === row.key);
      if (current?.quotaWall)
        void this.recover(current, { automatic: true }).catch((err) =>
          this.deps.log.error(`scheduled recovery of ${row.id}: ${String(err)}`),
        );
    }, delay);
    this.scheduled.set(row.key, timer);
    this.deps.log.info(`recovery of ${row.id} scheduled for ${new Date(at).toISOString()}`);
  }

  cancelScheduled(target: Target, announce = true): void {
    const row = target && 'kind' in target ? this.deps.sessions.row(target) : (target as SessionRow | undefined);
    if (!row) return;
    const timer = this.scheduled.get(row.key);
    if (timer) clearTimeout(timer);
    this.scheduled.delete(row.key);
    if (this.deps.operations.scheduled(row.key)) {
      this.deps.operations.finish(row.key, 'cancelled', 'scheduled retry cancelled');
      if (announce) this.deps.log.info(`scheduled recovery of ${row.id} cancelled`);
    }
  }

  /** Wake with Prompt...: compose, open for review, send from the document. */
  async wakeWithPrompt(target: Target): Promise<void> {
    const row = await this.row(target, 'Wake with Prompt...', (r) => r.state === 'idle' || r.verdict === 'hung');
    if (!row) return;
    const kindPick = await vscode.window.showQuickPick(
      [
        {
          label: row.quotaWall ? 'Quota-wall wake prompt' : 'Wake prompt',
          compose: this.composeKind(row),
          description: 'uncommitted files, anti-re-hang clause, completion-report protocol',
        },
        {
          label: 'Fact baseline...',
          compose: 'fact-baseline' as ComposeKind,
          description: "the worker's worldview is stale: authoritative facts you enter",
        },
      ],
      { title: `Wake "${row.title ?? row.id}" with` },
    );
    if (!kindPick) return;
    let baseline: FactBaselineFacts | undefined;
    if (kindPick.compose === 'fact-baseline') {
      baseline = await askFacts();
      if (!baseline) return;
    }
    const { client } = await this.context(row);
    const [listing, newest] = await Promise.all([
      client.listProviders(row.directory),
      client.newestMessage(row.directory, row.id),
    ]);
    const last =
      newest?.providerID && newest.modelID ? { providerID: newest.providerID, modelID: newest.modelID } : null;
    const choice = chooseModel({
      requested: null,
      last,
      listing,
      wallProvider: row.quotaWall?.provider ?? null,
      providers: this.deps.configuration.recoveryProviders(),
    });
    const composed = await this.compose(row, client, kindPick.compose, choice.model, baseline);
    if (!composed.ok) throw new Error(composed.problem);
    await this.deps.prompts.open(
      composed.text,
      this.target(row, kindPick.compose, choice.model, choice.basis, { abortFirst: row.state === 'generating' }),
    );
  }

  /** Dispatch Task...: the task is written in a prompt document; the pre-dispatch check runs on send. */
  async dispatch(target: Target): Promise<void> {
    const row = await this.row(target, 'Dispatch Task...', (r) => r.state === 'idle');
    if (!row) return;
    const { client } = await this.context(row);
    const listing = await client.listProviders(row.directory);
    const model = await pickModel(listing, row.quotaWall?.provider ?? null, 'Intended model for the task');
    if (!model) return;
    const ticket = await vscode.window.showInputBox({
      title: 'Ticket reference for the completion report (optional)',
      value: this.ticketFor(row) ?? '',
      ignoreFocusOut: true,
    });
    if (ticket === undefined) return;
    if (ticket.trim())
      await this.deps.workspaceState.update(TICKETS_KEY, {
        ...this.deps.workspaceState.get<Record<string, string>>(TICKETS_KEY, {}),
        [row.key]: ticket.trim(),
      });
    await this.deps.prompts.open(
      '<!-- Write the task here. The completion-report block (with the quota self-report clause) is appended when it is sent. -->\n',
      this.target(row, 'dispatch', model, 'chosen by you', { dispatch: true }),
    );
  }

  /** The Send button of a prompt document. */
  async sendPrompt(uri?: vscode.Uri): Promise<void> {
    const doc = uri
      ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString())
      : this.deps.prompts.active();
    if (!doc) throw new Error('open a prompt document first (Wake with Prompt... or Dispatch Task...)');
    const target = this.deps.prompts.target(doc.uri);
    if (!target)
      throw new Error(
        'this document is not a prompt waiting to be sent (it was sent already, or not opened by Session Ops)',
      );
    const row = this.deps.monitor
      .rows()
      .find((r) => r.backendKey === target.backendKey && r.directory === target.directory && r.id === target.sessionId);
    if (!row) throw new Error(`session ${target.sessionId} is no longer listed`);
    const text = doc.getText().replace(/^<!--[\s\S]*?-->\n?/, '');
    if (text.trim() === '') throw new Error('the prompt is empty');
    if (!(await this.checkAuthority(row, this.authority(row)))) return;
    if (target.dispatch) {
      if (!target.model) throw new Error('choose a model first');
      const { ctx } = await this.context(row);
      const result = await this.run(row, 'dispatch', 'dispatching', () =>
        dispatchTask(ctx, { sessionId: row.id, task: text, model: target.model!, authority: this.authority(row) }),
      );
      if (!result) return;
      this.deps.log.info(`dispatch ${row.id}: ${result.message}`);
      if (result.sent) {
        this.deps.operations.finish(
          row.key,
          'confirmed',
          `task dispatched on ${target.model.providerID}/${target.model.modelID}`,
        );
        this.deps.prompts.sent(doc.uri);
        return;
      }
      this.deps.operations.finish(row.key, result.outcome === 'refused' ? 'refused' : 'failed', result.message);
      const intended = target.model.providerID;
      if (result.instead) {
        const instead = result.insteadModel;
        const label = instead ? `Dispatch on ${instead.providerID} instead` : undefined;
        // Not awaited: the task stays in its document; the button switches its model and sends it.
        void vscode.window
          .showWarningMessage(`Session Ops: ${result.message}`, ...(label ? [label] : []))
          .then((choice) => {
            if (!label || choice !== label || !instead) return;
            this.deps.prompts.setModel(doc.uri, instead, `instead of ${intended} (pre-dispatch check)`);
            return this.sendPrompt(doc.uri);
          });
        return;
      }
      void vscode.window.showErrorMessage(`Session Ops: ${result.message} The task stays in its document.`);
      return;
    }
    const result = await this.sendText(row, text, target.model, target.abortFirst ?? false, target.kind);
    if (result && (result.outcome === 'confirmed' || (result.outcome === 'not-confirmed' && result.model)))
      this.deps.prompts.sent(doc.uri);
  }

  async choosePromptModel(uri?: vscode.Uri): Promise<void> {
    const doc = uri ?? this.deps.prompts.active()?.uri;
    const target = doc && this.deps.prompts.target(doc);
    if (!doc || !target) throw new Error('open a prompt document first');
    const row = this.deps.monitor.rows().find((r) => r.backendKey === target.backendKey && r.id === target.sessionId);
    if (!row) throw new Error(`session ${target.sessionId} is no longer listed`);
    const { client } = await this.context(row);
    const model = await pickModel(
      await client.listProviders(row.directory),
      row.quotaWall?.provider ?? null,
      `Model for "${target.label}"`,
    );
    if (model) this.deps.prompts.setModel(doc, model, 'chosen by you');
  }

  dispose(): void {
    for (const t of this.scheduled.values()) clearTimeout(t);
    this.scheduled.clear();
  }
}

/** A quick pick of models; marked, disconnected or walled providers are listed but refused. */
async function pickModel(
  listing: ProviderListing,
  wallProvider: string | null,
  title: string,
): Promise<ModelRef | undefined> {
  const items: Array<vscode.QuickPickItem & { model?: ModelRef; why?: string }> = [];
  for (const p of listing.providers) {
    const why = !listing.connected.includes(p.id)
      ? 'not connected'
      : p.quota
        ? 'quota-marked'
        : p.id === wallProvider
          ? "this session's quota wall"
          : null;
    if (!listing.connected.includes(p.id) && !p.quota) continue;
    items.push({ label: p.name ?? p.id, kind: vscode.QuickPickItemKind.Separator });
    for (const m of p.models.slice(0, 50))
      items.push({
        label: `${p.id}/${m}`,
        description: why ? `not allowed: ${why}` : p.defaultModel === m ? 'default' : undefined,
        model: { providerID: p.id, modelID: m },
        why: why ?? undefined,
      });
  }
  const pick = await vscode.window.showQuickPick(items, { title, matchOnDescription: true });
  if (!pick?.model) return undefined;
  if (pick.why) throw new Error(`${pick.label} is ${pick.why}: a prompt is never sent there`);
  return pick.model;
}

/** Fact baseline (spec Endpoints rule 4): the event, numbered facts with sources and times, invalid assumptions, one assignment. */
async function askFacts(): Promise<FactBaselineFacts | undefined> {
  const event = await vscode.window.showInputBox({
    title: 'Fact baseline 1/4: what happened (the event that made the worldview stale)',
    ignoreFocusOut: true,
  });
  if (!event) return undefined;
  const facts: FactBaselineFacts['facts'] = [];
  for (;;) {
    const statement = await vscode.window.showInputBox({
      title: `Fact baseline 2/4: fact ${facts.length + 1} (empty to finish)`,
      ignoreFocusOut: true,
    });
    if (statement === undefined) return undefined;
    if (statement.trim() === '') break;
    const source = await vscode.window.showInputBox({
      title: `Fact ${facts.length + 1}: artifact link (where to verify it)`,
      ignoreFocusOut: true,
    });
    if (source === undefined) return undefined;
    const at = await vscode.window.showInputBox({
      title: `Fact ${facts.length + 1}: timestamp`,
      value: new Date().toISOString(),
      ignoreFocusOut: true,
    });
    if (at === undefined) return undefined;
    facts.push({ statement, source, at });
  }
  if (facts.length === 0) throw new Error('a fact baseline needs at least one fact');
  const invalid = await vscode.window.showInputBox({
    title: 'Fact baseline 3/4: standing assumptions now invalid (separate with ;)',
    ignoreFocusOut: true,
  });
  if (invalid === undefined) return undefined;
  const step = await vscode.window.showInputBox({
    title: 'Fact baseline 4/4: one concrete assignment (empty: explicit standby)',
    ignoreFocusOut: true,
  });
  if (step === undefined) return undefined;
  return {
    event,
    facts,
    invalidAssumptions: invalid
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean),
    assignment: step.trim()
      ? { kind: 'task', step: step.trim() }
      : { kind: 'standby', until: 'the orchestrator sends the next assignment' },
  };
}
