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
import {
  ActivityCounter,
  BackendError,
  QuotaMarkBook,
  readEventStream,
  readGlobalEventStream,
  type BackendClient,
  type BackendEvent,
  type GlobalBackendEvent,
  type EventStreamState,
  type SampleRound,
} from '../backend';
import type { BackendConfig } from '../config/backends';
import { directorySessionKey, joinKey } from '../ids';
import type { MonitorSettings } from '../settings/operator-settings';
import { allFreeAt, assessSession, MIN_SPACING_MS, recordWalls, SampleHistory, unreadableAssessment } from '../health';
import type { Dialect, EpochMs, ProviderListing, SessionSample, TodoProgress } from '../model';
import { orderByParent, type Badge, type SessionRow } from './row';
import { sameRow } from './same-row';
import { toRow } from './to-row';

export { badgeOf } from './to-row';

export interface MonitorCredentials {
  username: string;
  password: string;
}

/**
 * The operator settings (src/core/settings/operator-settings.ts) in milliseconds; those marked
 * optional fall back to the model's defaults. `providers` absent or null: any connected provider.
 */
type MonitorSettingOptions = Pick<MonitorSettings, 'spacingMs' | 'resetWithinReachMs' | 'useEventStream'> &
  Partial<Pick<MonitorSettings, 'retryWaitMs' | 'markMaxAgeMs' | 'toolCeilingMs'>> & {
    providers?: MonitorSettings['providers'] | null;
  };

export interface MonitorOptions extends MonitorSettingOptions {
  /** Builds a client; pass `marks` on as BackendClientOptions.marks so no quota mark is forgotten. */
  createClient: (
    config: BackendConfig,
    credentials: MonitorCredentials | undefined,
    marks: QuotaMarkBook,
  ) => BackendClient;
  getCredentials: (config: BackendConfig) => Promise<MonitorCredentials | undefined>;
  /** Shortest spacing a verdict accepts (the spec's 30 s; only tests lower it). */
  minSpacingMs?: number;
  /** How long a provider listing is reused (stock opencode sends ~6.4 MB). Default 5 min. */
  providerMaxAgeMs?: number;
  /** Coalescing delay for event nudges. Default 150 ms. */
  nudgeDelayMs?: number;
  now?: () => EpochMs;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
}

export interface DirectoryState {
  directory: string;
  rows: SessionRow[];
  error: string | null;
  /** Sessions whose newest message could not be read this round. */
  partialErrors: Array<{ sessionId: string; message: string }>;
  /** The last whole round listed more sessions than are sampled per directory per round (src/core/backend/limits.ts). */
  truncated: { listed: number; kept: number } | null;
}

export interface BackendState {
  config: BackendConfig;
  status: 'loading' | 'ok' | 'error';
  error: string | null;
  dialect: Dialect | null;
  directories: DirectoryState[];
  providers: ProviderListing | null;
  providersError: string | null;
  allFreeAt: EpochMs | null;
  eventStream: EventStreamState | null;
  lastRoundAt: EpochMs | null;
}

/** `waiting`: a session turned to wait for a person (a new permission or question): notify once. */
export type TransitionKind = 'hung' | 'waiting' | 'quota-wall' | 'report';

export interface Transition {
  kind: TransitionKind;
  row: SessionRow;
}

export interface MonitorChange {
  /** Backends whose structure (directories, session set, status) changed: re-render the subtree. */
  structural: string[];
  /** Rows whose content changed. */
  rows: SessionRow[];
  /** Providers changed. */
  providers: boolean;
}

/** Counters for the load run (bench/views --load) and the leak tests. */
export interface MonitorStats {
  /** Backend rounds started (scheduled or refresh()). */
  rounds: number;
  /** Directory samples started, whole (`samples`) and for named sessions (`partialSamples`). */
  samples: number;
  partialSamples: number;
  /** A directory sample started while another of the same directory ran (must stay 0). */
  overlaps: number;
  /** Timers pending now: backend schedules and nudge delays. */
  timers: number;
  /** Event streams open now (one per directory of a backend with a stream). */
  streams: number;
  /** Clients created and not closed. */
  clients: number;
}

const EMPTY_LISTING: ProviderListing = { providers: [], connected: [] };

interface BackendRuntime {
  state: BackendState;
  client: BackendClient | null;
  /** Per directory: the recent samples of its sessions. */
  history: Map<string, SampleHistory>;
  /** Quota marks of a backend without quota objects; handed to every client of this backend. */
  marks: QuotaMarkBook;
  /** Set when the runtime was replaced or the monitor disposed: late work must not touch it. */
  closed: boolean;
  badges: Map<string, Badge>;
  events: AbortController | null;
  /** Per directory: a pending nudge and what it re-samples (null: the whole directory). */
  nudges: Map<string, { timer: ReturnType<typeof setTimeout>; sessions: Set<string> | null }>;
  /** Per directory: the sample running or queued last (`partial`: for named sessions). */
  inFlight: Map<string, { run: Promise<void>; partial: boolean }>;
  /** Directories being sampled right now (the overlap guard). */
  sampling: Set<string>;
  /** The backend's own schedule: its next round, and the round running. */
  timer: ReturnType<typeof setTimeout> | undefined;
  round: Promise<void> | undefined;
  providersAt: EpochMs;
  providerRefresh: boolean;
  /** Output events seen on the event stream per directory: a live signal between two samples. */
  activity: Map<string, ActivityCounter>;
  /** Todo progress per session (directory + id), read when first seen and on todo.updated events. */
  todos: Map<string, TodoProgress | null>;
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
  private readonly now: () => EpochMs;

  constructor(private options: MonitorOptions) {
    this.now = options.now ?? Date.now;
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
      if (old) this.closeRuntime(old);
      next.set(config.key, this.newRuntime(config));
    }
    for (const [key, rt] of this.runtimes) if (!next.has(key)) this.closeRuntime(rt);
    this.runtimes = next;
    this.rowsCache = null;
    this.emit({ structural: [...next.keys()], rows: [], providers: true });
    if (this.active) void this.refresh();
  }

  /** Credentials changed for a backend: rebuild its client and sample it now. */
  resetClient(backendKey: string): void {
    const rt = this.runtimes.get(backendKey);
    if (!rt) return;
    this.closeRuntime(rt);
    const fresh = this.newRuntime(rt.state.config, rt.marks);
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
        clearTimeout(rt.timer);
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
      timer: setTimeout(() => {
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
    for (const rt of this.runtimes.values()) this.closeRuntime(rt);
    this.listeners.clear();
    this.transitionListeners.clear();
  }

  // ---- internals ---------------------------------------------------------------------------

  private newRuntime(config: BackendConfig, marks?: QuotaMarkBook): BackendRuntime {
    return {
      state: {
        config,
        status: 'loading',
        error: null,
        dialect: null,
        directories: config.directories.map((directory) => ({
          directory,
          rows: [],
          error: null,
          partialErrors: [],
          truncated: null,
        })),
        providers: null,
        providersError: null,
        allFreeAt: null,
        eventStream: null,
        lastRoundAt: null,
      },
      client: null,
      history: new Map(),
      marks: marks ?? new QuotaMarkBook(this.now, { maxAgeMs: this.options.markMaxAgeMs }),
      closed: false,
      badges: new Map(),
      events: null,
      nudges: new Map(),
      inFlight: new Map(),
      sampling: new Set(),
      timer: undefined,
      round: undefined,
      providersAt: 0,
      providerRefresh: true,
      activity: new Map(),
      todos: new Map(),
    };
  }

  private closeRuntime(rt: BackendRuntime): void {
    rt.closed = true;
    rt.events?.abort();
    rt.events = null;
    for (const n of rt.nudges.values()) clearTimeout(n.timer);
    rt.nudges.clear();
    clearTimeout(rt.timer);
    rt.timer = undefined;
    void rt.client?.close().catch(() => undefined);
    rt.client = null;
  }

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
      clearTimeout(rt.timer);
      rt.timer = undefined;
      this.counters.rounds++;
      try {
        await Promise.all(rt.state.config.directories.map((d) => this.sampleDirectory(rt, d)));
      } finally {
        rt.round = undefined;
        if (this.active && !this.disposed && !rt.closed)
          rt.timer = setTimeout(() => void this.backendRound(rt), this.options.spacingMs);
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

  private async sampleDirectoryNow(
    rt: BackendRuntime,
    directory: string,
    sessionIds: Set<string> | null,
  ): Promise<void> {
    const key = rt.state.config.key;
    const dirState = rt.state.directories.find((d) => d.directory === directory);
    if (!dirState) return;
    let round: SampleRound;
    const wasStatus = rt.state.status;
    const hadError = dirState.error;
    // The provider listing (at start, on demand, after a new quota wall, when old) is read in
    // parallel with the sample round: stock opencode's is ~6.4 MB and must not delay the rows.
    const needProviders =
      rt.providerRefresh || this.now() - rt.providersAt > (this.options.providerMaxAgeMs ?? 5 * 60_000);
    const providersRead = this.clientFor(rt).then((c) =>
      c.listProviders(directory, needProviders ? {} : { maxAgeMs: Number.MAX_SAFE_INTEGER }),
    );
    providersRead.catch(() => undefined);
    let client: BackendClient;
    try {
      client = await this.clientFor(rt);
      const activity = rt.events ? rt.activity.get(directory) : undefined;
      round = await client.sampleRound(directory, {
        ...(activity ? { activity } : {}),
        ...(sessionIds ? { sessionIds } : {}),
      });
      if (rt.closed) return;
      if (!round.partial) activity?.retain(listedIds(round));
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

    if (client.capabilities?.quotaObjects === false)
      recordWalls(rt.marks, round.samples, { retryWaitMs: this.options.retryWaitMs });
    const now = this.now();
    let providersChanged: boolean;
    try {
      const listing = await providersRead;
      if (rt.closed) return;
      if (needProviders) {
        rt.providersAt = now;
        rt.providerRefresh = false;
      }
      providersChanged =
        listing !== rt.state.providers && JSON.stringify(listing) !== JSON.stringify(rt.state.providers);
      rt.state.providers = listing;
      rt.state.providersError = null;
      rt.state.allFreeAt = allFreeAt(listing);
    } catch (err) {
      if (rt.closed) return;
      const message = describeError(err);
      providersChanged = rt.state.providersError !== message;
      rt.state.providersError = message;
    }

    const listing = rt.state.providers ?? EMPTY_LISTING;
    const seen = new Set<string>();
    const changedRows: SessionRow[] = [];
    const before = new Map(dirState.rows.map((r) => [r.id, r]));
    const rows: SessionRow[] = [];
    let newWall = false;
    const history = this.historyFor(rt, directory);
    history.add(...round.samples);
    if (!round.partial) history.retain(listedIds(round));
    history.prune(now);
    const assessOptions = {
      now,
      resetWithinReachMs: this.options.resetWithinReachMs,
      providers: this.options.providers,
      minSpacingMs: this.options.minSpacingMs ?? MIN_SPACING_MS,
      retryWaitMs: this.options.retryWaitMs,
      toolCeilingMs: this.options.toolCeilingMs,
    };
    const built: SessionRow[] = round.samples.map((sample) => {
      const baseline = history.baseline(sample);
      const assessment = assessSession(baseline ? [baseline, sample] : [sample], listing, assessOptions);
      return toRow({
        backendKey: key,
        directory,
        assessment,
        baseline,
        latest: sample,
        history: history.samples(sample.session.id),
        listing,
      });
    });
    // A session whose newest message could not be read (vanished, or the read failed): unknown, with the reason.
    for (const u of round.unreadable) {
      const latest: SessionSample = { at: u.at, session: u.session, newest: null };
      built.push(
        toRow({
          backendKey: key,
          directory,
          assessment: unreadableAssessment(u.session, u.error.message),
          baseline: null,
          latest,
          history: [],
          listing,
        }),
      );
    }
    for (const row of built) {
      const id = row.id;
      seen.add(id);
      const hkey = directorySessionKey(directory, id);
      if (rt.client?.capabilities?.todos && !rt.todos.has(hkey)) this.readTodos(rt, rt.client, directory, id);
      row.todos = rt.todos.get(hkey) ?? null;
      const prev = before.get(id);
      if (!prev || !sameRow(prev, row)) changedRows.push(row);
      const prevBadge = rt.badges.get(hkey);
      if (prevBadge !== undefined && prevBadge !== row.badge) {
        const kind: TransitionKind | null =
          row.badge === 'hung'
            ? 'hung'
            : row.badge === 'waiting'
              ? 'waiting'
              : row.badge === 'quota-wall'
                ? 'quota-wall'
                : row.badge.startsWith('report-')
                  ? 'report'
                  : null;
        if (kind) for (const l of this.transitionListeners) l({ kind, row });
      }
      if (row.quotaWall && (!prev || !prev.quotaWall)) newWall = true;
      rt.badges.set(hkey, row.badge);
      rows.push(row);
    }
    let setChanged: boolean;
    let truncationChanged = false;
    if (round.partial) {
      // Named sessions only: the others keep their rows; a session added or gone since the last
      // whole sample needs one (queued after this sample).
      const byId = new Map(rows.map((r) => [r.id, r]));
      const listedList = listedIds(round);
      const listed = new Set(listedList);
      const kept = dirState.rows.filter((r) => listed.has(r.id) || byId.has(r.id)).map((r) => byId.get(r.id) ?? r);
      const listChanged = listedList.length !== before.size || listedList.some((id) => !before.has(id));
      if (listChanged) void this.sampleDirectory(rt, directory);
      dirState.partialErrors = [
        ...dirState.partialErrors.filter((e) => !seen.has(e.sessionId)),
        ...round.errors.map((e) => ({ sessionId: e.sessionId, message: e.error.message })),
      ];
      setChanged = kept.length !== before.size || kept.some((r) => !before.has(r.id));
      dirState.rows = orderByParent(kept);
    } else {
      dirState.partialErrors = round.errors.map((e) => ({ sessionId: e.sessionId, message: e.error.message }));
      const truncated = round.truncated ?? null;
      if (truncated?.listed !== dirState.truncated?.listed || truncated?.kept !== dirState.truncated?.kept)
        truncationChanged = true;
      dirState.truncated = truncated;
      for (const id of before.keys()) {
        if (seen.has(id)) continue;
        rt.badges.delete(directorySessionKey(directory, id));
        rt.todos.delete(directorySessionKey(directory, id));
      }
      setChanged = rows.length !== before.size || rows.some((r) => !before.has(r.id));
      dirState.rows = orderByParent(rows);
    }
    this.rowsCache = null;
    if (newWall) rt.providerRefresh = true;
    const statusChanged = wasStatus !== 'ok' || hadError !== null || truncationChanged;
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
    if (!want) {
      if (rt.events) {
        rt.events.abort();
        rt.events = null;
        rt.state.eventStream = 'stopped';
      }
      return;
    }
    if (rt.events) return;
    const controller = new AbortController();
    rt.events = controller;
    const client = rt.client!;
    const key = rt.state.config.key;
    const directories = rt.state.config.directories;
    for (const directory of directories) rt.activity.set(directory, new ActivityCounter());
    const onDirectoryEvent = (directory: string, e: BackendEvent) => {
      rt.activity.get(directory)?.onEvent(e);
      if (e.type === 'todo.updated' && e.sessionID) this.onTodos(rt, directory, e.sessionID, e.todos ?? null);
      if (isNudge(e)) this.nudge(key, directory, e.sessionID);
    };
    const onState = (s: EventStreamState) => {
      rt.state.eventStream = s;
    };
    const fail = (err: unknown) =>
      this.options.log?.('warn', `event stream ${rt.state.config.baseUrl}: ${describeError(err)}`);
    const perDirectory = () => {
      for (const directory of directories) {
        void readEventStream(client.transport, {
          directory,
          signal: controller.signal,
          onEvent: (e) => onDirectoryEvent(directory, e),
          onState,
        }).catch(fail);
      }
    };
    if (!client.capabilities?.globalEvents) {
      perDirectory();
      return;
    }
    // One GET /global/event per backend; its events name their directory. A server without it
    // ('unsupported') falls back to one GET /event per directory.
    const byDirectory = new Map(directories.map((d) => [sameDirectoryKey(d), d]));
    void readGlobalEventStream(client.transport, {
      signal: controller.signal,
      onEvent: (g: GlobalBackendEvent) => {
        const directory = g.directory === null ? undefined : byDirectory.get(sameDirectoryKey(g.directory));
        if (directory !== undefined) onDirectoryEvent(directory, g.event);
      },
      onState: (s) => {
        onState(s);
        if (s === 'unsupported' && !controller.signal.aborted) perDirectory();
      },
    }).catch(fail);
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

/** Every session the round's list named. */
function listedIds(round: SampleRound): string[] {
  return round.listed ?? [...round.samples, ...round.unreadable].map((x) => x.session.id);
}

/** Directories compared without trailing separators. */
function sameDirectoryKey(directory: string): string {
  return directory.length > 1 ? directory.replace(/[\\/]+$/, '') : directory;
}

const NUDGES = new Set([
  'session.status',
  'session.idle',
  'session.error',
  'message.updated',
  'todo.updated',
  'session.created',
  'session.deleted',
]);

/** Events that mean "sample this directory soon": state changes, and every permission.* / question.* event. */
export function isNudge(e: BackendEvent): boolean {
  return NUDGES.has(e.type) || e.type.startsWith('permission.') || e.type.startsWith('question.');
}

function sameConfig(a: BackendConfig, b: BackendConfig): boolean {
  return a.baseUrl === b.baseUrl && a.name === b.name && joinKey(...a.directories) === joinKey(...b.directories);
}

export function describeError(err: unknown): string {
  if (err instanceof BackendError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

/** Thrown inside the monitor when a runtime was replaced during an await. */
class StaleRuntime extends Error {
  constructor() {
    super('backend runtime replaced');
  }
}
