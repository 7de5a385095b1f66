// What the Sessions view shows for one session: the verdict of the pure core plus the evidence
// behind it, flattened for rendering. Built by the session monitor; rendered by the extension.
import type {
  Action,
  CompletionReport,
  Engine,
  EpochMs,
  MalformedReport,
  FailureCategory,
  QuestionItem,
  SessionAssessment,
  SessionCost,
  SessionState,
  TodoProgress,
  Verdict,
  WallObserved,
} from '../model';
import type { BudgetLevel } from '../cost/budget';

/** The health badge: the verdict, or what overrides it (a quota wall, a report), or unknown. */
export type Badge =
  | 'unknown'
  | 'healthy'
  | 'idle'
  | 'hung'
  | 'waiting'
  | 'quota-wall'
  /** A line meant as a completion report that does not parse: a person must read it. */
  | 'malformed-report'
  | 'report-done'
  | 'report-blocked'
  | 'report-handoff';

/** One sample's evidence, as shown in the tooltip. */
export interface SampleEvidence {
  at: EpochMs;
  /** When the read behind the sample began (SessionSample.readFrom); absent: `at`. Not compared. */
  readFrom?: EpochMs;
  state: SessionState;
  stepCount: number | null;
  lastStepAt: EpochMs | null;
  newestId: string | null;
  newestRole: string | null;
  /** The newest message's own time as read (completed, else created); null or absent: unknown. */
  newestAt?: EpochMs | null;
}

export interface QuotaWallView {
  provider: string | null;
  reason: string | null;
  /** Null unless a message or a retry named it. */
  category: FailureCategory | null;
  resetAt: EpochMs | null;
  /** When the provider's quota mark was set (its age is shown), when it has one. */
  markedAt?: EpochMs | null;
  /** What the wall rests on (shown in the tooltip); absent reads as a failed turn. */
  observed?: WallObserved;
}

/** What a waiting session asks of a person (a pending permission or question). */
export interface WaitingView {
  kind: 'permission' | 'question';
  /** One readable line ("permission: bash ls", "question: Which color?"). Server text: plain, never markup. */
  title: string;
  /** The backend's request id, for the answer (replyPermission / replyQuestion / rejectQuestion). */
  requestID: string;
  detail: WaitingDetail;
}

export type WaitingDetail =
  | { kind: 'permission'; tool: string; patterns: string[]; always: string[] }
  | { kind: 'question'; questions: QuestionItem[] };

/** Who last acted on a session of an attached daemon (its audit's `outcome` event): shown on the row. */
export interface ActedBy {
  /** The token's name, `automatic`, or the host of a CLI run. */
  by: string;
  /** token | automatic | cli */
  kind: string;
  action: string;
  /** The outcome's code (confirmed, refused ...). */
  code: string;
  at: EpochMs;
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
  /** A line meant as a completion report that does not parse (badge malformed-report). */
  malformedReport?: MalformedReport | null;
  /** Failure text of the newest message (plain text from the server, never markup). */
  failureText: string | null;
  /** Newest message text (for "open report"); not shown in the tree. */
  newestText: string | null;
  evidence: { earlier: SampleEvidence | null; latest: SampleEvidence };
  /** A pending permission or question: the session waits for a person (badge `waiting`). */
  waiting?: WaitingView | null;
  /** Todo progress (stock opencode), read on todo.updated events; null/absent when unknown. */
  todos?: TodoProgress | null;
  /** The parent session of a sub-agent session; the view shows it under its parent. */
  parentId?: string | null;
  /** The engine of a stock opencode server that holds the session (legacy, api); null/absent: not known. */
  engine?: Engine | null;
  /** "retrying (attempt 2, next in 5 s)": the backend retrying a model call (not a quota wall). */
  retrying?: string | null;
  /** Why the newest message could not be read this round (badge unknown), or null. */
  unreadable?: string | null;
  /** The session's cost with its sub-agents' (null: not reported by this backend). */
  cost?: SessionCost | null;
  /** The share of budget.sessionUsd the cost reached: 0, 80 or 100 (%). */
  budgetLevel?: BudgetLevel;
  /** A row of an attached daemon: who acted on its last outcome (absent for a directly sampled row). */
  actedBy?: ActedBy | null;
  /** The assessment the row was built from (the `status --json` document of the daemon's /api/status); not compared. */
  assessment?: SessionAssessment;
}

/** Sessions that need a person: hung, waiting for an answer, quota wall, idle with unfinished work, a fresh report, over budget. */
export function needsAttention(row: SessionRow): boolean {
  if (row.budgetLevel === 100) return true;
  switch (row.badge) {
    case 'hung':
    case 'waiting':
    case 'quota-wall':
    case 'malformed-report':
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

/**
 * Rows in list order, with each sub-agent session (parentId set, parent listed) moved right after
 * its parent and the parent's earlier children: the view renders them as a tree under it. A child
 * whose parent is not listed stays where it was (shown at top level).
 */
export function orderByParent(rows: SessionRow[]): SessionRow[] {
  const ids = new Set(rows.map((r) => r.id));
  const children = new Map<string, SessionRow[]>();
  const top: SessionRow[] = [];
  for (const r of rows) {
    const parent = r.parentId ?? null;
    if (parent && parent !== r.id && ids.has(parent)) {
      const list = children.get(parent);
      if (list) list.push(r);
      else children.set(parent, [r]);
    } else top.push(r);
  }
  // No session under another and no id twice: the list order as it is.
  if (children.size === 0 && ids.size === rows.length) return top;
  const out: SessionRow[] = [];
  const seen = new Set<string>();
  const visit = (r: SessionRow) => {
    if (seen.has(r.id)) return;
    seen.add(r.id);
    out.push(r);
    for (const c of children.get(r.id) ?? []) visit(c);
  };
  for (const r of top) visit(r);
  // Cycles (a parent chain that never reaches the top): keep them, in list order.
  for (const r of rows) if (!seen.has(r.id)) visit(r);
  return out;
}
