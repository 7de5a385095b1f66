// Turns one session's assessment and samples into the SessionRow the Sessions view renders. The
// badge follows the one precedence of health/precedence (the same the action and the CLI use).
import { headline } from '../health/precedence';
import { retryText } from '../health/verdict';
import { quotaOf } from '../health/provider-records';
import type { EpochMs, ProviderListing, SessionAssessment, SessionSample } from '../model';
import type { Badge, SampleEvidence, SessionRow, WaitingView } from './row';
import { rowKey } from '../keys';

export function badgeOf(a: SessionAssessment): Badge {
  const head = headline(a);
  switch (head) {
    case 'unreadable':
    case 'pending':
      return 'unknown';
    case 'report':
      return `report-${a.report!.status}`;
    default:
      return head;
  }
}

function evidence(s: SessionSample): SampleEvidence {
  return {
    at: s.at,
    ...(s.readFrom !== undefined ? { readFrom: s.readFrom } : {}),
    state: s.session.state,
    stepCount: s.session.progress?.stepCount ?? null,
    lastStepAt: s.session.progress?.lastStepAt ?? null,
    newestId: s.newest?.id ?? null,
    newestRole: s.newest?.role ?? null,
    newestAt: s.newest?.completedAt ?? s.newest?.createdAt ?? null,
  };
}

/** When the newest id or step count last changed, as far as the kept samples show. */
function lastMoved(history: readonly SessionSample[], latest: SessionSample): EpochMs | null {
  let movedAt: EpochMs | null =
    latest.session.progress?.lastStepAt ?? latest.newest?.completedAt ?? latest.newest?.createdAt ?? null;
  for (let i = 1; i < history.length; i++) {
    if (moved(history[i - 1], history[i])) movedAt = Math.max(movedAt ?? 0, history[i].at);
  }
  return movedAt;
}

/** Whether the newest message id or the step count differs between two samples. */
function moved(a: SessionSample, b: SessionSample): boolean {
  return (
    (a.newest?.id ?? '') !== (b.newest?.id ?? '') ||
    (a.session.progress?.stepCount ?? null) !== (b.session.progress?.stepCount ?? null)
  );
}

/** What a waiting session asks, for the row (only with verdict `waiting`). */
function waitingView(a: SessionAssessment): WaitingView | null {
  const w = a.waiting ?? null;
  if (!w || a.verdict !== 'waiting') return null;
  return {
    kind: w.kind,
    title: w.title,
    requestID: w.requestID,
    detail: w.permission
      ? { kind: 'permission', tool: w.permission.tool, patterns: w.permission.patterns, always: w.permission.always }
      : { kind: 'question', questions: w.questions },
  };
}

export interface RowInput {
  /** The session's row key when a row of it exists already (rowKey(backendKey, directory, id), reused). */
  key?: string;
  backendKey: string;
  directory: string;
  assessment: SessionAssessment;
  baseline: SessionSample | null;
  latest: SessionSample;
  history: readonly SessionSample[];
  listing: ProviderListing;
}

export function toRow({
  key,
  backendKey,
  directory,
  assessment: a,
  baseline,
  latest,
  history,
  listing,
}: RowInput): SessionRow {
  const wall = a.quotaWall;
  const mark = wall?.provider ? quotaOf(listing, wall.provider) : null;
  const retry = latest.session.retry;
  return {
    key: key ?? rowKey(backendKey, directory, a.id),
    backendKey,
    directory,
    id: a.id,
    title: a.title,
    badge: badgeOf(a),
    verdict: a.verdict,
    action: a.unreadable ? null : a.settled || a.report || wall ? a.decision.action : null,
    pending: a.verdict === null ? a.verdictBasis : null,
    state: a.state,
    stepCount: latest.session.progress?.stepCount ?? null,
    lastMovedAt: lastMoved(history, latest),
    model:
      latest.newest?.providerID && latest.newest.modelID
        ? `${latest.newest.providerID}/${latest.newest.modelID}`
        : null,
    quotaWall: wall
      ? {
          provider: wall.provider,
          reason: wall.reason,
          category: wall.category,
          resetAt: wall.resetAt,
          markedAt: mark?.markedAt ?? wall.markedAt ?? null,
          observed: wall.observed,
        }
      : null,
    report: a.report,
    malformedReport: a.malformedReport ?? null,
    failureText: latest.newest?.failure?.text ?? null,
    newestText: latest.newest?.text ?? null,
    evidence: { earlier: baseline ? evidence(baseline) : null, latest: evidence(latest) },
    retrying: retry && !wall ? retryText(retry, latest.at) : null,
    unreadable: a.unreadable ?? null,
    waiting: waitingView(a),
    todos: null,
    parentId: a.parentId ?? null,
    engine: a.engine ?? null,
    assessment: a,
  };
}
