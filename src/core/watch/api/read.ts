// The read routes of the daemon's API (docs/daemon-api.md): who am I, the fleet (every backend, per
// directory the rows as `status --json` gives them with each row's waiting request in full and its
// scheduled retry), providers and their marks (never a provider's options or keys), one session's
// detail with its last audit entries, and the audit trail with filters.
import type { StatusDocument, StatusSession } from '../../health/status-document';
import { statusProviders } from '../../health/status-document';
import type { ProviderListing } from '../../model';
import type { SessionRow, WaitingDetail } from '../../monitor/row';
import type { BackendState } from '../../monitor/sessionMonitor';
import type { EpochMs } from '../../model';
import type { ApiRoute } from '../http-server';
import type { BackendStatus } from '../status';
import type { AuditQuery, AuditEntry } from '../../audit/audit-log';
import { apiError, type ApiAnswer } from './respond';

/** What the read routes read of the daemon. */
export interface FleetView {
  backends(): readonly BackendState[];
  /** The /api/status documents (one per backend). */
  status(): { backends: BackendStatus[] };
  /** The /api/fleet body as bytes, cached per round (./body-cache.ts); absent: fleet() serialised per request. */
  fleetBytes?(): Buffer;
  /** The session's scheduled retry (a recovery after a reset), or null. */
  retryOf(rowKey: string): { at: EpochMs; firesAt: EpochMs } | null;
  audit(query: AuditQuery): Promise<{ entries: AuditEntry[]; truncated: boolean }>;
  now(): EpochMs;
}

/**
 * A row of the fleet: the `status --json` session, its waiting request in full, its scheduled
 * retry, and the latest sample's progress (step count, last step) and newest message (id, role)
 * as the daemon read them (null: not read, or the backend reports none).
 */
export type FleetSession = StatusSession & {
  waitingDetail: WaitingDetail | null;
  retry: { at: EpochMs; firesAt: EpochMs } | null;
  stepCount: number | null;
  lastStepAt: EpochMs | null;
  newestId: string | null;
  newestRole: string | null;
};

export interface FleetBackend {
  /** The backend's key (its base URL with a trailing slash): `?backend=` and the page's deep links. */
  key: string;
  name: string;
  baseUrl: string;
  dialect: BackendState['dialect'];
  up: boolean;
  error: string | null;
  lastRoundAt: EpochMs | null;
  directories: Array<Omit<StatusDocument, 'sessions'> & { sessions: FleetSession[] }>;
}

/** The most audit entries one request returns. */
export const MAX_AUDIT_LIMIT = 1000;
export const DEFAULT_AUDIT_LIMIT = 100;
/** The last audit entries a session's detail carries. */
export const SESSION_AUDIT_ENTRIES = 20;

export function fleet(view: FleetView): { backends: FleetBackend[] } {
  const states = view.backends();
  const statuses = view.status().backends;
  return { backends: states.map((b, i) => fleetBackend(b, statuses[i], (k) => view.retryOf(k))) };
}

/** One backend of the fleet, from its /api/status part. */
export function fleetBackend(
  b: BackendState,
  st: BackendStatus,
  retryOf: (rowKey: string) => { at: EpochMs; firesAt: EpochMs } | null,
): FleetBackend {
  return {
    key: b.config.key,
    name: b.config.name,
    baseUrl: b.config.baseUrl,
    dialect: b.dialect,
    up: st.up,
    error: st.error,
    lastRoundAt: st.lastRoundAt,
    directories: st.documents.map((doc, j) => {
      const rows = new Map((b.directories[j]?.rows ?? []).map((r) => [r.id, r]));
      return { ...doc, sessions: doc.sessions.map((s) => fleetRow(s, rows.get(s.id), retryOf)) };
    }),
  };
}

/** A fleet row: the `status --json` session, its waiting request in full, its scheduled retry. */
export function fleetRow(
  s: StatusSession,
  row: SessionRow | undefined,
  retryOf: (rowKey: string) => { at: EpochMs; firesAt: EpochMs } | null,
): FleetSession {
  const latest = row?.evidence?.latest;
  return {
    ...s,
    waitingDetail: row?.waiting?.detail ?? null,
    retry: row ? retryOf(row.key) : null,
    stepCount: latest?.stepCount ?? null,
    lastStepAt: latest?.lastStepAt ?? null,
    newestId: latest?.newestId ?? null,
    newestRole: latest?.newestRole ?? null,
  };
}

export function providers(view: FleetView): unknown {
  const now = view.now();
  return {
    backends: view.backends().map((b) => ({
      key: b.config.key,
      name: b.config.name,
      error: b.providersError,
      providers: b.providers ? apiProviders(b.providers, now) : [],
      allFreeAt: b.allFreeAt,
    })),
  };
}

/**
 * The providers of `/api/providers`: as `status --json` lists them, plus each one's model ids, its
 * default model and its models' variant names (names only, never options or keys), so an attached
 * window offers the models the daemon can send to.
 */
function apiProviders(listing: ProviderListing, now: EpochMs): unknown[] {
  const byId = new Map(listing.providers.map((p) => [p.id, p]));
  return statusProviders(listing, now).map((p) => {
    const r = byId.get(p.id);
    return { ...p, models: r?.models ?? [], defaultModel: r?.defaultModel ?? null, variants: r?.variants ?? {} };
  });
}

/** The rows of the sessions with this id (on the backend named by key or name, when given). */
export function findRows(backends: readonly BackendState[], sessionId: string, backend: string | null): SessionRow[] {
  const out: SessionRow[] = [];
  for (const b of backends) {
    if (backend !== null && b.config.key !== backend && b.config.name !== backend && b.config.baseUrl !== backend)
      continue;
    for (const d of b.directories) for (const r of d.rows) if (r.id === sessionId) out.push(r);
  }
  return out;
}

/** The one watched row a request names, or the answer refusing it (404 unknown-session, 400 when ambiguous). */
export function oneRow(
  backends: readonly BackendState[],
  sessionId: string,
  backend: string | null,
): { row: SessionRow } | { refusal: ApiAnswer } {
  const rows = findRows(backends, sessionId, backend);
  if (rows.length === 0)
    return {
      refusal: apiError(
        404,
        'unknown-session',
        `the daemon does not watch session ${sessionId.slice(0, 200)}${backend ? ` on backend ${backend.slice(0, 200)}` : ''}`,
      ),
    };
  if (rows.length > 1)
    return {
      refusal: apiError(
        400,
        'bad-request',
        `session ${sessionId} is watched on ${rows.length} backends or directories: name one with backend=KEY`,
      ),
    };
  return { row: rows[0] };
}

function sessionDetail(
  view: FleetView,
  row: SessionRow,
): FleetBackend['directories'][number]['sessions'][number] | null {
  const data = fleet(view);
  for (const b of data.backends) {
    if (b.key !== row.backendKey) continue;
    for (const d of b.directories) {
      if (d.directory !== row.directory) continue;
      return d.sessions.find((s) => s.id === row.id) ?? null;
    }
  }
  return null;
}

/** Parses the audit query (?session=&since=&until=&limit=&backend=); a 400 answer when bad. */
export function auditQuery(q: URLSearchParams): AuditQuery | ApiAnswer {
  const time = (name: string): number | null | 'bad' => {
    const v = q.get(name);
    if (v === null) return null;
    const t = Date.parse(v);
    return Number.isFinite(t) ? t : 'bad';
  };
  const since = time('since');
  const until = time('until');
  if (since === 'bad' || until === 'bad') return apiError(400, 'bad-request', 'since and until must be ISO 8601 times');
  const rawLimit = q.get('limit');
  const limit = rawLimit === null ? DEFAULT_AUDIT_LIMIT : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_LIMIT)
    return apiError(400, 'bad-request', `limit must be an integer from 1 to ${MAX_AUDIT_LIMIT}`);
  const session = q.get('session');
  if (session !== null && (session === '' || session.length > 256))
    return apiError(400, 'bad-request', 'session must be a session id');
  return { sessionId: session, since, until, limit };
}

export function readRoutes(view: FleetView): ApiRoute[] {
  return [
    {
      method: 'GET',
      path: '/api/whoami',
      scope: 'read',
      handle: (ctx) => Promise.resolve({ status: 200, body: { name: ctx.principal.name, scope: ctx.principal.scope } }),
    },
    {
      method: 'GET',
      path: '/api/fleet',
      scope: 'read',
      handle: () => {
        const raw = view.fleetBytes?.();
        return Promise.resolve(raw ? { status: 200, body: null, raw } : { status: 200, body: fleet(view) });
      },
    },
    {
      method: 'GET',
      path: '/api/providers',
      scope: 'read',
      handle: () => Promise.resolve({ status: 200, body: providers(view) }),
    },
    {
      method: 'GET',
      path: '/api/sessions/:id',
      scope: 'read',
      handle: async (ctx) => {
        const found = oneRow(view.backends(), ctx.params.id, ctx.query.get('backend'));
        if ('refusal' in found) return found.refusal;
        const { row } = found;
        const audit = await view.audit({ sessionId: row.id, since: null, until: null, limit: SESSION_AUDIT_ENTRIES });
        return {
          status: 200,
          body: {
            backend: row.backendKey,
            directory: row.directory,
            session: sessionDetail(view, row),
            audit: audit.entries,
          },
        };
      },
    },
    {
      method: 'GET',
      path: '/api/audit',
      scope: 'read',
      handle: async (ctx) => {
        const query = auditQuery(ctx.query);
        if ('status' in query) return query;
        return { status: 200, body: await view.audit(query) };
      },
    },
  ];
}
