// The headless operator behind `session-ops watch`: the editor's SessionMonitor over the configured
// backends, always active, feeding the metrics (counted requests, timed rounds) and the JSON-line
// log (verdict changes, backend errors, reloads; rounds at debug). The health of the loop is
// judged by the monitor's round counter: the loop is stuck when no backend round started for
// longer than a round can take (two spacings plus two request deadlines). A reload swaps the
// backends and operator settings in place; a backend whose URL, directories or credentials changed
// gets a fresh client. Never imports 'vscode'.
import { TIMING } from '../settings/timing';
import { BackendClient, type BackendClientOptions, type QuotaMarkBook, type SampleRound } from '../backend';
import { systemClock, type Clock } from '../clock';
import type { EpochMs } from '../model';
import {
  WatchMetrics,
  requestOutcome,
  verdictLabel,
  type ActionLabel,
  type ActionOutcome as ActionOutcomeLabel,
  type VerdictLabel,
} from '../metrics/watch-metrics';
import { MIN_SPACING_MS } from '../health/verdict';
import { parseRowKey } from '../keys';
import { Ticker } from '../timing';
import { sessionLockerFor } from '../state/session-locker';
import { Operator } from '../operations/operator';
import type { ActionOutcome } from '../operations/action-outcome';
import { stateDir } from '../state/state-dir';
import { operatorStateFor } from '../operations/state-store-operator';
import { automaticSwitches, monitorSettings } from '../settings/operator-settings';
import { describeError } from '../error-message';
import { SessionMonitor, type BackendState, type MonitorOptions } from '../monitor/sessionMonitor';
import type { SessionRow } from '../monitor/row';
import type { WatchConfig } from './config';
import type { LoadedConfig } from './load';
import type { Logger } from './log';
import { backendStatuses, type BackendStatus } from './status';
import { AuditLog, type AuditQuery } from '../audit/audit-log';
import { auditEntry } from '../audit/audit-entry';
import { fleetBackend, type FleetView } from './api/read';
import { BackendBodyCache, BackendRoundCache } from './api/body-cache';
import type { ActView } from './api/act';
import type { EventHub } from './api/events';
import { feedEvents } from './api/event-feed';

/** Per-request deadline of the daemon's backend requests. */
export const WATCH_REQUEST_TIMEOUT_MS = TIMING.watchRequestTimeoutMs;

export interface WatchDaemonOptions {
  loaded: LoadedConfig;
  log: Logger;
  /** Accept spacing under 30 s and verdicts on it (watch --allow-short-spacing). */
  allowShortSpacing: boolean;
  /** The one clock (src/core/clock.ts) of the monitor, the operator, the clients and the daemon's own timers (default the system's). */
  clock?: Clock;
  requestTimeoutMs?: number;
  /** prom-client's default process metrics (default true). */
  processMetrics?: boolean;
  /** The environment the state directory (SESSION_OPS_STATE_DIR ...) is read from. */
  env?: Record<string, string | undefined>;
  /**
   * Where a backend's quota marks are kept between runs (the CLI's mark store in the state
   * directory, shared with `status`, `wake` ...); absent: this run's marks only.
   */
  openMarks?: (baseUrl: string) => Promise<StoredMarks>;
}

/** A backend's stored quota marks: the book read at start, and how to merge it back. */
export interface StoredMarks {
  readonly book: QuotaMarkBook;
  readonly warning: string | null;
  /** Merges `book` into the store; a warning when it could not be written. */
  save(): Promise<string | null>;
}

const MARK_SAVE_EVERY_MS = TIMING.watchMarkSaveMs;

/** A client whose sampling rounds are timed into the metrics and logged at debug. */
class MeteredClient extends BackendClient {
  constructor(
    options: BackendClientOptions,
    private readonly onRound: (seconds: number, round: SampleRound | null, error: unknown) => void,
  ) {
    super(options);
  }

  override async sampleRound(...args: Parameters<BackendClient['sampleRound']>): Promise<SampleRound> {
    const started = performance.now();
    try {
      const round = await super.sampleRound(...args);
      this.onRound((performance.now() - started) / 1000, round, null);
      return round;
    } catch (err) {
      this.onRound((performance.now() - started) / 1000, null, err);
      throw err;
    }
  }
}

function monitorOptions(config: WatchConfig, allowShort: boolean) {
  const settings = monitorSettings(config.operator);
  return {
    ...settings,
    // --allow-short-spacing: verdicts accept the configured spacing even under the spec's 30 s.
    ...(allowShort ? { minSpacingMs: Math.min(settings.spacingMs, MIN_SPACING_MS) } : {}),
  } satisfies Partial<MonitorOptions>;
}

/** The `outcome` label of an action's outcome. */
export function actionOutcomeLabel(o: ActionOutcome): ActionOutcomeLabel {
  switch (o.outcome) {
    case 'confirmed':
    case 'idle':
    case 'answered':
      return 'done';
    case 'scheduled':
      return 'scheduled';
    case 'escalated':
      return 'escalated';
    case 'refused':
    case 'busy':
      // From the refusal's typed code, never its text.
      return o.code === 'stale' ? 'stale' : 'refused';
    default:
      return 'failed';
  }
}

const COUNTED_ACTIONS: ReadonlySet<string> = new Set<ActionLabel>(['abort', 'wake', 'abort-and-wake', 'recover']);

export class WatchDaemon {
  readonly monitor: SessionMonitor;
  readonly metrics: WatchMetrics;
  readonly operator: Operator;
  /** Sessions with an automatic action running (row key), for the stop and the trigger label. */
  private readonly acting = new Set<string>();
  private readonly settled = new Set<() => void>();
  private loaded: LoadedConfig;
  private readonly log: Logger;
  private readonly clock: Clock;
  private readonly verdicts = new Map<string, VerdictLabel>();
  /** The bytes of GET /api/status and GET /api/fleet, per backend per round (./api/body-cache.ts). */
  /**
   * Each backend's `status --json` documents of this round, built once and shared by the
   * /api/status and /api/fleet bytes and the event stream's `row` events.
   */
  private readonly statusParts = new BackendRoundCache<BackendStatus>(
    (b) =>
      backendStatuses([b], this.clock.now(), this.loaded.config.operator['budget.sessionUsd'], (row) =>
        this.operator.automaticSkip(row),
      )[0],
    () => this.clock.now(),
  );
  private readonly statusBodies = new BackendBodyCache(
    (b) => this.statusOfBackend(b),
    () => this.clock.now(),
  );
  private readonly fleetBodies = new BackendBodyCache(
    (b) => fleetBackend(b, this.statusOfBackend(b), (key) => this.retryOf(key)),
    () => this.clock.now(),
  );
  /** The names of the configured backends: only they are counted in the metrics. */
  private names: ReadonlySet<string>;
  private lastRounds = -1;
  private lastProgressAt: EpochMs;
  private readonly healthTicker: Ticker;
  private stopped = false;
  /** Per base URL: the stored marks, and the monitor's book they are merged with. */
  private readonly marks = new Map<string, { stored: StoredMarks; live: QuotaMarkBook | null }>();
  private readonly markTicker: Ticker;
  /** The audit trail in the state directory (null: no state directory, nothing is recorded). */
  readonly audit: AuditLog | null;

  constructor(private readonly options: WatchDaemonOptions) {
    this.loaded = options.loaded;
    this.names = namesOf(this.loaded.config);
    this.log = options.log;
    this.clock = options.clock ?? systemClock;
    this.healthTicker = new Ticker(TIMING.watchHealthCheckMs, () => this.checkProgress(), this.clock, { unref: true });
    this.markTicker = new Ticker(MARK_SAVE_EVERY_MS, () => void this.saveMarks(), this.clock, { unref: true });
    this.lastProgressAt = this.clock.now();
    const timeoutMs = options.requestTimeoutMs ?? WATCH_REQUEST_TIMEOUT_MS;
    this.monitor = new SessionMonitor({
      ...monitorOptions(this.loaded.config, options.allowShortSpacing),
      createClient: (config, credentials, marks) => {
        const kept = this.marks.get(config.baseUrl);
        if (kept && kept.live !== marks) {
          marks.merge(kept.stored.book);
          kept.live = marks;
        }
        return new MeteredClient(
          {
            baseUrl: config.baseUrl,
            username: credentials?.username,
            password: credentials?.password,
            timeoutMs,
            marks,
            surface: config.surface,
            clock: this.clock,
            onRequest: (endpoint, error) => {
              // A request of a backend removed by a reload, settling late, no longer counts.
              if (this.names.has(config.name))
                this.metrics.countRequest(config.name, endpoint, error ? requestOutcome(error) : 'ok');
            },
          },
          (seconds, round, error) => this.onRound(config.name, seconds, round, error),
        );
      },
      getCredentials: (config) => Promise.resolve(this.loaded.credentials.get(config.name)),
      clock: this.clock,
      log: (level, message) => this.log(level, 'backend-error', { message }),
      // The monitor's spend per round (after the message ledger summed what the list lacks).
      onSpend: (key, spent) => {
        const backend = this.backendName(key);
        if (this.names.has(backend)) for (const s of spent) this.metrics.countSpend(backend, s.provider, s.usd);
      },
    });
    this.metrics = new WatchMetrics({
      source: this.monitor,
      maxSessionSeries: this.loaded.config.metrics.maxSessionSeries,
      budgetUsd: () => this.loaded.config.operator['budget.sessionUsd'],
      // Read at scrape time, once the operator exists.
      automaticSkip: (row) => this.operator?.automaticSkip(row) ?? null,
      processMetrics: options.processMetrics,
    });
    this.monitor.onDidChange(() => this.logVerdictChanges());
    // The /api/status and /api/fleet bodies: a backend's part rebuilt after its round committed.
    this.monitor.onDidChange((c) => {
      const keys = c.providers ? undefined : [...c.structural, ...c.rows.map((r) => r.backendKey)];
      this.statusParts.invalidate(keys);
      this.statusBodies.invalidate(keys);
      this.fleetBodies.invalidate(keys);
    });
    // A session's cost reaching 80 % and 100 % of budget.sessionUsd: logged once each.
    this.monitor.onTransition((t) => {
      if (t.kind !== 'budget-80' && t.kind !== 'budget-100') return;
      this.log('warn', 'budget', {
        backend: this.backendName(t.row.backendKey),
        directory: t.row.directory,
        session: t.row.id,
        level: t.kind === 'budget-100' ? 100 : 80,
        usd: t.row.cost?.usd ?? null,
        budgetUsd: this.loaded.config.operator['budget.sessionUsd'],
      });
    });
    // The editor's operator: the automatic policy, its safety rules, the per-session lock of the
    // state directory around every POST, scheduled retries and automatic memory persisted.
    this.operator = new Operator({
      monitor: this.monitor,
      settings: this.loaded.config.operator,
      log: (level, message) => this.log(level, 'operator', { message }),
      postLocker: sessionLockerFor(stateDir(options.env ?? {})),
      // Scheduled retries, automatic mode's memory: kept in the state directory across restarts.
      state: operatorStateFor(options.env ?? {}, this.clock.now),
      clock: this.clock,
      // Whom its prompts speak for: the config's orchestrator (read at each action, so a reload counts).
      authority: () => ({ orchestrator: this.loaded.config.orchestrator, ticket: null }),
      requireOrchestrator: '"orchestrator:" in the watch config',
    });
    this.operator.onDidStartAutomatic((action, row) => {
      this.acting.add(row.key);
      this.log('info', 'action-started', {
        backend: this.backendName(row.backendKey),
        directory: row.directory,
        session: row.id,
        action,
        verdict: row.verdict,
      });
    });
    this.operator.onDidAct((o) => this.onAct(o));
    // An act may move any row's retry or charge: every part is rebuilt.
    this.operator.onDidAct(() => this.invalidateBodies());
    const dir = stateDir(options.env ?? {});
    this.audit = dir
      ? new AuditLog({ dir, maxBytes: this.loaded.config.audit.maxBytes, keep: this.loaded.config.audit.keep })
      : null;
  }

  /** What the API's read routes read. */
  fleetView(): FleetView {
    return {
      backends: () => this.monitor.backends(),
      status: () => this.status(),
      fleetBytes: () => this.fleetBodies.bytes(this.monitor.backends()),
      retryOf: (key) => this.retryOf(key),
      audit: async (q: AuditQuery) => {
        if (!this.audit) return { entries: [], truncated: false };
        const r = await this.audit.query(q);
        return { entries: r.entries, truncated: r.truncated };
      },
      now: () => this.clock.now(),
    };
  }

  /** What the API's act routes act through: this daemon's operator, and its audit trail. */
  actView(): ActView {
    return {
      backends: () => this.monitor.backends(),
      operator: this.operator,
      nameOf: (key) => this.backendName(key),
      record: (entry) => {
        if (!this.audit) return;
        void this.audit.append(entry).then((warning) => warning && this.log('warn', 'audit', { message: warning }));
      },
      now: () => this.clock.now(),
    };
  }

  /** Feeds the event stream from the monitor, the operator and the audit trail; the unsubscribe. */
  feed(hub: EventHub): () => void {
    return feedEvents(hub, {
      backends: () => this.monitor.backends(),
      statusOf: (backends) => backends.map((b) => this.statusOfBackend(b)),
      retryOf: (key) => {
        const r = this.operator.retries.get(key);
        return r ? { at: r.at, firesAt: r.firesAt } : null;
      },
      onDidChange: (l) => this.monitor.onDidChange(l),
      onDidAct: (l) => this.operator.onDidAct(l),
      audit: this.audit,
      nameOf: (key) => this.backendName(key),
    });
  }

  /** The backend's name for a backend key (its base URL with a trailing slash). */
  nameOf(backendKey: string): string {
    return this.backendName(backendKey);
  }

  /** Starts sampling every backend (at once, then each on its own schedule). */
  async start(): Promise<void> {
    await this.openMarks(this.loaded.config);
    this.monitor.setBackends(this.loaded.config.backends);
    this.markTicker.start();
    for (const b of this.loaded.config.backends) this.metrics.initBackend(b.name);
    this.monitor.setActive(true);
    this.healthTicker.start();
    this.log('info', 'started', {
      backends: this.loaded.config.backends.map((b) => ({
        name: b.name,
        baseUrl: b.baseUrl,
        directories: b.directories,
      })),
      sampleSpacingSeconds: this.loaded.config.operator.sampleSpacingSeconds,
      automatic: automaticSwitches(this.loaded.config.operator),
      orchestrator: this.loaded.config.orchestrator,
    });
    if (this.operator.armed() && !this.loaded.config.orchestrator)
      this.log('warn', 'operator', {
        message:
          'no orchestrator session is configured ("orchestrator:" in the watch config): automatic actions are not taken, since every prompt names the orchestrator its reports go to',
      });
  }

  /** Applies a new configuration (already loaded and checked). */
  async reload(next: LoadedConfig): Promise<void> {
    await this.openMarks(next.config);
    const before = this.loaded;
    this.loaded = next;
    this.names = namesOf(next.config);
    this.invalidateBodies();
    this.monitor.updateOptions(monitorOptions(next.config, this.options.allowShortSpacing));
    this.operator.updateSettings(next.config.operator);
    this.metrics.setMaxSessionSeries(next.config.metrics.maxSessionSeries);
    this.monitor.setBackends(next.config.backends);
    for (const b of next.config.backends) this.metrics.initBackend(b.name);
    // A removed (or renamed) backend's series leave /metrics: its counters and round times.
    for (const b of before.config.backends) if (!this.names.has(b.name)) await this.metrics.removeBackend(b.name);
    for (const b of next.config.backends) {
      const was = before.credentials.get(b.name);
      const now = next.credentials.get(b.name);
      if (was?.username !== now?.username || was?.password !== now?.password) this.monitor.resetClient(b.key);
    }
    this.log('info', 'config-reloaded', { backends: next.config.backends.map((b) => b.name) });
  }

  get config(): WatchConfig {
    return this.loaded.config;
  }

  backends(): readonly BackendState[] {
    return this.monitor.backends();
  }

  /** The /api/status body as bytes: `JSON.stringify(status())` and a newline, built once per round. */
  statusBytes(): Buffer {
    return this.statusBodies.bytes(this.monitor.backends());
  }

  private statusOfBackend(b: BackendState): BackendStatus {
    return this.statusParts.get(b);
  }

  private retryOf(key: string): { at: EpochMs; firesAt: EpochMs } | null {
    const r = this.operator.retries.get(key);
    return r ? { at: r.at, firesAt: r.firesAt } : null;
  }

  private invalidateBodies(): void {
    this.statusParts.invalidate();
    this.statusBodies.invalidate();
    this.fleetBodies.invalidate();
  }

  /** The /api/status document. */
  status(): { backends: BackendStatus[] } {
    const backends = this.monitor.backends();
    this.statusParts.keepOnly(backends);
    return { backends: backends.map((b) => this.statusOfBackend(b)) };
  }

  /** How long the loop may go without starting a round before it counts as stuck. */
  stuckAfterMs(): number {
    const spacing = this.loaded.config.operator.sampleSpacingSeconds * 1000;
    return 2 * spacing + 2 * (this.options.requestTimeoutMs ?? WATCH_REQUEST_TIMEOUT_MS) + 5_000;
  }

  /** /healthz: ok while rounds keep starting. */
  health(): { ok: boolean; detail: string } {
    this.checkProgress();
    const idleMs = this.clock.now() - this.lastProgressAt;
    if (this.stopped) return { ok: false, detail: 'stopping' };
    if (idleMs > this.stuckAfterMs())
      return { ok: false, detail: `stuck: no sampling round started for ${Math.round(idleMs / 1000)} s` };
    return { ok: true, detail: 'ok' };
  }

  /**
   * Stops: no new automatic action or scheduled retry; the actions running get until `graceMs` to
   * finish, then every client is closed (their requests abandoned: an action ends as failed, and
   * nothing is half-written, persisted state being written atomically by its owners).
   */
  async stop(graceMs = 3_000): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.healthTicker.stop();
    this.operator.dispose();
    this.markTicker.stop();
    if (this.acting.size > 0) {
      this.log('info', 'waiting-for-actions', { sessions: this.acting.size, graceMs });
      await this.actionsSettled(graceMs);
    }
    this.monitor.dispose();
    if (this.acting.size > 0) await this.actionsSettled(1_000);
    // Every outcome so far in the operator's state file (written atomically), then the marks.
    await this.operator.flush();
    await this.audit?.flush();
    await this.saveMarks();
  }

  private async openMarks(config: WatchConfig): Promise<void> {
    const open = this.options.openMarks;
    if (!open) return;
    for (const b of config.backends) {
      if (this.marks.has(b.baseUrl)) continue;
      const stored = await open(b.baseUrl);
      if (stored.warning) this.log('warn', 'quota-marks', { backend: b.name, message: stored.warning });
      this.marks.set(b.baseUrl, { stored, live: null });
    }
  }

  /** Merges what the monitor's books saw into the stores (atomic writes by the store). */
  private async saveMarks(): Promise<void> {
    for (const [baseUrl, kept] of this.marks) {
      if (kept.live) kept.stored.book.merge(kept.live);
      const warning = await kept.stored.save();
      if (warning) this.log('warn', 'quota-marks', { baseUrl, message: warning });
    }
  }

  private actionsSettled(withinMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.clock.clearTimeout(timer);
        this.settled.delete(check);
        resolve();
      };
      const check = () => {
        if (this.acting.size === 0) done();
      };
      const timer = this.clock.setTimeout(done, withinMs);
      this.settled.add(check);
      check();
    });
  }

  private onAct(o: ActionOutcome): void {
    const trigger = this.acting.delete(o.rowKey) ? 'automatic' : 'scheduled';
    const row = this.monitor.row(o.rowKey);
    const backendKey = row?.backendKey ?? parseRowKey(o.rowKey)?.backendKey ?? o.rowKey;
    const backend = this.backendName(backendKey);
    const outcome = actionOutcomeLabel(o);
    if (COUNTED_ACTIONS.has(o.action) && o.automatic && this.names.has(backend))
      this.metrics.countAction(backend, o.action as ActionLabel, outcome, trigger);
    this.log(o.outcome === 'failed' ? 'warn' : 'info', 'action', {
      backend,
      directory: row?.directory ?? null,
      session: o.sessionId,
      action: o.action,
      outcome,
      result: o.outcome,
      trigger: o.automatic ? trigger : 'person',
      model: o.model ? `${o.model.providerID}/${o.model.modelID}` : null,
      message: o.message,
      ...(o.at !== null ? { retryAt: new Date(o.at).toISOString() } : {}),
    });
    if (o.automatic && o.outcome !== 'busy' && this.audit)
      void this.audit
        .append(
          auditEntry({
            at: this.clock.now(),
            who: { kind: 'automatic', name: 'automatic' },
            backend,
            directory: row?.directory ?? parseRowKey(o.rowKey)?.directory ?? '',
            outcome: o,
            row: row ?? null,
            prompt: o.prompt ?? null,
          }),
        )
        .then((warning) => warning && this.log('warn', 'audit', { message: warning }));
    for (const check of [...this.settled]) check();
  }

  private backendName(backendKey: string): string {
    return this.monitor.backend(backendKey)?.config.name ?? backendKey;
  }

  private checkProgress(): void {
    const rounds = this.monitor.stats().rounds;
    if (rounds !== this.lastRounds) {
      this.lastRounds = rounds;
      this.lastProgressAt = this.clock.now();
    }
  }

  private onRound(backend: string, seconds: number, round: SampleRound | null, error: unknown): void {
    if (this.names.has(backend)) this.metrics.observeRound(backend, seconds);
    if (round)
      this.log('debug', 'sample-round', {
        backend,
        directory: round.directory,
        sessions: round.samples.length + round.unreadable.length,
        seconds: Math.round(seconds * 1000) / 1000,
      });
    else
      this.log('debug', 'sample-round-failed', {
        backend,
        seconds: Math.round(seconds * 1000) / 1000,
        message: describeError(error),
      });
  }

  private logVerdictChanges(): void {
    const seen = new Set<string>();
    for (const b of this.monitor.backends()) {
      for (const d of b.directories) {
        for (const row of d.rows) {
          seen.add(row.key);
          const verdict = verdictLabel(row);
          const before = this.verdicts.get(row.key);
          if (before === verdict) continue;
          this.verdicts.set(row.key, verdict);
          if (verdict === 'pending' && before === undefined) continue;
          this.log('info', 'verdict-changed', verdictFields(b, row, before ?? null, verdict));
        }
      }
    }
    for (const key of this.verdicts.keys()) if (!seen.has(key)) this.verdicts.delete(key);
  }
}

function namesOf(config: WatchConfig): ReadonlySet<string> {
  return new Set(config.backends.map((b) => b.name));
}

function verdictFields(b: BackendState, row: SessionRow, from: VerdictLabel | null, to: VerdictLabel) {
  return {
    backend: b.config.name,
    directory: row.directory,
    session: row.id,
    title: row.title,
    from,
    to,
    action: row.action,
    ...(row.quotaWall ? { quotaWall: { provider: row.quotaWall.provider, category: row.quotaWall.category } } : {}),
  };
}
