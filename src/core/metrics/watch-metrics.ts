// The Prometheus metrics of `session-ops watch` (names and labels are a contract, see docs/daemon.md,
// "Metrics"). The gauges compute their values at scrape time from the monitor's latest
// state (collect()), so nothing is kept twice; the counters and the round histogram are fed by the
// daemon. Per-session series are capped (metrics.maxSessionSeries): sessions that need a person
// (hung, waiting, unknown) are kept first, the overflow is counted in
// session_ops_session_series_dropped. An unknown time (a reset nobody reported) is absent, never 0.
// Rendered as Prometheus text, or OpenMetrics when the scrape asks for it.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type RegistryContentType } from 'prom-client';
import { BackendError } from '../backend/errors';
import type { BackendState } from '../monitor/sessionMonitor';
import type { SessionRow } from '../monitor/row';
import { rollUpCosts } from '../cost/rollup';
import type { SessionCost, TokenCounts } from '../model';

/** The verdict label of a session: its settled verdict, unknown (unreadable) or pending (not settled yet). */
export type VerdictLabel = 'healthy' | 'idle' | 'hung' | 'waiting' | 'unknown' | 'pending';
export const VERDICT_LABELS: readonly VerdictLabel[] = ['healthy', 'idle', 'hung', 'waiting', 'unknown', 'pending'];

export type ActionLabel = 'abort' | 'wake' | 'abort-and-wake' | 'recover';
export type ActionOutcome = 'done' | 'refused' | 'failed' | 'scheduled' | 'escalated' | 'stale';
export type ActionTrigger = 'automatic' | 'scheduled';

export const DEFAULT_MAX_SESSION_SERIES = 5000;
/** A session title is cut to this many characters in its label. */
const MAX_TITLE_LABEL = 80;

export function verdictLabel(row: SessionRow): VerdictLabel {
  if (row.unreadable) return 'unknown';
  return row.verdict ?? 'pending';
}

/** What the gauges read at scrape time. */
export interface MetricsSource {
  backends(): readonly BackendState[];
}

export interface WatchMetricsOptions {
  source: MetricsSource;
  maxSessionSeries?: number;
  /** budget.sessionUsd, read at scrape time (0 or absent: off, and its gauge absent). */
  budgetUsd?: () => number;
  /** prom-client's default process metrics (default true; benches compare without). */
  processMetrics?: boolean;
  /**
   * Why automatic mode leaves a session alone (the operator's automaticSkip; `wakes` when stuck),
   * read at scrape time; absent: never said.
   */
  automaticSkip?: (row: SessionRow) => { reason: string; text: string; wakes?: number } | null;
}

/** The `reason` label of session_ops_automatic_skipped_sessions (src/core/operations/charge.ts). */
export const SKIP_REASONS = ['sub-agent', 'stuck', 'too-old', 'age-unknown', 'not-ticketed', 'authority'] as const;

const ATTENTION: ReadonlySet<VerdictLabel> = new Set(['hung', 'waiting', 'unknown']);

/** Hung, waiting, unreadable, stopped at a quota wall, or stuck: kept first under the per-session cap. */
function needsPerson(r: SessionRow, stuck: (r: SessionRow) => boolean): boolean {
  return ATTENTION.has(verdictLabel(r)) || r.quotaWall !== null || stuck(r);
}

function titleLabel(title: string | null): string {
  if (!title) return '';
  const clean = title.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return clean.length > MAX_TITLE_LABEL ? `${clean.slice(0, MAX_TITLE_LABEL - 1)}…` : clean;
}

/** The `type` label of session_ops_session_tokens, per token kind. */
const TOKEN_TYPES: ReadonlyArray<[keyof TokenCounts, string]> = [
  ['input', 'input'],
  ['output', 'output'],
  ['reasoning', 'reasoning'],
  ['cacheRead', 'cache_read'],
  ['cacheWrite', 'cache_write'],
];

/**
 * The sessions that get per-session series, at most `cap`: those that need a person first, then
 * the others, in the monitor's order. Each with its cost plus its sub-agents' (null: not reported).
 */
function* cappedSessions(
  backends: readonly BackendState[],
  cap: number,
  stuck: (r: SessionRow) => boolean = () => false,
): Generator<{ b: BackendState; d: BackendState['directories'][number]; r: SessionRow; cost: SessionCost | null }> {
  let left = cap;
  const costs = new Map<object, Map<string, SessionCost | null>>();
  const costOf = (d: BackendState['directories'][number], r: SessionRow) => {
    let rolled = costs.get(d);
    if (!rolled)
      costs.set(
        d,
        (rolled = rollUpCosts(
          d.rows.map((x) => ({
            id: x.id,
            parentId: x.parentId ?? null,
            cost: x.assessment?.cost ?? null,
            provider: null,
          })),
        )),
      );
    return rolled.get(r.id) ?? null;
  };
  for (const pass of [true, false]) {
    for (const b of backends) {
      for (const d of b.directories) {
        for (const r of d.rows) {
          if (left <= 0) return;
          if (needsPerson(r, stuck) !== pass) continue;
          left--;
          yield { b, d, r, cost: costOf(d, r) };
        }
      }
    }
  }
}

/**
 * Sets `gauge`, per directory of every backend read in the last round, to how many rows have each
 * of `labels` under `labelName` (every label from 0; a row whose label is none of them is not counted).
 */
function setRowCounts(
  gauge: { set(labels: Record<string, string>, value: number): void },
  backends: readonly BackendState[],
  labelName: string,
  labels: readonly string[],
  labelOf: (r: SessionRow) => string | undefined,
): void {
  for (const b of backends) {
    if (b.status !== 'ok') continue;
    for (const d of b.directories) {
      const counts = new Map<string, number>(labels.map((l) => [l, 0]));
      for (const r of d.rows) {
        const label = labelOf(r);
        if (label !== undefined && counts.has(label)) counts.set(label, counts.get(label)! + 1);
      }
      for (const [label, n] of counts)
        gauge.set({ backend: b.config.name, directory: d.directory, [labelName]: label }, n);
    }
  }
}

/** The providers worth a series: connected or marked (stock opencode lists a whole catalogue). */
type ProviderOf = ReturnType<typeof shownProviders>[number];

function shownProviders(b: BackendState) {
  return (b.providers?.providers ?? []).filter((p) => p.connected || p.quota);
}

export class WatchMetrics {
  readonly registry = new Registry<RegistryContentType>();
  private maxSessionSeries: number;
  private readonly counters: Counter[] = [];
  private rendering: Promise<unknown> = Promise.resolve();
  private readonly requests: Counter<'backend' | 'endpoint' | 'outcome'>;
  private readonly actions: Counter<'backend' | 'action' | 'outcome' | 'trigger'>;
  private readonly roundSeconds: Histogram<'backend'>;
  private readonly spend: Counter<'backend' | 'provider'>;

  constructor(options: WatchMetricsOptions) {
    const source = options.source;
    this.maxSessionSeries = options.maxSessionSeries ?? DEFAULT_MAX_SESSION_SERIES;
    const registers = [this.registry];
    const cap = () => this.maxSessionSeries;
    const skipOf = options.automaticSkip ?? (() => null);
    const stuck = (r: SessionRow) => skipOf(r)?.reason === 'stuck';
    new Gauge({
      name: 'session_ops_backend_up',
      help: '1 when the last round read the backend, else 0.',
      labelNames: ['backend'],
      registers,
      collect() {
        this.reset();
        for (const b of source.backends()) this.set({ backend: b.config.name }, b.status === 'ok' ? 1 : 0);
      },
    });
    new Gauge({
      name: 'session_ops_backend_info',
      help: "1 per backend, with its key: the daemon's identifier of the backend (its normalized base URL), which the daemon's page and API name it by (the alert rules' page_url link).",
      labelNames: ['backend', 'key'],
      registers,
      collect() {
        this.reset();
        for (const b of source.backends()) this.set({ backend: b.config.name, key: b.config.key }, 1);
      },
    });
    new Gauge({
      name: 'session_ops_sessions',
      help: 'Sessions per verdict (healthy, idle, hung, waiting, unknown, pending).',
      labelNames: ['backend', 'directory', 'verdict'],
      registers,
      collect() {
        this.reset();
        setRowCounts(this, source.backends(), 'verdict', VERDICT_LABELS, verdictLabel);
      },
    });
    new Gauge({
      name: 'session_ops_session_verdict',
      help: '1 per session with its current verdict and action (capped by metrics.maxSessionSeries).',
      labelNames: ['backend', 'directory', 'session', 'title', 'verdict', 'action'],
      registers,
      collect() {
        this.reset();
        for (const { b, d, r } of cappedSessions(source.backends(), cap(), stuck)) {
          this.set(
            {
              backend: b.config.name,
              directory: d.directory,
              session: r.id,
              title: titleLabel(r.title),
              verdict: verdictLabel(r),
              action: r.action ?? 'none',
            },
            1,
          );
        }
      },
    });
    new Gauge({
      name: 'session_ops_session_quota_wall',
      help: "1 per session stopped at a quota wall (the spec's usage-limit failures, and a frozen retry on a marked provider), with the wall's provider and category (capped like session_ops_session_verdict).",
      labelNames: ['backend', 'directory', 'session', 'provider', 'category'],
      registers,
      collect() {
        this.reset();
        for (const { b, d, r } of cappedSessions(source.backends(), cap(), stuck))
          if (r.quotaWall)
            this.set(
              {
                backend: b.config.name,
                directory: d.directory,
                session: r.id,
                provider: r.quotaWall.provider ?? 'unknown',
                category: r.quotaWall.category ?? 'unknown',
              },
              1,
            );
      },
    });
    new Gauge({
      name: 'session_ops_session_cost_usd',
      help: "A session's cost in US dollars with its sub-agents' (absent when the backend reports none; capped like session_ops_session_verdict).",
      labelNames: ['backend', 'directory', 'session'],
      registers,
      collect() {
        this.reset();
        for (const { b, d, r, cost } of cappedSessions(source.backends(), cap(), stuck))
          if (cost) this.set({ backend: b.config.name, directory: d.directory, session: r.id }, cost.usd);
      },
    });
    new Gauge({
      name: 'session_ops_session_tokens',
      help: "A session's tokens with its sub-agents', by type: input, output, reasoning, cache_read, cache_write (absent when not reported).",
      labelNames: ['backend', 'directory', 'session', 'type'],
      registers,
      collect() {
        this.reset();
        for (const { b, d, r, cost } of cappedSessions(source.backends(), cap(), stuck))
          if (cost)
            for (const [key, type] of TOKEN_TYPES)
              this.set({ backend: b.config.name, directory: d.directory, session: r.id, type }, cost.tokens[key]);
      },
    });
    const budgetUsd = options.budgetUsd;
    new Gauge({
      name: 'session_ops_budget_session_usd',
      help: 'The budget per session in US dollars (budget.sessionUsd; absent when off), for alerting on session_ops_session_cost_usd.',
      registers,
      collect() {
        const usd = budgetUsd?.() ?? 0;
        // A gauge without labels has a value from the start: removed, it is absent while off.
        if (usd > 0) this.set(usd);
        else this.remove();
      },
    });
    new Gauge({
      name: 'session_ops_automatic_skipped_sessions',
      help: 'Sessions automatic mode leaves alone, by reason (sub-agent, stuck, too-old, age-unknown, not-ticketed, authority); all 0 while automatic mode is off.',
      labelNames: ['backend', 'directory', 'reason'],
      registers,
      collect() {
        this.reset();
        setRowCounts(this, source.backends(), 'reason', SKIP_REASONS, (r) => skipOf(r)?.reason);
      },
    });
    new Gauge({
      name: 'session_ops_session_stuck_wakes',
      help: 'Per stuck session (automatic.maxConsecutiveWakes automatic wakes, each ended idle again without a completion report: automatic mode stopped, a person decides), the wakes counted (capped like session_ops_session_verdict).',
      labelNames: ['backend', 'directory', 'session', 'title'],
      registers,
      collect() {
        this.reset();
        for (const { b, d, r } of cappedSessions(source.backends(), cap(), stuck)) {
          const skip = skipOf(r);
          if (skip?.reason === 'stuck')
            this.set(
              { backend: b.config.name, directory: d.directory, session: r.id, title: titleLabel(r.title) },
              skip.wakes ?? 0,
            );
        }
      },
    });
    new Gauge({
      name: 'session_ops_session_series_dropped',
      help: 'Sessions left out of session_ops_session_verdict by metrics.maxSessionSeries.',
      registers,
      collect() {
        let n = 0;
        for (const b of source.backends()) for (const d of b.directories) n += d.rows.length;
        this.set(Math.max(0, n - cap()));
      },
    });
    new Gauge({
      name: 'session_ops_quota_walls',
      help: 'Sessions stopped at a quota wall, per provider.',
      labelNames: ['backend', 'directory', 'provider'],
      registers,
      collect() {
        this.reset();
        for (const b of source.backends()) {
          if (b.status !== 'ok') continue;
          for (const d of b.directories) {
            const walls = new Map<string, number>();
            for (const r of d.rows)
              if (r.quotaWall) {
                const p = r.quotaWall.provider ?? 'unknown';
                walls.set(p, (walls.get(p) ?? 0) + 1);
              }
            for (const [provider, n] of walls)
              this.set({ backend: b.config.name, directory: d.directory, provider }, n);
          }
        }
      },
    });
    /** A gauge per backend and shown provider; `value` null leaves the series out (unknown is absent). */
    const providerGauge = (name: string, help: string, value: (p: ProviderOf) => number | null) =>
      new Gauge({
        name,
        help,
        labelNames: ['backend', 'provider'],
        registers,
        collect() {
          this.reset();
          for (const b of source.backends())
            for (const p of shownProviders(b)) {
              const v = value(p);
              if (v !== null) this.set({ backend: b.config.name, provider: p.id }, v);
            }
        },
      });
    providerGauge(
      'session_ops_provider_connected',
      '1 when the provider is connected, else 0 (connected or marked providers).',
      (p) => (p.connected ? 1 : 0),
    );
    providerGauge(
      'session_ops_provider_quota_marked',
      '1 while a quota mark is active on the provider, else 0.',
      (p) => (p.quota ? 1 : 0),
    );
    providerGauge(
      'session_ops_provider_quota_reset_timestamp_seconds',
      "The quota mark's reset time (absent when unknown).",
      (p) => (p.quota && p.quota.resetAt !== null ? p.quota.resetAt / 1000 : null),
    );
    new Gauge({
      name: 'session_ops_all_providers_free_timestamp_seconds',
      help: 'The earliest moment every marked provider is free again (absent when unknown or none is marked).',
      labelNames: ['backend'],
      registers,
      collect() {
        this.reset();
        for (const b of source.backends())
          if (b.allFreeAt !== null) this.set({ backend: b.config.name }, b.allFreeAt / 1000);
      },
    });
    this.roundSeconds = new Histogram({
      name: 'session_ops_sample_round_duration_seconds',
      help: 'One sampling round of a directory of a backend.',
      labelNames: ['backend'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60],
      registers,
    });
    this.requests = new Counter({
      name: 'session_ops_requests_total',
      help: 'Requests to the backends by endpoint and outcome (ok, timeout, http_4xx, http_5xx, too_large, refused, ...).',
      labelNames: ['backend', 'endpoint', 'outcome'],
      registers,
    });
    this.actions = new Counter({
      name: 'session_ops_actions_total',
      help: 'Actions taken by the daemon, by action, outcome and trigger.',
      labelNames: ['backend', 'action', 'outcome', 'trigger'],
      registers,
    });
    this.spend = new Counter({
      name: 'session_ops_provider_cost_usd_total',
      help: 'US dollars spent per provider since watching began (the growth of the sessions costs, put down to the provider of their newest message).',
      labelNames: ['backend', 'provider'],
      registers,
    });
    this.counters.push(this.requests, this.actions, this.spend);
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  setMaxSessionSeries(n: number): void {
    this.maxSessionSeries = n;
  }

  observeRound(backend: string, seconds: number): void {
    this.roundSeconds.observe({ backend }, seconds);
  }

  countRequest(backend: string, endpoint: string, outcome: string): void {
    this.requests.inc({ backend, endpoint, outcome });
  }

  /**
   * Starts a backend's failed-action series at 0, so that the first failure is an increase
   * Prometheus sees (a counter series born at 1 shows no increase).
   */
  initBackend(backend: string): void {
    for (const action of ['abort', 'wake', 'abort-and-wake', 'recover'] as const)
      for (const trigger of ['automatic', 'scheduled'] as const)
        this.actions.inc({ backend, action, outcome: 'failed', trigger }, 0);
  }

  /**
   * Removes every series labelled with `backend` from the counters and the round histogram (the
   * gauges are computed from the monitor's backends at scrape time, so a removed backend leaves
   * them by itself).
   */
  async removeBackend(backend: string): Promise<void> {
    this.roundSeconds.remove({ backend });
    for (const c of this.counters) {
      const { values } = await c.get();
      for (const v of values) if (v.labels.backend === backend) c.remove(v.labels as Record<string, string>);
    }
  }

  countSpend(backend: string, provider: string, usd: number): void {
    if (usd > 0) this.spend.inc({ backend, provider }, usd);
  }

  countAction(backend: string, action: ActionLabel, outcome: ActionOutcome, trigger: ActionTrigger): void {
    this.actions.inc({ backend, action, outcome, trigger });
  }

  /** The exposition: OpenMetrics when `openMetrics`, else Prometheus text. One render at a time. */
  render(openMetrics: boolean): Promise<{ contentType: string; body: string }> {
    const run = this.rendering.then(async () => {
      const type = openMetrics ? Registry.OPENMETRICS_CONTENT_TYPE : Registry.PROMETHEUS_CONTENT_TYPE;
      this.registry.setContentType(type);
      try {
        return { contentType: type, body: await this.registry.metrics() };
      } finally {
        // prom-client drops "_total" from counter names for OpenMetrics (it adds it per sample): put it back.
        for (const c of this.counters) {
          const m = c as unknown as { name: string };
          if (!m.name.endsWith('_total')) m.name = `${m.name}_total`;
        }
        this.registry.setContentType(Registry.PROMETHEUS_CONTENT_TYPE);
      }
    });
    this.rendering = run.catch(() => undefined);
    return run;
  }
}

/** Whether an Accept header asks for OpenMetrics. */
export function wantsOpenMetrics(accept: string | undefined): boolean {
  return !!accept && /application\/openmetrics-text/i.test(accept);
}

/** The `outcome` label of a request: ok, or its failure's code (http_4xx, http_5xx, timeout, too_large, ...). */
export function requestOutcome(err: unknown): string {
  if (!(err instanceof BackendError)) return 'error';
  if (typeof err.status === 'number' && err.status >= 400) return err.status >= 500 ? 'http_5xx' : 'http_4xx';
  return err.code.replace(/-/g, '_');
}
