// The daemon's /api/status: per backend, the `status --json` document of each of its directories,
// built from the monitor's latest settled rows (each row keeps the assessment it was built from).
import { buildStatusDocument, type StatusDocument } from '../health/status-document';
import type { EpochMs, ProviderListing, SessionAssessment } from '../model';
import type { SessionRow } from '../monitor/row';
import type { BackendState } from '../monitor/sessionMonitor';

export interface BackendStatus {
  /** The backend's name (the `backend` label of the metrics). */
  backend: string;
  /** The last round read it. */
  up: boolean;
  error: string | null;
  lastRoundAt: EpochMs | null;
  /** One `status --json` document per directory. */
  documents: StatusDocument[];
}

const EMPTY: ProviderListing = { providers: [], connected: [] };

/**
 * `budgetUsd`: budget.sessionUsd, marking the sessions whose cost reached it (0: none);
 * `automaticSkip`: why automatic mode leaves a session's row alone (the operator's), per session.
 */
export function backendStatuses(
  backends: readonly BackendState[],
  now: EpochMs,
  budgetUsd = 0,
  automaticSkip?: (row: SessionRow) => { reason: string; text: string } | null,
): BackendStatus[] {
  return backends.map((b) => ({
    backend: b.config.name,
    up: b.status === 'ok',
    error: b.error,
    lastRoundAt: b.lastRoundAt,
    documents: b.directories.map((d) =>
      buildStatusDocument({
        assessments: d.rows.map((r) => r.assessment).filter((a): a is SessionAssessment => a !== undefined),
        listing: b.providers ?? EMPTY,
        baseUrl: b.config.baseUrl,
        directory: d.directory,
        dialect: b.dialect,
        sampledAt: b.lastRoundAt !== null ? [b.lastRoundAt] : [],
        errors: [
          ...(d.error ? [{ sessionId: null, kind: 'backend', message: d.error }] : []),
          ...d.partialErrors.map((e) => ({ sessionId: e.sessionId, kind: 'unreadable', message: e.message })),
        ],
        warnings: d.truncated
          ? [`${d.truncated.listed} sessions listed, the ${d.truncated.kept} most recently updated sampled`]
          : [],
        now,
        budgetUsd,
        automaticSkip: automaticSkip ? skipsOf(d.rows, automaticSkip) : undefined,
      }),
    ),
  }));
}

function skipsOf(
  rows: readonly SessionRow[],
  automaticSkip: (row: SessionRow) => { reason: string; text: string } | null,
): (sessionId: string) => { reason: string; text: string } | null {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return (id) => {
    const row = byId.get(id);
    return row ? automaticSkip(row) : null;
  };
}
