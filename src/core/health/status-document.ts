// The `session-ops status --json` document. Required fields first; extra fields are additions.
//   {"sessions":[{id, verdict, action, quotaWall, report, ...}], "providers":[{id, connected,
//    quota}], "allFreeAt"}
// `providers` lists connected providers and any with a quota mark, not the whole catalogue.
// A session whose samples never settled gets the verdict its latest state reads as, with
// settled=false and action leave-alone (no action is ever taken on an unsettled verdict).
// A session whose newest message could not be read has verdict "unknown" with the reason in
// `unreadable` and `basis`. `headline` is the one precedence (health/precedence) the views use too.
// `cost` per session is its own plus its sub-agents' (null: not reported by this backend); the
// top-level `cost` sums each session once, per provider too (null when no session reports one).
// `overBudget` marks a session whose cost reached the budget (`status --budget-usd`).
// `automaticSkip` says why automatic mode leaves a session alone ({reason: sub-agent | stuck |
// too-old | age-unknown | not-ticketed | authority, text}); null when it is in its charge or no automatic mode
// runs (always null from the one-shot `status`; the daemon's /api/status fills it).
import { fleetCost, overBudget, rollUpCosts, type FleetCost } from '../cost/rollup';
import type {
  CompletionReport,
  Dialect,
  Engine,
  MalformedReport,
  EpochMs,
  FailureCategory,
  ProviderListing,
  SessionAssessment,
  SessionCost,
  Verdict,
  WallObserved,
} from '../model';
import { headline, type Headline } from './precedence';
import { allFreeAt } from './quota-wall';
import { distinctRecords } from './provider-records';

export interface StatusSession {
  id: string;
  verdict: Verdict | 'unknown';
  /** What the session is about first: unreadable, quota-wall, report, the verdict, or pending. */
  headline: Headline;
  /** Why the newest message could not be read (verdict unknown), else null. */
  unreadable: string | null;
  action: SessionAssessment['decision']['action'];
  quotaWall: null | {
    provider: string | null;
    reason: string | null;
    /** Null unless a message or a retry named it. */
    category: FailureCategory | null;
    resetAt: EpochMs | null;
    source: string;
    /** What the wall rests on: a failed turn, a long retry, or only a frozen session on a marked provider. */
    observed: WallObserved;
    abortFirst: boolean;
  };
  /** The completion report, or a line meant as one that does not parse ({"malformed": true, "raw", "problem", ...}). */
  report: CompletionReport | MalformedReport | null;
  settled: boolean;
  basis: string;
  actionBasis: string;
  title: string | null;
  state: string;
  samples: number;
  abortFirst: boolean;
  recoverOn: string | null;
  waitUntil: EpochMs | null;
  escalation: SessionAssessment['decision']['escalation'];
  /** A pending permission or question (verdict waiting, action answer); null when none. */
  waiting: null | { kind: 'permission' | 'question'; title: string; requestID: string };
  /** The parent session of a sub-agent session; null at top level. */
  parentId: string | null;
  /**
   * The engine of a stock opencode server that holds the session: "legacy" (the old routes) or
   * "api" (`/api`, opencode 2's only one); null: not known (a new session, or the spec's dialect).
   */
  engine: Engine | null;
  /** The session's cost with its sub-agents'; null: not reported by this backend. */
  cost: SessionCost | null;
  /** The backend reports cost per message and this session's are not summed yet (cost or its messages null until then). */
  costPending: boolean;
  /** The cost reached the budget (false when there is none). */
  overBudget: boolean;
  /** Why automatic mode leaves the session alone (src/core/operations/charge.ts); null: in its charge, or no automatic mode runs. */
  automaticSkip: { reason: string; text: string } | null;
}

export interface StatusProvider {
  id: string;
  connected: boolean;
  quota: null | {
    markedAt: EpochMs;
    resetAt: EpochMs | null;
    /** How old the mark is when the document was built. */ ageMs?: number;
  };
  name: string | null;
  category: FailureCategory | null;
}

export interface StatusDocument {
  sessions: StatusSession[];
  providers: StatusProvider[];
  allFreeAt: EpochMs | null;
  baseUrl: string;
  directory: string;
  dialect: Dialect | null;
  sampledAt: EpochMs[];
  errors: Array<{ sessionId: string | null; kind: string; message: string }>;
  warnings: string[];
  /** Spend of the listed sessions, in all and per provider; null when none reports a cost. */
  cost: FleetCost | null;
  /** The budget per session the document was checked against (null: none). */
  budgetUsd: number | null;
}

export function statusSession(a: SessionAssessment): StatusSession {
  const w = a.quotaWall;
  return {
    id: a.id,
    verdict: a.unreadable ? 'unknown' : (a.verdict ?? (a.state === 'idle' ? 'idle' : 'healthy')),
    headline: headline(a),
    unreadable: a.unreadable ?? null,
    action: a.decision.action,
    quotaWall: w
      ? {
          provider: w.provider,
          reason: w.reason,
          category: w.category,
          resetAt: w.resetAt,
          source: w.source,
          observed: w.observed,
          abortFirst: w.abortFirst,
        }
      : null,
    report: a.report ?? a.malformedReport ?? null,
    settled: a.settled,
    basis: a.verdictBasis,
    actionBasis: a.decision.basis,
    title: a.title,
    state: a.state,
    samples: a.samples,
    abortFirst: a.decision.abortFirst,
    recoverOn: a.decision.recoverOn,
    waitUntil: a.decision.waitUntil,
    escalation: a.decision.escalation,
    waiting: a.waiting ? { kind: a.waiting.kind, title: a.waiting.title, requestID: a.waiting.requestID } : null,
    parentId: a.parentId ?? null,
    engine: a.engine ?? null,
    cost: a.cost ?? null,
    costPending: a.costPending ?? false,
    overBudget: false,
    automaticSkip: null,
  };
}

/** Each session's cost with its sub-agents' and whether it reached `budgetUsd`; the sum of all. */
export function withCosts(
  assessments: readonly SessionAssessment[],
  sessions: StatusSession[],
  budgetUsd: number | null,
): { sessions: StatusSession[]; cost: FleetCost | null } {
  const entries = assessments.map((a) => ({
    id: a.id,
    parentId: a.parentId ?? null,
    cost: a.cost ?? null,
    provider: a.costProvider ?? null,
  }));
  const rolled = rollUpCosts(entries);
  return {
    sessions: sessions.map((s) => {
      const cost = rolled.get(s.id) ?? null;
      return { ...s, cost, overBudget: overBudget(cost, budgetUsd) };
    }),
    cost: fleetCost(entries),
  };
}

export function statusProviders(listing: ProviderListing, now?: EpochMs): StatusProvider[] {
  return distinctRecords(listing)
    .filter((p) => p.connected || p.quota)
    .map((p) => ({
      id: p.id,
      connected: p.connected,
      quota: p.quota
        ? {
            markedAt: p.quota.markedAt,
            resetAt: p.quota.resetAt,
            ...(now !== undefined ? { ageMs: Math.max(0, now - p.quota.markedAt) } : {}),
          }
        : null,
      name: p.name,
      category: p.quota?.category ?? null,
    }));
}

export function buildStatusDocument(input: {
  assessments: SessionAssessment[];
  listing: ProviderListing;
  baseUrl: string;
  directory: string;
  dialect: Dialect | null;
  sampledAt: EpochMs[];
  errors?: StatusDocument['errors'];
  warnings?: string[];
  /** When the document is built (gives each mark its age). */
  now?: EpochMs;
  /** A session whose cost reaches this is marked overBudget (absent, null or 0: no budget). */
  budgetUsd?: number | null;
  /** Why automatic mode leaves a session alone, by session id (the daemon's operator); absent: null for all. */
  automaticSkip?: (sessionId: string) => { reason: string; text: string } | null;
}): StatusDocument {
  const budgetUsd = input.budgetUsd && input.budgetUsd > 0 ? input.budgetUsd : null;
  const skip = input.automaticSkip;
  const { sessions, cost } = withCosts(
    input.assessments,
    input.assessments.map((a) => (skip ? { ...statusSession(a), automaticSkip: skip(a.id) } : statusSession(a))),
    budgetUsd,
  );
  return {
    sessions,
    providers: statusProviders(input.listing, input.now),
    allFreeAt: allFreeAt(input.listing, input.now),
    baseUrl: input.baseUrl,
    directory: input.directory,
    dialect: input.dialect,
    sampledAt: input.sampledAt,
    errors: input.errors ?? [],
    warnings: input.warnings ?? [],
    cost,
    budgetUsd,
  };
}
