// The headless operator behind `session-ops watch`: the editor's SessionMonitor over the configured
// backends, always active, feeding the metrics (counted requests, timed rounds) and the JSON-line
// log (verdict changes, backend errors, reloads; rounds at debug). The health of the loop is
// judged by the monitor's round counter: the loop is stuck when no backend round started for
// longer than a round can take (two spacings plus two request deadlines). A reload swaps the
// backends and operator settings in place; a backend whose URL, directories or credentials changed
// gets a fresh client. Never imports 'vscode'.
import { BackendClient, type BackendClientOptions, type SampleRound } from '../backend';
import type { BackendConfig } from '../config/backends';
import type { EpochMs } from '../model';
import { WatchMetrics, requestOutcome, verdictLabel, type VerdictLabel } from '../metrics/watch-metrics';
import { describeError, SessionMonitor, type BackendState, type MonitorOptions } from '../monitor/sessionMonitor';
import type { SessionRow } from '../monitor/row';
import type { WatchConfig } from './config';
import type { LoadedConfig } from './load';
import type { Logger } from './log';
import { backendStatuses, type BackendStatus } from './status';

/** Per-request deadline of the daemon's backend requests. */
export const WATCH_REQUEST_TIMEOUT_MS = 15_000;

export interface WatchDaemonOptions {
  loaded: LoadedConfig;
  log: Logger;
  /** Accept spacing under 30 s and verdicts on it (watch --allow-short-spacing). */
  allowShortSpacing: boolean;
  now?: () => EpochMs;
  requestTimeoutMs?: number;
  /** prom-client's default process metrics (default true). */
  processMetrics?: boolean;
}

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

export function backendConfigsOf(config: WatchConfig): BackendConfig[] {
  return config.backends.map((b) => ({
    key: `${b.baseUrl}/`,
    name: b.name,
    baseUrl: b.baseUrl,
    directories: b.directories,
    insecure: false,
  }));
}

function monitorSettings(config: WatchConfig, allowShort: boolean) {
  const o = config.operator;
  const spacingMs = Math.round(o.sampleSpacingSeconds * 1000);
  return {
    spacingMs,
    ...(allowShort ? { minSpacingMs: Math.min(spacingMs, 30_000) } : {}),
    resetWithinReachMs: o.resetWithinReachMinutes * 60_000,
    providers: o.recovery.providers.length > 0 ? o.recovery.providers : null,
    useEventStream: o.useEventStream,
    retryWaitMs: o.quotaWall.retryWaitMinutes * 60_000,
    markMaxAgeMs: o.quotaWall.markMaxAgeMinutes * 60_000,
    toolCeilingMs: o.toolCeilingMinutes * 60_000,
  } satisfies Partial<MonitorOptions>;
}

export class WatchDaemon {
  readonly monitor: SessionMonitor;
  readonly metrics: WatchMetrics;
  private loaded: LoadedConfig;
  private readonly log: Logger;
  private readonly now: () => EpochMs;
  private readonly verdicts = new Map<string, VerdictLabel>();
  private lastRounds = -1;
  private lastProgressAt: EpochMs;
  private healthTimer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;

  constructor(private readonly options: WatchDaemonOptions) {
    this.loaded = options.loaded;
    this.log = options.log;
    this.now = options.now ?? Date.now;
    this.lastProgressAt = this.now();
    const timeoutMs = options.requestTimeoutMs ?? WATCH_REQUEST_TIMEOUT_MS;
    this.monitor = new SessionMonitor({
      ...monitorSettings(this.loaded.config, options.allowShortSpacing),
      createClient: (config, credentials, marks) =>
        new MeteredClient(
          {
            baseUrl: config.baseUrl,
            username: credentials?.username,
            password: credentials?.password,
            timeoutMs,
            marks,
            now: this.now,
            onRequest: (endpoint, error) =>
              this.metrics.countRequest(config.name, endpoint, error ? requestOutcome(error) : 'ok'),
          },
          (seconds, round, error) => this.onRound(config.name, seconds, round, error),
        ),
      getCredentials: (config) => Promise.resolve(this.loaded.credentials.get(config.name)),
      now: this.now,
      log: (level, message) => this.log(level, 'backend-error', { message }),
    });
    this.metrics = new WatchMetrics({
      source: this.monitor,
      maxSessionSeries: this.loaded.config.metrics.maxSessionSeries,
      processMetrics: options.processMetrics,
    });
    this.monitor.onDidChange(() => this.logVerdictChanges());
  }

  /** Starts sampling every backend (at once, then each on its own schedule). */
  start(): void {
    this.monitor.setBackends(backendConfigsOf(this.loaded.config));
    this.monitor.setActive(true);
    this.healthTimer = setInterval(() => this.checkProgress(), 1_000);
    this.healthTimer.unref?.();
    this.log('info', 'started', {
      backends: this.loaded.config.backends.map((b) => ({
        name: b.name,
        baseUrl: b.baseUrl,
        directories: b.directories,
      })),
      sampleSpacingSeconds: this.loaded.config.operator.sampleSpacingSeconds,
      automatic: this.loaded.config.operator.automatic,
    });
  }

  /** Applies a new configuration (already loaded and checked). */
  reload(next: LoadedConfig): void {
    const before = this.loaded;
    this.loaded = next;
    this.monitor.updateOptions(monitorSettings(next.config, this.options.allowShortSpacing));
    this.metrics.setMaxSessionSeries(next.config.metrics.maxSessionSeries);
    this.monitor.setBackends(backendConfigsOf(next.config));
    for (const b of next.config.backends) {
      const was = before.credentials.get(b.name);
      const now = next.credentials.get(b.name);
      if (was?.username !== now?.username || was?.password !== now?.password) this.monitor.resetClient(`${b.baseUrl}/`);
    }
    this.log('info', 'config-reloaded', { backends: next.config.backends.map((b) => b.name) });
  }

  get config(): WatchConfig {
    return this.loaded.config;
  }

  backends(): readonly BackendState[] {
    return this.monitor.backends();
  }

  /** The /api/status document. */
  status(): { backends: BackendStatus[] } {
    return { backends: backendStatuses(this.monitor.backends(), this.now()) };
  }

  /** How long the loop may go without starting a round before it counts as stuck. */
  stuckAfterMs(): number {
    const spacing = this.loaded.config.operator.sampleSpacingSeconds * 1000;
    return 2 * spacing + 2 * (this.options.requestTimeoutMs ?? WATCH_REQUEST_TIMEOUT_MS) + 5_000;
  }

  /** /healthz: ok while rounds keep starting. */
  health(): { ok: boolean; detail: string } {
    this.checkProgress();
    const idleMs = this.now() - this.lastProgressAt;
    if (this.stopped) return { ok: false, detail: 'stopping' };
    if (idleMs > this.stuckAfterMs())
      return { ok: false, detail: `stuck: no sampling round started for ${Math.round(idleMs / 1000)} s` };
    return { ok: true, detail: 'ok' };
  }

  /** Stops sampling and closes every client (requests in flight are abandoned). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.healthTimer);
    this.monitor.dispose();
  }

  private checkProgress(): void {
    const rounds = this.monitor.stats().rounds;
    if (rounds !== this.lastRounds) {
      this.lastRounds = rounds;
      this.lastProgressAt = this.now();
    }
  }

  private onRound(backend: string, seconds: number, round: SampleRound | null, error: unknown): void {
    this.metrics.observeRound(backend, seconds);
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
