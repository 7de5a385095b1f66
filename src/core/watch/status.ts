// The daemon's /api/status: per backend, the `status --json` document of each of its directories,
// built from the monitor's latest settled rows (each row keeps the assessment it was built from).
import { buildStatusDocument, type StatusDocument } from '../health/status-document';
import type { EpochMs, ProviderListing, SessionAssessment } from '../model';
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

/** `budgetUsd`: budget.sessionUsd, marking the sessions whose cost reached it (0: none). */
export function backendStatuses(backends: readonly BackendState[], now: EpochMs, budgetUsd = 0): BackendStatus[] {
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
      }),
    ),
  }));
}
