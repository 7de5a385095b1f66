// What the Sessions view shows for one session: the verdict of the pure core plus the evidence
// behind it, flattened for rendering. Built by the session monitor; rendered by the extension.
import type { Action, CompletionReport, EpochMs, FailureCategory, SessionState, Verdict } from '../model';

/** The health badge: the verdict, or what overrides it (a quota wall, a report), or unknown. */
export type Badge =
  | 'unknown'
  | 'healthy'
  | 'idle'
  | 'hung'
  | 'quota-wall'
  | 'report-done'
  | 'report-blocked'
  | 'report-handoff';

/** One sample's evidence, as shown in the tooltip. */
export interface SampleEvidence {
  at: EpochMs;
  state: SessionState;
  stepCount: number | null;
  lastStepAt: EpochMs | null;
  newestId: string | null;
  newestRole: string | null;
}

export interface QuotaWallView {
  provider: string | null;
  reason: string | null;
  category: FailureCategory;
  resetAt: EpochMs | null;
  /** When the provider's quota mark was set (its age is shown), when it has one. */
  markedAt?: EpochMs | null;
}

export interface SessionRow {
  /** backendKey + directory + id: unique across the view. */
  key: string;
  backendKey: string;
  directory: string;
  id: string;
  title: string | null;
  badge: Badge;
  verdict: Verdict | null;
  action: Action | null;
  /** Why there is no verdict yet (first sample only, samples disagree on state ...). */
  pending: string | null;
  state: SessionState;
  stepCount: number | null;
  /** When the last step or the newest message last moved, as far as the samples tell. */
  lastMovedAt: EpochMs | null;
  /** "provider/model" of the newest assistant message. */
  model: string | null;
  quotaWall: QuotaWallView | null;
  report: CompletionReport | null;
  /** Failure text of the newest message (plain text from the server, never markup). */
  failureText: string | null;
  /** Newest message text (for "open report"); not shown in the tree. */
  newestText: string | null;
  evidence: { earlier: SampleEvidence | null; latest: SampleEvidence };
  /** "retrying (attempt 2, next in 5 s)": the backend retrying a model call (not a quota wall). */
  retrying?: string | null;
  /** Why the newest message could not be read this round (badge unknown), or null. */
  unreadable?: string | null;
}

/** Sessions that need a person: hung, quota wall, idle with unfinished work, a fresh report. */
export function needsAttention(row: SessionRow): boolean {
  switch (row.badge) {
    case 'hung':
    case 'quota-wall':
    case 'report-done':
    case 'report-blocked':
    case 'report-handoff':
      return true;
    case 'idle':
      return row.action === 'wake';
    default:
      return false;
  }
}
