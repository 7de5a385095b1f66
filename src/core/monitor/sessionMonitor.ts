// The session monitor: samples every configured backend's sessions, keeps each session's recent
// samples, and turns them into SessionRows through the pure health core (assessSession). It
// decides nothing itself. Sampling runs only while `active` (a view is visible or an automatic
// action is armed); events from stock opencode's stream nudge a directory to be sampled sooner,
// while polling stays the source of truth and a verdict still needs two samples >= 30 s apart.
// Never imports 'vscode'.
import { ActivityCounter, BackendError, readEventStream, type BackendClient, type BackendEvent, type EventStreamState, type SampleRound } from '../backend';
import type { BackendConfig } from '../config/backends';
import { allFreeAt, assessSession, MIN_SPACING_MS } from '../health';
import type { Dialect, EpochMs, ProviderListing, SessionAssessment, SessionSample } from '../model';
import type { Badge, SampleEvidence, SessionRow } from './row';

export interface MonitorCredentials {
  username: string;
  password: string;
}

export interface MonitorOptions {
  createClient: (config: BackendConfig, credentials: MonitorCredentials | undefined) => BackendClient;
  getCredentials: (config: BackendConfig) => Promise<MonitorCredentials | undefined>;
  /** Scheduled spacing between sampling rounds (the setting: 30-60 s). */
  spacingMs: number;
  /** Shortest spacing a verdict accepts (the spec's 30 s; only tests lower it). */
  minSpacingMs?: number;
  resetWithinReachMs: number;
  useEventStream: boolean;
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

export type TransitionKind = 'hung' | 'quota-wall' | 'report';

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

const HISTORY_MS = 3 * 60_000;
const EMPTY_LISTING: ProviderListing = { providers: [], connected: [] };

interface BackendRuntime {
  state: BackendState;
  client: BackendClient | null;
  history: Map<string, SessionSample[]>;
  badges: Map<string, Badge>;
  events: AbortController | null;
  nudges: Map<string, ReturnType<typeof setTimeout>>;
  inFlight: Map<string, Promise<void>>;
  providersAt: EpochMs;
  providerRefresh: boolean;
  /** Output events seen on the event stream per directory: a live signal between two samples. */
  activity: Map<string, ActivityCounter>;
}

export class SessionMonitor {
  private runtimes = new Map<string, BackendRuntime>();
  private listeners = new Set<(c: MonitorChange) => void>();
  private transitionListeners = new Set<(t: Transition) => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private active = false;
  private running: Promise<void> | undefined;
  private disposed = false;
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

  /** Replaces the option values that settings control (spacing, reach, event stream; tests: min spacing). */
  updateOptions(patch: Partial<Pick<MonitorOptions, 'spacingMs' | 'minSpacingMs' | 'resetWithinReachMs' | 'useEventStream'>>): void {
    this.options = { ...this.options, ...patch };
    if (patch.useEventStream !== undefined) for (const rt of this.runtimes.values()) this.syncEvents(rt);
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
    this.emit({ structural: [...next.keys()], rows: [], providers: true });
    if (this.active) void this.refresh();
  }

  /** Credentials changed for a backend: rebuild its client and sample it now. */
  resetClient(backendKey: string): void {
    const rt = this.runtimes.get(backendKey);
    if (!rt) return;
    this.closeRuntime(rt);
    const fresh = this.newRuntime(rt.state.config);
    fresh.history = rt.history;
    fresh.badges = rt.badges;
    this.runtimes.set(backendKey, fresh);
    if (this.active) void this.sampleBackend(fresh, true);
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

  /** All rows, across backends. */
  rows(): SessionRow[] {
    return this.backends().flatMap((b) => b.directories.flatMap((d) => d.rows));
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
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    for (const rt of this.runtimes.values()) this.syncEvents(rt);
  }

  /** One round over every backend now (coalesced with a round in flight), then reschedule. */
  refresh(forceProviders = false): Promise<void> {
    if (forceProviders) for (const rt of this.runtimes.values()) rt.providerRefresh = true;
    this.running ??= (async () => {
      clearTimeout(this.timer);
      try {
        await Promise.all([...this.runtimes.values()].map((rt) => this.sampleBackend(rt)));
      } finally {
        this.running = undefined;
        if (this.active && !this.disposed) this.timer = setTimeout(() => void this.refresh(), this.options.spacingMs);
      }
    })();
    return this.running;
  }

  /** An event said something happened in this directory: sample it soon. */
  nudge(backendKey: string, directory: string): void {
    const rt = this.runtimes.get(backendKey);
    if (!rt || !this.active || rt.nudges.has(directory)) return;
    rt.nudges.set(
      directory,
      setTimeout(() => {
        rt.nudges.delete(directory);
        // A sample already in flight read the backend before this event: sample again after it.
        const running = rt.inFlight.get(directory);
        if (running) void running.then(() => this.sampleDirectory(rt, directory));
        else void this.sampleDirectory(rt, directory);
      }, this.options.nudgeDelayMs ?? 150),
    );
  }

  dispose(): void {
    this.disposed = true;
    this.active = false;
    clearTimeout(this.timer);
    for (const rt of this.runtimes.values()) this.closeRuntime(rt);
    this.listeners.clear();
    this.transitionListeners.clear();
  }

  // ---- internals ---------------------------------------------------------------------------

  private newRuntime(config: BackendConfig): BackendRuntime {
    return {
      state: {
        config,
        status: 'loading',
        error: null,
        dialect: null,
        directories: config.directories.map((directory) => ({ directory, rows: [], error: null, partialErrors: [] })),
        providers: null,
        providersError: null,
        allFreeAt: null,
        eventStream: null,
        lastRoundAt: null,
      },
      client: null,
      history: new Map(),
      badges: new Map(),
      events: null,
      nudges: new Map(),
      inFlight: new Map(),
      providersAt: 0,
      providerRefresh: true,
      activity: new Map(),
    };
  }

  private closeRuntime(rt: BackendRuntime): void {
    rt.events?.abort();
    rt.events = null;
    for (const t of rt.nudges.values()) clearTimeout(t);
    rt.nudges.clear();
    void rt.client?.close().catch(() => undefined);
    rt.client = null;
  }

  private async clientFor(rt: BackendRuntime): Promise<BackendClient> {
    if (!rt.client) {
      const credentials = await this.options.getCredentials(rt.state.config);
      rt.client ??= this.options.createClient(rt.state.config, credentials);
    }
    return rt.client;
  }

  private async sampleBackend(rt: BackendRuntime, forceProviders = false): Promise<void> {
    if (forceProviders) rt.providerRefresh = true;
    await Promise.all(rt.state.config.directories.map((d) => this.sampleDirectory(rt, d)));
  }

  private sampleDirectory(rt: BackendRuntime, directory: string): Promise<void> {
    const existing = rt.inFlight.get(directory);
    if (existing) return existing;
    const run = this.doSampleDirectory(rt, directory).finally(() => rt.inFlight.delete(directory));
    rt.inFlight.set(directory, run);
    return run;
  }

  private async doSampleDirectory(rt: BackendRuntime, directory: string): Promise<void> {
    const key = rt.state.config.key;
    const dirState = rt.state.directories.find((d) => d.directory === directory);
    if (!dirState) return;
    let round: SampleRound;
    const wasStatus = rt.state.status;
    const hadError = dirState.error;
    // The provider listing (at start, on demand, after a new quota wall, when old) is read in
    // parallel with the sample round: stock opencode's is ~6.4 MB and must not delay the rows.
    const needProviders = rt.providerRefresh || this.now() - rt.providersAt > (this.options.providerMaxAgeMs ?? 5 * 60_000);
    const providersRead = this.clientFor(rt).then((c) => c.listProviders(directory, needProviders ? {} : { maxAgeMs: Number.MAX_SAFE_INTEGER }));
    providersRead.catch(() => undefined);
    try {
      const client = await this.clientFor(rt);
      const activity = rt.events ? rt.activity.get(directory) : undefined;
      round = await client.sampleRound(directory, activity ? { activity } : {});
      activity?.retain(round.samples.map((x) => x.session.id));
      rt.state.dialect = round.dialect ?? rt.state.dialect;
    } catch (err) {
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
    let providersChanged: boolean;
    try {
      const listing = await providersRead;
      if (needProviders) {
        rt.providersAt = now;
        rt.providerRefresh = false;
      }
      providersChanged = JSON.stringify(listing) !== JSON.stringify(rt.state.providers);
      rt.state.providers = listing;
      rt.state.providersError = null;
      rt.state.allFreeAt = allFreeAt(listing);
    } catch (err) {
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
    for (const sample of round.samples) {
      const id = sample.session.id;
      seen.add(id);
      const hkey = `${directory}\u0000${id}`;
      const history = prune([...(rt.history.get(hkey) ?? []), sample], sample.at);
      rt.history.set(hkey, history);
      const minSpacing = this.options.minSpacingMs ?? MIN_SPACING_MS;
      const baseline = [...history].reverse().find((s) => s.at <= sample.at - minSpacing);
      const assessment = assessSession(baseline ? [baseline, sample] : [sample], listing, {
        now,
        resetWithinReachMs: this.options.resetWithinReachMs,
        minSpacingMs: minSpacing,
      });
      const row = toRow(key, directory, assessment, baseline ?? null, sample, history);
      const prev = before.get(id);
      if (!prev || JSON.stringify(prev) !== JSON.stringify(row)) changedRows.push(row);
      const prevBadge = rt.badges.get(hkey);
      if (prevBadge !== undefined && prevBadge !== row.badge) {
        const kind: TransitionKind | null = row.badge === 'hung' ? 'hung' : row.badge === 'quota-wall' ? 'quota-wall' : row.badge.startsWith('report-') ? 'report' : null;
        if (kind) for (const l of this.transitionListeners) l({ kind, row });
      }
      if (row.quotaWall && (!prev || !prev.quotaWall)) newWall = true;
      rt.badges.set(hkey, row.badge);
      rows.push(row);
    }
    // Sessions whose newest message failed this round keep their last row (marked stale).
    for (const e of round.errors) {
      const prev = before.get(e.sessionId);
      if (prev) rows.push(prev);
    }
    dirState.partialErrors = round.errors.map((e) => ({ sessionId: e.sessionId, message: e.error.message }));
    for (const id of round.vanished) {
      rt.history.delete(`${directory}\u0000${id}`);
      rt.badges.delete(`${directory}\u0000${id}`);
    }
    const setChanged = rows.length !== before.size || rows.some((r) => !before.has(r.id));
    dirState.rows = rows;
    if (newWall) rt.providerRefresh = true;
    const statusChanged = wasStatus !== 'ok' || hadError !== null;
    if (setChanged || statusChanged || changedRows.length > 0 || providersChanged) {
      this.emit({ structural: setChanged || statusChanged ? [key] : [], rows: setChanged ? [] : changedRows, providers: providersChanged });
    }
  }

  private syncEvents(rt: BackendRuntime): void {
    const want = this.active && !this.disposed && this.options.useEventStream && rt.state.dialect === 'opencode' && rt.client !== null;
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
    for (const directory of rt.state.config.directories) {
      const activity = new ActivityCounter();
      rt.activity.set(directory, activity);
      void readEventStream(client.transport, {
        directory,
        signal: controller.signal,
        onEvent: (e: BackendEvent) => {
          activity.onEvent(e);
          if (isNudge(e)) this.nudge(key, directory);
        },
        onState: (s) => {
          rt.state.eventStream = s;
        },
      }).catch((err: unknown) => this.options.log?.('warn', `event stream ${rt.state.config.baseUrl}: ${describeError(err)}`));
    }
  }

  private emit(change: MonitorChange): void {
    for (const l of this.listeners) l(change);
  }
}

const NUDGES = new Set(['session.status', 'session.idle', 'session.error', 'message.updated']);

export function isNudge(e: BackendEvent): boolean {
  return NUDGES.has(e.type);
}

function sameConfig(a: BackendConfig, b: BackendConfig): boolean {
  return a.baseUrl === b.baseUrl && a.name === b.name && a.directories.join('\u0000') === b.directories.join('\u0000');
}

function prune(history: SessionSample[], now: EpochMs): SessionSample[] {
  // Keep the recent window, and always the newest sample older than it (a baseline).
  const recent = history.filter((s) => s.at >= now - HISTORY_MS);
  const older = history.filter((s) => s.at < now - HISTORY_MS);
  return older.length > 0 ? [older[older.length - 1], ...recent] : recent;
}

export function describeError(err: unknown): string {
  if (err instanceof BackendError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

function evidence(s: SessionSample): SampleEvidence {
  return {
    at: s.at,
    state: s.session.state,
    stepCount: s.session.progress?.stepCount ?? null,
    lastStepAt: s.session.progress?.lastStepAt ?? null,
    newestId: s.newest?.id ?? null,
    newestRole: s.newest?.role ?? null,
  };
}

/** When the newest id or step count last changed, as far as the kept samples show. */
function lastMoved(history: SessionSample[], latest: SessionSample): EpochMs | null {
  const signal = (s: SessionSample) => `${s.newest?.id ?? ''}|${s.session.progress?.stepCount ?? ''}`;
  let movedAt: EpochMs | null = latest.session.progress?.lastStepAt ?? latest.newest?.completedAt ?? latest.newest?.createdAt ?? null;
  for (let i = 1; i < history.length; i++) {
    if (signal(history[i]) !== signal(history[i - 1])) movedAt = Math.max(movedAt ?? 0, history[i].at);
  }
  return movedAt;
}

export function badgeOf(a: SessionAssessment): Badge {
  if (a.report) return `report-${a.report.status}`;
  if (a.quotaWall) return 'quota-wall';
  return a.verdict ?? 'unknown';
}

function toRow(backendKey: string, directory: string, a: SessionAssessment, baseline: SessionSample | null, latest: SessionSample, history: SessionSample[]): SessionRow {
  const wall = a.quotaWall;
  return {
    key: `${backendKey}\u0000${directory}\u0000${a.id}`,
    backendKey,
    directory,
    id: a.id,
    title: a.title,
    badge: badgeOf(a),
    verdict: a.verdict,
    action: a.settled || a.report || wall ? a.decision.action : null,
    pending: a.verdict === null ? a.verdictBasis : null,
    state: a.state,
    stepCount: latest.session.progress?.stepCount ?? null,
    lastMovedAt: lastMoved(history, latest),
    model: latest.newest?.providerID && latest.newest.modelID ? `${latest.newest.providerID}/${latest.newest.modelID}` : null,
    quotaWall: wall ? { provider: wall.provider, reason: wall.reason, category: wall.category, resetAt: wall.resetAt } : null,
    report: a.report,
    failureText: latest.newest?.failure?.text ?? null,
    newestText: latest.newest?.text ?? null,
    evidence: { earlier: baseline ? evidence(baseline) : null, latest: evidence(latest) },
  };
}
