// The session monitor: samples every configured backend's sessions, keeps each session's recent
// samples, and turns them into SessionRows through the pure health core (assessSession). It
// decides nothing itself. Sampling runs only while `active` (a view is visible or an automatic
// action is armed); events from a backend's stream (capabilities.events) nudge a directory to be
// sampled sooner, while polling stays the source of truth and a verdict still needs two samples
// 30 s to twice the spacing apart (health/SampleHistory). Quota marks of a backend without quota
// objects live in a book per backend that every client of it shares (credentials change included).
// A runtime replaced by setBackends/resetClient is closed: nothing awaited for it creates a client,
// opens a stream or writes state afterwards. Each backend keeps its own schedule: its next round
// starts a spacing after its previous one ended (a slow backend never overlaps itself nor delays
// the others), and a directory is sampled by one request chain at a time. An event naming a
// session re-samples that session only (the list, plus its newest message). Never imports 'vscode'.
import type { BackendClient, BackendEvent } from '../backend';
import { systemClock, type Clock } from '../clock';
import type { BackendConfig } from '../config/backends';
import { listedIds, MIN_SPACING_MS, SampleHistory, sampleDirectoryOnce } from '../health';
import { describeError } from '../error-message';
import { directorySessionKey } from '../keys';
import type { EpochMs, ProviderListing, TodoProgress } from '../model';
import { buildRows, rowsById, updateDirectoryRows } from './directory-rows';
import { isNudge, syncEventStreams } from './event-streams';
import { readProviders, storeProviders, type ProviderRead } from './providers';
import type { SessionRow } from './row';
import { closeRuntime, ledgerFor, newRuntime, sameConfig, StaleRuntime, type BackendRuntime } from './runtime';
import { sameRow } from './same-row';
import type {
  BackendState,
  MonitorChange,
  MonitorOptions,
  MonitorSettingOptions,
  MonitorStats,
  Transition,
} from './types';

export { badgeOf } from './to-row';
export { describeError };
export { isNudge } from './event-streams';
export type {
  AttachedInfo,
  BackendState,
  DirectoryState,
  MonitorChange,
  MonitorCredentials,
  MonitorOptions,
  MonitorSettingOptions,
  MonitorStats,
  Transition,
  TransitionKind,
} from './types';

const EMPTY_LISTING: ProviderListing = { providers: [], connected: [] };

/** Sessions assessed and made rows in one stretch of the event loop, at most. */
export const ROWS_PER_SLICE = 50;

/** Resolves in a later turn of the event loop (after pending I/O callbacks). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export class SessionMonitor {
  private runtimes = new Map<string, BackendRuntime>();
  private listeners = new Set<(c: MonitorChange) => void>();
  private transitionListeners = new Set<(t: Transition) => void>();
  private active = false;
  private disposed = false;
  private rowsCache: SessionRow[] | null = null;
  private rowIndex: Map<string, SessionRow> | null = null;
  private readonly counters = { rounds: 0, samples: 0, partialSamples: 0, overlaps: 0 };
  /** The monitor's clock (the hosts' views read the time from it too). */
  readonly clock: Clock;

  constructor(private options: MonitorOptions) {
    this.clock = options.clock ?? systemClock;
  }

  private now(): EpochMs {
    return this.clock.now();
  }

  onDidChange(listener: (c: MonitorChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onTransition(listener: (t: Transition) => void): () => void {
    this.transitionListeners.add(listener);
    return () => this.transitionListeners.delete(listener);
  }

  /** Replaces the option values that settings control (spacing, reach, event stream, quota walls, tool ceiling; tests: min spacing). */
  updateOptions(patch: Partial<MonitorSettingOptions & { minSpacingMs: number }>): void {
    // A change to what a verdict is read from makes the samples kept so far incomparable.
    const historyChanged = (['spacingMs', 'minSpacingMs', 'toolCeilingMs', 'retryWaitMs'] as const).some(
      (k) => patch[k] !== undefined && patch[k] !== this.options[k],
    );
    this.options = { ...this.options, ...patch };
    for (const rt of this.runtimes.values()) {
      if (historyChanged) rt.history.clear();
      if (patch.markMaxAgeMs !== undefined) rt.marks.setMaxAgeMs(patch.markMaxAgeMs);
      if (patch.useEventStream !== undefined) this.syncEvents(rt);
    }
  }

  /** Sets the backends; keeps the state of those that stay, drops the others. */
  setBackends(configs: BackendConfig[]): void {
    const next = new Map<string, BackendRuntime>();
    for (const config of configs) {
      const old = this.runtimes.get(config.key);
      if (old && sameConfig(old.state.config, config)) {
        next.set(config.key, old);
        continue;
      }
      if (old) closeRuntime(old);
      next.set(config.key, newRuntime(config, undefined, this.clock, this.options.markMaxAgeMs));
    }
    for (const [key, rt] of this.runtimes) if (!next.has(key)) closeRuntime(rt);
    this.runtimes = next;
    this.rowsCache = null;
    this.emit({ structural: [...next.keys()], rows: [], providers: true });
    if (this.active) void this.refresh();
  }

  /** Credentials changed for a backend: rebuild its client and sample it now. */
  resetClient(backendKey: string): void {
    const rt = this.runtimes.get(backendKey);
    if (!rt) return;
    closeRuntime(rt);
    const fresh = newRuntime(rt.state.config, rt.marks, this.clock, this.options.markMaxAgeMs);
    fresh.history = rt.history;
    fresh.badges = rt.badges;
    this.runtimes.set(backendKey, fresh);
    this.rowsCache = null;
    if (this.active) void this.backendRound(fresh, true);
  }

  /** The backend's client (created on first use), for the actions; it shares the monitor's quota marks. */
  async client(backendKey: string): Promise<BackendClient> {
    const rt = this.runtimes.get(backendKey);
    if (!rt) throw new Error(`backend ${backendKey} is not configured`);
    return this.clientFor(rt);
  }

  /** The shortest spacing a verdict accepts (the spec's 30 s; only tests lower it). */
  minSpacingMs(): number {
    return this.options.minSpacingMs ?? MIN_SPACING_MS;
  }

  backends(): BackendState[] {
    return [...this.runtimes.values()].map((rt) => rt.state);
  }

  backend(key: string): BackendState | undefined {
    return this.runtimes.get(key)?.state;
  }

  /** All rows, across backends (rebuilt only after rows changed; do not mutate). */
  rows(): SessionRow[] {
    if (!this.rowsCache) {
      this.rowsCache = this.backends().flatMap((b) => b.directories.flatMap((d) => d.rows));
      this.rowIndex = null;
    }
    return this.rowsCache;
  }

  /** The row with this key (SessionRow.key), from an index rebuilt only after rows changed. */
  row(key: string): SessionRow | undefined {
    const rows = this.rows();
    this.rowIndex ??= new Map(rows.map((r) => [r.key, r]));
    return this.rowIndex.get(key);
  }

  stats(): MonitorStats {
    let timers = 0;
    let streams = 0;
    let clients = 0;
    for (const rt of this.runtimes.values()) {
      timers += rt.nudges.size + (rt.timer !== undefined ? 1 : 0);
      if (rt.events) streams += rt.activity.size;
      if (rt.client) clients++;
    }
    return { ...this.counters, timers, streams, clients };
  }

  get isActive(): boolean {
    return this.active;
  }

  /** Sampling runs only while active; turning it on samples at once. */
  setActive(active: boolean): void {
    if (this.disposed || active === this.active) return;
    this.active = active;
    if (active) {
      void this.refresh();
    } else {
      for (const rt of this.runtimes.values()) {
        this.clock.clearTimeout(rt.timer);
        rt.timer = undefined;
      }
    }
    for (const rt of this.runtimes.values()) this.syncEvents(rt);
  }

  /** One round over every backend now (each coalesced with its round in flight), then each reschedules. */
  refresh(forceProviders = false): Promise<void> {
    return Promise.all([...this.runtimes.values()].map((rt) => this.backendRound(rt, forceProviders))).then(
      () => undefined,
    );
  }

  /**
   * An event said something happened in this directory: sample it soon. With a session id, only
   * that session is re-sampled (with the list); without one, or for a session not listed yet, the
   * whole directory. Nudges within the delay are coalesced.
   */
  nudge(backendKey: string, directory: string, sessionId: string | null = null): void {
    const rt = this.runtimes.get(backendKey);
    if (!rt || !this.active || rt.closed) return;
    const known = sessionId !== null && rt.badges.has(directorySessionKey(directory, sessionId));
    const pending = rt.nudges.get(directory);
    if (pending) {
      if (!known) pending.sessions = null;
      else pending.sessions?.add(sessionId);
      return;
    }
    const entry = {
      sessions: known ? new Set([sessionId]) : null,
      timer: this.clock.setTimeout(() => {
        rt.nudges.delete(directory);
        if (rt.closed) return;
        // A sample in flight read the backend before this event: this one queues after it.
        void this.sampleDirectory(rt, directory, entry.sessions);
      }, this.options.nudgeDelayMs ?? 150),
    };
    rt.nudges.set(directory, entry);
  }

  dispose(): void {
    this.disposed = true;
    this.active = false;
    for (const rt of this.runtimes.values()) closeRuntime(rt);
    this.listeners.clear();
    this.transitionListeners.clear();
  }

  // ---- internals ---------------------------------------------------------------------------

  private async clientFor(rt: BackendRuntime): Promise<BackendClient> {
    if (rt.closed) throw new StaleRuntime();
    if (!rt.client) {
      const credentials = await this.options.getCredentials(rt.state.config);
      // Replaced while the credentials were read: a client made now would never be closed.
      if (rt.closed) throw new StaleRuntime();
      rt.client ??= this.options.createClient(rt.state.config, credentials, rt.marks);
    }
    return rt.client;
  }

  private historyFor(rt: BackendRuntime, directory: string): SampleHistory {
    let h = rt.history.get(directory);
    if (!h) {
      h = new SampleHistory({
        spacingMs: this.options.spacingMs,
        minSpacingMs: this.options.minSpacingMs ?? MIN_SPACING_MS,
        toolCeilingMs: this.options.toolCeilingMs,
        retryWaitMs: this.options.retryWaitMs,
      });
      rt.history.set(directory, h);
    }
    return h;
  }

  /** One round of this backend (joined when one runs); its next one is scheduled a spacing after it ends. */
  private backendRound(rt: BackendRuntime, forceProviders = false): Promise<void> {
    if (forceProviders) rt.providerRefresh = true;
    rt.round ??= (async () => {
      this.clock.clearTimeout(rt.timer);
      rt.timer = undefined;
      this.counters.rounds++;
      try {
        await Promise.all(rt.state.config.directories.map((d) => this.sampleDirectory(rt, d)));
      } finally {
        rt.round = undefined;
        if (this.active && !this.disposed && !rt.closed)
          rt.timer = this.clock.setTimeout(() => void this.backendRound(rt), this.options.spacingMs);
      }
    })();
    return rt.round;
  }

  /**
   * Samples a directory (whole, or only `sessionIds`), one sample at a time per directory: a whole
   * sample joins a whole one queued or running; anything else queues after what runs.
   */
  private sampleDirectory(rt: BackendRuntime, directory: string, sessionIds: Set<string> | null = null): Promise<void> {
    const existing = rt.inFlight.get(directory);
    if (existing && sessionIds === null && !existing.partial) return existing.run;
    const start = () => (rt.closed ? undefined : this.doSampleDirectory(rt, directory, sessionIds));
    const run: Promise<void> = (existing ? existing.run.then(start, start) : Promise.resolve(start())).finally(() => {
      if (rt.inFlight.get(directory)?.run === run) rt.inFlight.delete(directory);
    });
    rt.inFlight.set(directory, { run, partial: sessionIds !== null });
    return run;
  }

  private async doSampleDirectory(
    rt: BackendRuntime,
    directory: string,
    sessionIds: Set<string> | null,
  ): Promise<void> {
    if (rt.sampling.has(directory)) this.counters.overlaps++;
    rt.sampling.add(directory);
    if (sessionIds) this.counters.partialSamples++;
    else this.counters.samples++;
    try {
      await this.sampleDirectoryNow(rt, directory, sessionIds);
    } finally {
      rt.sampling.delete(directory);
    }
  }

  /**
   * One sample of a directory (health/sampleDirectoryOnce: the step the CLI's loop takes too), with
   * the provider listing read beside it, turned into the directory's rows; listeners hear what changed.
   */
  private async sampleDirectoryNow(
    rt: BackendRuntime,
    directory: string,
    sessionIds: Set<string> | null,
  ): Promise<void> {
    const key = rt.state.config.key;
    const dirState = rt.state.directories.find((d) => d.directory === directory);
    if (!dirState) return;
    const wasStatus = rt.state.status;
    const hadError = dirState.error;
    const history = this.historyFor(rt, directory);
    let round;
    let providers: ProviderRead;
    try {
      const client = await this.clientFor(rt);
      const sampling = sampleDirectoryOnce(client, directory, history, {
        activity: rt.events ? rt.activity.get(directory) : undefined,
        sessionIds: sessionIds ?? undefined,
        marks: rt.marks,
        retryWaitMs: this.options.retryWaitMs,
        stale: () => rt.closed,
        ledger: ledgerFor(rt, directory),
      });
      // The provider listing is read in parallel with the sample round, asked once the round's session
      // list is under way: a client that does not know the dialect yet waits for the sign it gives
      // (stock opencode's connected providers instead of its whole catalogue).
      providers = readProviders(
        rt,
        Promise.resolve(client),
        directory,
        this.now(),
        this.options.providerMaxAgeMs ?? 5 * 60_000,
      );
      round = await sampling;
      if (round === null) return;
      rt.state.dialect = round.dialect ?? rt.state.dialect;
    } catch (err) {
      if (rt.closed || err instanceof StaleRuntime) return;
      const message = describeError(err);
      dirState.error = message;
      // The backend as a whole is in error when every directory is.
      if (rt.state.directories.every((d) => d.error !== null)) {
        rt.state.status = 'error';
        rt.state.error = message;
      }
      if (wasStatus !== rt.state.status || hadError !== message) {
        this.options.log?.('warn', `${rt.state.config.baseUrl} (${directory}): ${message}`);
        this.emit({ structural: [key], rows: [], providers: false });
      }
      return;
    }
    dirState.error = null;
    rt.state.status = 'ok';
    rt.state.error = null;
    rt.state.lastRoundAt = round.at;
    this.syncEvents(rt);

    const now = this.now();
    const providersChanged = await storeProviders(rt, providers, now, describeError);
    if (providersChanged === null) return;

    history.prune(now);
    const listed = round.partial ? null : listedIds(round);
    const spent = rt.spend.observe({ directory, samples: round.samples, listed }, now);
    if (spent.length > 0) {
      rt.state.spend = rt.spend.providers(now);
      this.options.onSpend?.(key, spent);
    }
    const listing = rt.state.providers ?? EMPTY_LISTING;
    const assess = {
      now,
      resetWithinReachMs: this.options.resetWithinReachMs,
      providers: this.options.providers,
      minSpacingMs: this.options.minSpacingMs ?? MIN_SPACING_MS,
      retryWaitMs: this.options.retryWaitMs,
      toolCeilingMs: this.options.toolCeilingMs,
    };
    // A large directory's rows are built in slices, a turn of the event loop apart, so that no
    // stretch of the event loop assesses more than ROWS_PER_SLICE sessions; then committed at once.
    let sampled: SessionRow[] | undefined;
    if (round.samples.length > ROWS_PER_SLICE) {
      sampled = [];
      const before = rowsById(dirState.rows);
      for (let from = 0; from < round.samples.length; from += ROWS_PER_SLICE) {
        if (from > 0) {
          await (this.options.nextTurn ?? nextTurn)();
          if (rt.closed) return;
        }
        buildRows(
          round,
          history,
          { backendKey: key, listing, assess },
          directory,
          before,
          from,
          from + ROWS_PER_SLICE,
          sampled,
        );
      }
    }
    const client = rt.client;
    const update = updateDirectoryRows(
      dirState,
      round,
      history,
      {
        backendKey: key,
        listing,
        assess,
        badges: rt.badges,
        budgetUsd: this.options.budgetUsd ?? 0,
        budgets: rt.budgets,
        todos: rt.todos,
        readTodos: client?.capabilities?.todos ? (id) => this.readTodos(rt, client, directory, id) : null,
        onTransition: (t) => {
          for (const l of this.transitionListeners) l(t);
        },
      },
      sampled,
    );
    if (update.needsWholeSample) void this.sampleDirectory(rt, directory);
    this.rowsCache = null;
    if (update.newWall) rt.providerRefresh = true;
    const { setChanged, changedRows } = update;
    const statusChanged = wasStatus !== 'ok' || hadError !== null || update.truncationChanged;
    if (setChanged || statusChanged || changedRows.length > 0 || providersChanged) {
      this.emit({
        structural: setChanged || statusChanged ? [key] : [],
        rows: setChanged ? [] : changedRows,
        providers: providersChanged,
      });
    }
  }

  private syncEvents(rt: BackendRuntime): void {
    const want =
      this.active &&
      !this.disposed &&
      !rt.closed &&
      this.options.useEventStream &&
      rt.client?.capabilities?.events === true;
    const key = rt.state.config.key;
    syncEventStreams(rt, want, {
      onEvent: (directory: string, e: BackendEvent) => {
        if (e.type === 'todo.updated' && e.sessionID) this.onTodos(rt, directory, e.sessionID, e.todos ?? null);
        if (isNudge(e)) this.nudge(key, directory, e.sessionID);
      },
      onError: (err: unknown) =>
        this.options.log?.('warn', `event stream ${rt.state.config.baseUrl}: ${describeError(err)}`),
    });
  }

  /** Reads a session's todo list once (when first seen); later updates come with todo.updated. */
  private readTodos(rt: BackendRuntime, client: BackendClient, directory: string, id: string): void {
    const hkey = directorySessionKey(directory, id);
    rt.todos.set(hkey, null);
    client.todos(directory, id, { timeoutMs: 15_000 }).then(
      (todos) => this.onTodos(rt, directory, id, todos),
      (err: unknown) => this.options.log?.('info', `todo list of ${id} not read: ${describeError(err)}`),
    );
  }

  /** New todo progress for a session: update its row at once (no sampling round needed). */
  private onTodos(rt: BackendRuntime, directory: string, id: string, todos: TodoProgress | null): void {
    const hkey = directorySessionKey(directory, id);
    if (todos === null && rt.todos.get(hkey)) return;
    rt.todos.set(hkey, todos);
    const dir = rt.state.directories.find((d) => d.directory === directory);
    const i = dir?.rows.findIndex((r) => r.id === id) ?? -1;
    if (!dir || i < 0) return;
    const row = { ...dir.rows[i], todos };
    if (sameRow(row, dir.rows[i])) return;
    dir.rows[i] = row;
    this.rowsCache = null;
    this.emit({ structural: [], rows: [row], providers: false });
  }

  private emit(change: MonitorChange): void {
    for (const l of this.listeners) l(change);
  }
}
