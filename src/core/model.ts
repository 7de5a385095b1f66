// The one normalized domain model. Both backend dialects (the spec's and stock opencode 1.18) are
// translated into these shapes inside src/core/backend; every decision module and every view reads
// only these. Never import 'vscode' here.

/** Epoch milliseconds. */
export type EpochMs = number;

/** Session state as the spec names it. Stock opencode's busy/retry map to generating, absent to idle. */
export type SessionState = 'generating' | 'idle';

/** Which wire dialect a backend speaks; detected from responses, never configured. */
export type Dialect = 'spec' | 'opencode';

/** The spec's progress object; absent means "no signal" (rule 3). */
export interface Progress {
  /** Cumulative count of model rounds. */
  stepCount: number;
  /** Heartbeat, epoch ms. A long tool call can keep it stale while the session is alive. */
  lastStepAt: EpochMs;
}

/** Stock opencode reports a rate-limit retry loop as a status of its own. */
export interface RetryStatus {
  attempt: number;
  message: string;
  /** When the next attempt fires (epoch ms), when known. */
  next: EpochMs | null;
}

/** One session as read from the session list (one sample's view of it). */
export interface SessionSnapshot {
  id: string;
  title: string | null;
  state: SessionState;
  /** Present while stock opencode is retrying a failed model call. */
  retry: RetryStatus | null;
  /** Spec dialect: from the server. Stock opencode: derived from the newest message's parts. */
  progress: Progress | null;
  /** Last update time of the session record, when the backend says. */
  updatedAt: EpochMs | null;
}

/** The failure categories of the spec's Errors table. */
export type FailureCategory = 'usage-limit' | 'free-tier' | 'rate-limit' | 'balance';

/** A failure recorded on a message: the spec's error text part, or stock opencode's info.error. */
export interface MessageFailure {
  /** Human-readable failure text (never trusted as markup). */
  text: string;
  /** Spec metadata.reason (account_rate_limit, free_tier_limit, account_usage_limit, rate_limit) or null. */
  reason: string | null;
  /** Provider that failed, when known. */
  provider: string | null;
  /** HTTP status of the failed model call, when known (stock opencode APIError). */
  statusCode: number | null;
  /** The quota-wall category, or null when this failure is not a quota wall (e.g. an aborted turn). */
  category: FailureCategory | null;
  /** Reset estimate, when the failure carries one (retry-after header, reset text), epoch ms. */
  resetAt: EpochMs | null;
}

/** The newest message of a session (read with limit=1 only). */
export interface MessageSnapshot {
  id: string;
  role: string;
  /** Spec: 'error' marks a failed turn. Stock opencode: normalized to 'error' when info.error is set. */
  finish: string | null;
  /** Concatenation of the message's text parts. */
  text: string;
  failure: MessageFailure | null;
  providerID: string | null;
  modelID: string | null;
  createdAt: EpochMs | null;
  completedAt: EpochMs | null;
}

/** One sample of one session: the list entry and its newest message, taken at `at`. */
export interface SessionSample {
  at: EpochMs;
  session: SessionSnapshot;
  /** Null when the session has no message yet. */
  newest: MessageSnapshot | null;
}

/** A usage-limit cooldown on a provider (spec quota object, or a wall remembered for stock opencode). */
export interface QuotaMark {
  markedAt: EpochMs;
  /** Null means reset time unknown. */
  resetAt: EpochMs | null;
  /** Balance failures are cured by top-up, not by time. */
  category?: FailureCategory | null;
}

/** A provider record. Provider `options` (which echo API keys on stock opencode) are never kept. */
export interface ProviderRecord {
  id: string;
  name: string | null;
  connected: boolean;
  quota: QuotaMark | null;
  /** Model ids the provider offers (ids only). */
  models: string[];
}

export interface ProviderListing {
  providers: ProviderRecord[];
  /** Ids of connected providers. */
  connected: string[];
}

/** An explicit provider/model; every launch or wake names one. */
export interface ModelRef {
  providerID: string;
  modelID: string;
}

export type Verdict = 'healthy' | 'idle' | 'hung';

export type Action =
  | 'leave-alone'
  | 'wake'
  | 'harvest'
  | 'abort-then-wake'
  | 'recover'
  | 'wait-for-reset'
  | 'escalate';

export type ReportStatus = 'done' | 'blocked' | 'handoff';

/** The one-line key=value completion report. */
export interface CompletionReport {
  ticket: string;
  label: string | null;
  status: ReportStatus;
  pr: string | null;
  summary: string | null;
  reason: string | null;
}
