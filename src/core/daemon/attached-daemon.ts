// One `session-ops watch` daemon a window is attached to (sessionOps.daemons): its fleet read from
// `GET /api/fleet` and `GET /api/providers`, kept live by `GET /api/events` (`row`, `removed`,
// `outcome`, `alert`), shown as BackendStates the views render like a sampled backend's. This
// window samples nothing of that fleet: no request goes to its backends. While the daemon cannot
// be read (unreachable, 401 unknown token, 403, no token) it is one backend in error whose text
// says why, retried with exponential backoff on the one clock. The token's scope
// (`/api/whoami`) rides on each state (`attached.scope`) so a `read` token gets no act menus.
// Never imports 'vscode'.
import type { Clock } from '../clock';
import type { DaemonConfig } from '../config/daemons';
import { describeError } from '../error-message';
import { rowKey } from '../keys';
import { DIALECTS } from '../backend';
import type { Dialect, EpochMs } from '../model';
import type { ActedBy, SessionRow } from '../monitor/row';
import type { AttachedInfo, BackendState, DirectoryState, MonitorChange, Transition } from '../monitor/types';
import { DaemonApiError, DaemonClient, isObject, type DaemonWhoami } from './client';
import { backoffMs, DaemonEventStream, type DaemonEvent, type EventStreamOptions } from './event-stream';
import { ChangeCoalescer, COALESCE_MS } from './change-coalescer';
import { actedByOf, providerListing, providerRecords, reasonOf, rowOfFleetSession } from './fleet-rows';

export interface AttachedDaemonOptions {
  config: DaemonConfig;
  /** The daemon's token from the editor's secret storage, or null when none was set. */
  token: () => Promise<string | null>;
  clock: Clock;
  fetch?: typeof fetch;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  onChange: (change: MonitorChange) => void;
  /** A session turned to need a person (the daemon's `alert` event): the notifier's transitions. */
  onTransition?: (t: Transition) => void;
  /** Backoff between attempts to read the daemon: the first wait and the longest. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How often the providers are read again while attached (events carry no provider change). */
  providersEveryMs?: number;
  stream?: EventStreamOptions;
  /**
   * Row, removed and outcome events within this many ms reach the views as one change (a daemon
   * round's burst of events is one change, as the monitor's round is); 0: one change per event.
   */
  coalesceMs?: number;
}

/** The window's key of a daemon's backend: never the same as a directly sampled backend's (a URL). */
export function attachedBackendKey(daemonKey: string, remoteKey: string | null): string {
  return remoteKey === null ? `daemon:${daemonKey}` : `daemon:${daemonKey}#${remoteKey}`;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export class AttachedDaemon {
  private states: BackendState[];
  private who: DaemonWhoami | null = null;
  private client: DaemonClient | null = null;
  private stream: DaemonEventStream | null = null;
  private generation = 0;
  private running = false;
  private sleeping: AbortController | null = null;
  private attempt = 0;
  /** Events that came while the fleet was being read: applied after it. */
  private queued: DaemonEvent[] | null = null;
  /** Who acted last, per row key (the fleet's rows do not carry it). */
  private readonly acted = new Map<string, ActedBy>();
  private providersTimer: ReturnType<Clock['setTimeout']> | undefined;
  /** The daemon's name of each backend shown (audit entries name a backend by it), by the window's key. */
  private readonly remoteNames = new Map<string, string>();
  /** The event stream's changes, handed on in batches (coalesceMs). */
  private readonly changes: ChangeCoalescer;
  /** Reads made (tests, the bench): fleet and providers reads. */
  readonly counts = { fleetReads: 0, providerReads: 0, events: 0 };

  constructor(private readonly options: AttachedDaemonOptions) {
    this.states = [this.ownState('loading', null)];
    this.changes = new ChangeCoalescer(options.clock, options.coalesceMs ?? COALESCE_MS, (c) => this.emit(c));
  }

  get config(): DaemonConfig {
    return this.options.config;
  }

  /** The token's name and scope, once `/api/whoami` answered. */
  get whoami(): DaemonWhoami | null {
    return this.who;
  }

  /** The client acts go through (null until the daemon answered). */
  get actClient(): DaemonClient | null {
    return this.client;
  }

  backends(): readonly BackendState[] {
    return this.states;
  }

  /** Connects (and keeps connecting with backoff) until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    const gen = ++this.generation;
    void this.loop(gen);
  }

  stop(): void {
    this.running = false;
    this.generation++;
    this.stream?.close();
    this.stream = null;
    this.sleeping?.abort();
    this.options.clock.clearTimeout(this.providersTimer);
    this.providersTimer = undefined;
    this.changes.drop();
  }

  /** The token changed, or a person asked for a retry: connect afresh now. */
  restart(): void {
    this.stop();
    this.attempt = 0;
    this.start();
  }

  private live(gen: number): boolean {
    return this.running && gen === this.generation;
  }

  private async loop(gen: number): Promise<void> {
    const { clock } = this.options;
    const min = this.options.minBackoffMs ?? 1_000;
    const max = this.options.maxBackoffMs ?? 60_000;
    while (this.live(gen)) {
      let stopped: DaemonApiError;
      try {
        const token = await this.options.token();
        if (!this.live(gen)) return;
        if (!token)
          throw new DaemonApiError(
            'unauthenticated',
            'no token for this daemon (run Session Ops: Set Daemon Token...)',
          );
        const client = new DaemonClient({ url: this.config.url, token, clock, fetch: this.options.fetch });
        const who = await client.whoami();
        if (!this.live(gen)) return;
        this.client = client;
        this.who = who;
        stopped = await this.follow(client, gen);
      } catch (err) {
        stopped =
          err instanceof DaemonApiError ? err : new DaemonApiError('unreachable', describeError(err), null, null);
      }
      if (!this.live(gen)) return;
      let wait = backoffMs(this.attempt++, min, max);
      if (stopped.retryAfterSeconds !== null) wait = Math.max(wait, stopped.retryAfterSeconds * 1000);
      this.showError(stopped, wait);
      const sleep = new AbortController();
      this.sleeping = sleep;
      await clock.sleep(wait, sleep.signal).catch(() => undefined);
      if (this.sleeping === sleep) this.sleeping = null;
    }
  }

  /** Follows the event stream until it stops for good (401/403, or a fleet that cannot be read): that error. */
  private follow(client: DaemonClient, gen: number): Promise<DaemonApiError> {
    return new Promise((resolve) => {
      let ended: DaemonApiError | null = null;
      const stream = new DaemonEventStream(
        client,
        {
          onOpen: () => {
            this.queued = [];
            void this.reload(client, gen).then(
              () => {
                const queued = this.queued ?? [];
                this.queued = null;
                for (const e of queued) this.apply(e);
              },
              (err: unknown) => {
                this.queued = null;
                ended = err instanceof DaemonApiError ? err : new DaemonApiError('bad-answer', describeError(err));
                stream.close();
              },
            );
          },
          onEvent: (e) => {
            if (!this.live(gen)) return;
            this.counts.events++;
            if (this.queued) this.queued.push(e);
            else this.apply(e);
          },
          onError: (err, retryInMs) => {
            if (!this.live(gen)) return;
            if (retryInMs === null) ended = err;
            else this.showError(err, retryInMs);
          },
        },
        this.options.stream,
      );
      this.stream = stream;
      void stream
        .run()
        .then(() => resolve(ended ?? new DaemonApiError('unreachable', 'GET /api/events: the stream ended')));
    });
  }

  /** Reads the fleet and the providers afresh and replaces what is shown. */
  private async reload(client: DaemonClient, gen: number): Promise<void> {
    this.counts.fleetReads++;
    this.counts.providerReads++;
    const [fleet, providers] = await Promise.all([client.fleet(), client.providers()]);
    if (!this.live(gen)) return;
    this.attempt = 0;
    const byKey = new Map<string, Record<string, unknown>>();
    for (const p of providers.backends) if (isObject(p) && typeof p.key === 'string') byKey.set(p.key, p);
    const states: BackendState[] = [];
    for (const b of fleet.backends) {
      if (!isObject(b) || typeof b.key !== 'string') continue;
      states.push(this.backendState(b, byKey.get(b.key) ?? null));
    }
    this.states = states;
    this.changes.drop(); // the whole fleet is shown afresh
    this.emit({ structural: this.keys(), rows: [], providers: true });
    this.scheduleProviders(client, gen);
  }

  private keys(): string[] {
    return this.states.map((s) => s.config.key);
  }

  private info(remoteKey: string | null): AttachedInfo {
    return {
      daemonKey: this.config.key,
      daemonName: this.config.name,
      remoteKey,
      scope: this.who?.scope ?? null,
    };
  }

  private backendState(b: Record<string, unknown>, p: Record<string, unknown> | null): BackendState {
    const remoteKey = b.key as string;
    const key = attachedBackendKey(this.config.key, remoteKey);
    const name = str(b.name) ?? remoteKey;
    this.remoteNames.set(key, name);
    const directories: DirectoryState[] = [];
    for (const d of Array.isArray(b.directories) ? b.directories : []) {
      if (!isObject(d) || typeof d.directory !== 'string') continue;
      directories.push(this.directoryState(key, d));
    }
    const listing = p ? providerListing(p.providers) : null;
    const up = b.up === true;
    return {
      config: {
        key,
        name: `${name} (daemon ${this.config.name})`,
        baseUrl: str(b.baseUrl) ?? remoteKey,
        directories: directories.map((d) => d.directory),
        insecure: false,
      },
      attached: this.info(remoteKey),
      status: up ? 'ok' : str(b.error) ? 'error' : 'loading',
      error: up ? null : str(b.error),
      dialect: knownDialect(b.dialect),
      directories,
      providers: listing,
      providersError: p ? str(p.error) : null,
      allFreeAt: p && typeof p.allFreeAt === 'number' ? p.allFreeAt : null,
      eventStream: null,
      lastRoundAt: typeof b.lastRoundAt === 'number' ? b.lastRoundAt : null,
    };
  }

  private directoryState(backendKey: string, d: Record<string, unknown>): DirectoryState {
    const directory = d.directory as string;
    const sampled = Array.isArray(d.sampledAt) ? d.sampledAt.filter((t): t is number => typeof t === 'number') : [];
    const sampledAt: EpochMs = sampled.length ? Math.max(...sampled) : this.options.clock.now();
    const providers = providerRecords(d.providers);
    const rows: SessionRow[] = [];
    for (const s of Array.isArray(d.sessions) ? d.sessions : []) {
      const id = isObject(s) ? str(s.id) : null;
      const acted = id ? this.acted.get(rowKey(backendKey, directory, id)) : undefined;
      const row = rowOfFleetSession(s, { backendKey, directory, sampledAt, providers, actedBy: acted ?? null });
      if (row) rows.push(row);
    }
    const errors = Array.isArray(d.errors) ? d.errors.filter(isObject) : [];
    const whole = errors.filter((e) => e.sessionId === null).map((e) => str(e.message) ?? 'cannot be read');
    return {
      directory,
      rows,
      error: whole.length ? whole.join('; ') : null,
      partialErrors: errors
        .filter((e) => typeof e.sessionId === 'string')
        .map((e) => ({ sessionId: e.sessionId as string, message: str(e.message) ?? '' })),
      truncated: null,
    };
  }

  private ownState(status: 'loading' | 'error', error: string | null): BackendState {
    return {
      config: {
        key: attachedBackendKey(this.config.key, null),
        name: `daemon ${this.config.name}`,
        baseUrl: this.config.url,
        directories: [],
        insecure: this.config.insecure,
      },
      attached: this.info(null),
      status,
      error,
      dialect: null,
      directories: [],
      providers: null,
      providersError: null,
      allFreeAt: null,
      eventStream: null,
      lastRoundAt: null,
    };
  }

  private showError(err: DaemonApiError, retryInMs: number): void {
    const text = `${reasonOf(err)}; retrying in ${Math.max(1, Math.round(retryInMs / 1000))} s`;
    const prev = this.states.length === 1 && this.states[0].attached?.remoteKey === null ? this.states[0] : null;
    if (prev?.error === text) return;
    this.options.log?.('warn', `daemon ${this.config.name} (${this.config.url}): ${text}`);
    this.states = [this.ownState('error', text)];
    this.changes.drop();
    this.emit({ structural: this.keys(), rows: [], providers: true });
  }

  private stateOf(remote: string): BackendState | undefined {
    return this.states.find((s) => s.attached?.remoteKey === remote || this.remoteNames.get(s.config.key) === remote);
  }

  private apply(e: DaemonEvent): void {
    const data = isObject(e.data) ? e.data : null;
    if (!data) return;
    switch (e.event) {
      case 'row':
        return this.applyRow(data);
      case 'removed':
        return this.applyRemoved(data);
      case 'outcome':
        return this.applyOutcome(data);
      case 'alert':
        return this.applyAlert(data);
    }
  }

  private directory(data: Record<string, unknown>): { state: BackendState; dir: DirectoryState } | null {
    const remote = str(data.backend);
    const directory = str(data.directory);
    const state = remote ? this.stateOf(remote) : undefined;
    const dir = state?.directories.find((d) => d.directory === directory);
    return state && dir ? { state, dir } : null;
  }

  private applyRow(data: Record<string, unknown>): void {
    const at = this.directory(data);
    if (!at) return;
    const { state, dir } = at;
    const id = isObject(data.row) ? str(data.row.id) : null;
    const key = id ? rowKey(state.config.key, dir.directory, id) : null;
    const row = rowOfFleetSession(data.row, {
      backendKey: state.config.key,
      directory: dir.directory,
      sampledAt: this.options.clock.now(),
      providers: state.providers?.providers ?? [],
      actedBy: key ? (this.acted.get(key) ?? null) : null,
    });
    if (!row) return;
    const i = dir.rows.findIndex((r) => r.id === row.id);
    if (i >= 0) {
      dir.rows = dir.rows.slice();
      dir.rows[i] = row;
      this.changes.row(row);
    } else {
      dir.rows = [...dir.rows, row];
      this.changes.backend(state.config.key);
    }
  }

  private applyRemoved(data: Record<string, unknown>): void {
    const at = this.directory(data);
    const id = str(data.sessionId);
    if (!at || !id) return;
    const before = at.dir.rows.length;
    at.dir.rows = at.dir.rows.filter((r) => r.id !== id);
    if (at.dir.rows.length !== before) this.changes.removed(at.state.config.key, at.dir.directory, id);
  }

  private applyOutcome(data: Record<string, unknown>): void {
    const entry = actedByOf(data);
    if (!entry) return;
    const state = this.stateOf(entry.backend);
    const dir = state?.directories.find((d) => d.directory === entry.directory);
    const i = dir?.rows.findIndex((r) => r.id === entry.sessionId) ?? -1;
    if (this.client) this.providersSoon();
    if (!state || !dir || i < 0) return;
    const row = { ...dir.rows[i], actedBy: entry.acted };
    this.acted.set(row.key, entry.acted);
    dir.rows = dir.rows.slice();
    dir.rows[i] = row;
    this.changes.row(row);
  }

  private applyAlert(data: Record<string, unknown>): void {
    const kind = data.kind;
    if (kind === 'quota-wall') this.providersSoon();
    if (kind !== 'waiting' && kind !== 'hung' && kind !== 'quota-wall') return;
    const at = this.directory(data);
    const row = at?.dir.rows.find((r) => r.id === data.sessionId);
    if (row) this.options.onTransition?.({ kind, row });
  }

  /** Reads the providers again soon (an outcome or a quota wall may have marked one). */
  private providersSoon(): void {
    const client = this.client;
    if (!client) return;
    this.options.clock.clearTimeout(this.providersTimer);
    const gen = this.generation;
    this.providersTimer = this.options.clock.setTimeout(() => void this.readProviders(client, gen), 1_000);
  }

  private scheduleProviders(client: DaemonClient, gen: number): void {
    this.options.clock.clearTimeout(this.providersTimer);
    this.providersTimer = this.options.clock.setTimeout(
      () => void this.readProviders(client, gen),
      this.options.providersEveryMs ?? 60_000,
    );
  }

  private async readProviders(client: DaemonClient, gen: number): Promise<void> {
    if (!this.live(gen)) return;
    this.counts.providerReads++;
    try {
      const providers = await client.providers();
      if (!this.live(gen)) return;
      let changed = false;
      for (const p of providers.backends) {
        if (!isObject(p) || typeof p.key !== 'string') continue;
        const state = this.states.find((s) => s.attached?.remoteKey === p.key);
        if (!state) continue;
        const listing = providerListing(p.providers);
        if (JSON.stringify(listing) === JSON.stringify(state.providers) && state.providersError === str(p.error))
          continue;
        state.providers = listing;
        state.providersError = str(p.error);
        state.allFreeAt = typeof p.allFreeAt === 'number' ? p.allFreeAt : null;
        changed = true;
      }
      if (changed) this.emit({ structural: [], rows: [], providers: true });
    } catch (err) {
      this.options.log?.('warn', `daemon ${this.config.name}: providers not read: ${describeError(err)}`);
    } finally {
      if (this.live(gen)) this.scheduleProviders(client, gen);
    }
  }

  private emit(change: MonitorChange): void {
    this.options.onChange(change);
  }
}

/** A dialect name the daemon reported, when it is one this build knows. */
function knownDialect(name: unknown): Dialect | null {
  return typeof name === 'string' && Object.hasOwn(DIALECTS, name) ? (name as Dialect) : null;
}
