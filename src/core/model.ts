// The one normalized domain model. Both backend dialects (the spec's and stock opencode 1.18) are
// translated into these shapes inside src/core/backend; every decision module and every view reads
// only these. Never import 'vscode' here.

/** Epoch milliseconds. */
export type EpochMs = number;

/** Session state as the spec names it. Stock opencode's busy/retry map to generating, absent to idle. */
export type SessionState = 'generating' | 'idle';

/** Which wire dialect a backend speaks; detected from responses, never configured. */
export type Dialect = 'spec' | 'opencode';

/**
 * Which of a server's session engines holds a session: stock opencode 1.18 runs two behind two
 * HTTP surfaces that share only the list of sessions: the old routes (`/session/...`: legacy) and
 * `/api/...` (api; opencode 2 keeps only this one). A session is read and acted on where it is held.
 */
export type Engine = 'legacy' | 'api';

/** Which surface a backend is spoken to on: auto (each session where it is held), or one forced. */
export type Surface = 'auto' | 'api' | 'legacy';

/**
 * What a backend offers, known once its dialect was detected. Callers ask these instead of
 * comparing dialect names (which stay inside src/core/backend).
 */
export interface BackendCapabilities {
  /** An event stream (GET /event) that nudges sampling and shows output between samples. */
  events: boolean;
  /** Session state comes from a separate status map (GET /session/status). */
  sessionStatus: boolean;
  /** The provider listing carries quota objects; false: the caller keeps its own quota marks. */
  quotaObjects: boolean;
  /** Sessions carry the spec's progress object; false: progress is derived from the newest message. */
  progress: boolean;
  /** Pending permission requests can be listed and answered (stock opencode GET /permission). */
  permissions?: boolean;
  /** Pending agent questions can be listed and answered (stock opencode GET /question). */
  questions?: boolean;
  /** A session's todo list can be read (stock opencode GET /session/{id}/todo). */
  todos?: boolean;
  /** One event stream for every directory (stock opencode GET /global/event). */
  globalEvents?: boolean;
  /** Sessions in the list carry their own cost and token totals (stock opencode Session.cost, .tokens). */
  sessionCost?: boolean;
  /**
   * Assistant messages carry their own cost and tokens (stock opencode), so a session's figures and
   * its number of assistant messages can be summed from its transcript (src/core/cost/message-ledger.ts).
   */
  messageCost?: boolean;
  /** The prompt payload takes the model's `variant` (stock opencode's prompt_async); the spec's defines none. */
  promptVariant?: boolean;
  /** Sessions can be created (stock opencode POST /session); the spec does not show session creation. */
  createSession?: boolean;
}

/** Token counts of a session or a message, by kind. */
export interface TokenCounts {
  input: number;
  output: number;
  reasoning: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * What a session cost, as its backend reports it: US dollars (0 when the model has no price
 * configured) and tokens. `messages` is the number of assistant messages the figures sum, when the
 * backend says (a session's own totals do not count them: null).
 */
export interface SessionCost {
  usd: number;
  tokens: TokenCounts;
  messages: number | null;
}

/** One question of an agent's question tool. */
export interface QuestionItem {
  question: string;
  /** Very short label, when the agent gave one. */
  header: string | null;
  options: Array<{ label: string; description: string | null }>;
  /** More than one option may be chosen. */
  multiple: boolean;
  /** Free text is allowed beside the options. */
  custom: boolean;
}

/**
 * A request that waits for a person: a pending permission (a tool whose permission is `ask`) or a
 * pending question (the agent's question tool). A session with one is never hung.
 */
export interface WaitingRequest {
  kind: WaitingFor;
  /** The backend's request id (checked as a safe path segment on read). */
  requestID: string;
  sessionID: string;
  /** One readable line: "permission: bash ls -la" or "question: Which color?". */
  title: string;
  /** permission: the tool (the permission's name), its patterns and the "always" patterns. */
  permission: { tool: string; patterns: string[]; always: string[] } | null;
  /** question: the questions asked (empty for a permission). */
  questions: QuestionItem[];
}

/** A session's todo list in numbers (stock opencode). */
export interface TodoProgress {
  /** Completed items. */
  done: number;
  /** Items that are not cancelled. */
  total: number;
  /** The first item in progress, when any. */
  inProgress: string | null;
}

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
  /**
   * The engine that holds the session (stock opencode), once a read showed it: the one whose
   * message list has its messages. Null/absent: not known (the spec's dialect, or a new session
   * that no engine shows a message for yet).
   */
  engine?: Engine | null;
  /** The parent session of a sub-agent session (stock opencode `parentID`); absent/null: top level. */
  parentId?: string | null;
  /** The session's own cost and tokens (capabilities.sessionCost); absent/null: not reported by this backend. */
  cost?: SessionCost | null;
  /**
   * True while the figures a backend reports per message are not summed yet for this session (the
   * message ledger reads a transcript once, bounded per round): `cost` is null, or its `messages` is.
   */
  costPending?: boolean;
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
  /** Number of parts the message had when read (evidence; an empty tail has none). */
  partCount?: number;
  /**
   * Stock opencode: a tool call the server reports as running right now. A running tool is a
   * live signal of its own (the generation stream is not dead), so a frozen sample with a running
   * tool is not called hung. Null/absent when none or when the dialect does not say.
   */
  runningTool?: RunningTool | null;
}

/** What a running tool waits for when a person must act (permission prompt, question). */
export type WaitingFor = 'permission' | 'question';

/** A tool call the backend reports as running. */
export interface RunningTool {
  name: string;
  /** When the call started, when the backend says. */
  since: EpochMs | null;
  /**
   * Set when the tool waits for a person (stock opencode `GET /permission`, `GET /question`):
   * such a tool is never subject to the tool ceiling. Nothing fills it yet (hook for the
   * stock-opencode issue); absent/null means "not known to wait".
   */
  waitingFor?: WaitingFor | null;
}

/** One sample of one session: the list entry and its newest message, taken at `at`. */
export interface SessionSample {
  at: EpochMs;
  /**
   * When the read behind this sample began (the session list's request): the state it shows may be
   * that old. Automatic mode decides only on samples read after a session's last act ended.
   * Absent: `at`.
   */
  readFrom?: EpochMs;
  session: SessionSnapshot;
  /** Null when the session has no message yet. */
  newest: MessageSnapshot | null;
  /**
   * Stock opencode: how many output events (message part updates and deltas) the event stream
   * has shown for this session so far. Text streamed into a part is not persisted until the part
   * ends, so a long stream reads frozen in the message list; output seen between two samples is
   * a live signal. Only ever evidence against "hung", never for it. Absent/null: no stream read.
   */
  activity?: number | null;
  /**
   * A pending permission or question of this session, read in the same round (stock opencode
   * GET /permission and GET /question, once per directory). Such a session waits for a person:
   * verdict `waiting`, action `answer`, never hung. Absent/null: none known.
   */
  waiting?: WaitingRequest | null;
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
  /** The backend's default model of this provider, when it says (stock opencode `default`). */
  defaultModel?: string | null;
  /**
   * Per model id, the names of its variants (stock opencode `models[id].variants`, a variant table
   * mapped from a route's effort), for the models that list a variants object; names only, never
   * the variants' options.
   */
  variants?: Readonly<Record<string, readonly string[]>>;
  /**
   * When this client saw a quota object of the provider gone (its cooldown over), as its mark book
   * remembers it; absent/null: never seen. A wall whose failure gave no reset of its own is over
   * then (health/quota-wall wallHolds), unless the wall is known to be newer.
   */
  cooldownEndedAt?: EpochMs | null;
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

/** `waiting`: the session waits for a person (a pending permission or question), never hung. */
export type Verdict = 'healthy' | 'idle' | 'hung' | 'waiting';

export type Action =
  | 'leave-alone'
  /** A person must answer a pending permission or question; never aborted by abort-and-wake. */
  | 'answer'
  | 'wake'
  | 'harvest'
  /** The newest message holds a malformed completion report: a person reads it (never woken over). */
  | 'read-report'
  | 'abort-and-wake'
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

/** A line clearly meant as a completion report that does not parse: a person must read it. */
export interface MalformedReport {
  malformed: true;
  /** The line as written (shortened when long); plain text, never markup. */
  raw: string;
  /**
   * What is wrong: a key given more than once, "no ticket", "no status", "status \"x\" is not done,
   * blocked or handoff", "no summary", or a reason on a status other than blocked.
   */
  problem: string;
  ticket: string | null;
  label: string | null;
  /** As written (not necessarily a valid status). */
  status: string | null;
  pr: string | null;
  summary: string | null;
  reason: string | null;
}

// ---------------------------------------------------------------------------------------------
// Decision outputs (src/core/health). Pure results that the CLI prints and the views render.

/** Outcome of comparing two samples of one session. */
export interface VerdictResult {
  /** Null when the samples cannot support a verdict yet: sample again, never guess. */
  verdict: Verdict | null;
  /** True when another sample (30-60 s later) is needed before deciding. */
  resample: boolean;
  /** One readable line: which signals decided it (or why there is no verdict). */
  basis: string;
  /** Both samples generating and stepCount, lastStepAt and newest message id all frozen. */
  frozen: boolean;
}

/** Which signal revealed a quota wall (the spec's detection order, plus stock opencode's retry status). */
export type WallSource = 'tail-probe' | 'retry-status' | 'provider-listing';

/**
 * What a quota wall rests on, as `status --json` and the prompt state it: a turn that ended on a
 * quota failure (tail probe), a long retry of a quota failure (stock retry status), or only a
 * frozen generating session on a provider with a quota mark (inferred; nothing named a failure).
 */
export type WallObserved = 'failed-turn' | 'retry' | 'provider-marked';

/** A usage-limit failure that stopped (or is spinning) a session. */
export interface QuotaWall {
  /** The provider that failed, when known. */
  provider: string | null;
  /** Spec metadata.reason (or the closest stock-opencode equivalent: rate_limit, insufficient_quota). */
  reason: string | null;
  /** The category a message or a retry named; null when the wall is only inferred from a mark that names none. */
  category: FailureCategory | null;
  /** When the failed provider is expected to be free again; null = unknown. */
  resetAt: EpochMs | null;
  source: WallSource;
  observed: WallObserved;
  /** provider-marked: when the provider's quota mark was set, as the listing gives it. */
  markedAt?: EpochMs | null;
  /** The reset the failed turn or the retry itself gave (not the listing's); null/absent: none. */
  ownResetAt?: EpochMs | null;
  /** When the wall happened (the failed message's time, the sample that saw a retry), when known. */
  failedAt?: EpochMs | null;
  /** The session is still generating (retry spin or dead stream): abort before re-waking. */
  abortFirst: boolean;
  /** Failure text as the backend stored it (plain text, never markup). */
  text: string | null;
}

/** Why a session is escalated to a human, with every marked provider (recovery step 4). */
export interface Escalation {
  reason: 'balance' | 'reset-unknown' | 'reset-out-of-reach';
  message: string;
  marks: Array<{ provider: string; markedAt: EpochMs; resetAt: EpochMs | null }>;
}

/** The action for one session and what it needs. */
export interface ActionDecision {
  action: Action;
  /** Abort (and confirm idle) before sending anything: hung, or a quota wall while generating. */
  abortFirst: boolean;
  basis: string;
  /** recover: the connected provider without a quota object to wake the session on. */
  recoverOn: string | null;
  /** wait-for-reset: when to retry (the earliest known reset among marked connected providers). */
  waitUntil: EpochMs | null;
  escalation: Escalation | null;
}

/** Everything decided about one session from its samples and the provider listing. */
export interface SessionAssessment {
  id: string;
  title: string | null;
  /** Verdict of the last pair of samples; see `settled`. */
  verdict: Verdict | null;
  /** False when no pair of samples agreed (the action is then leave-alone). */
  settled: boolean;
  verdictBasis: string;
  state: SessionState;
  samples: number;
  quotaWall: QuotaWall | null;
  report: CompletionReport | null;
  /** A line meant as a completion report that does not parse (then `report` is null). */
  malformedReport?: MalformedReport | null;
  decision: ActionDecision;
  /** The pending permission or question of the latest sample (verdict `waiting`). */
  waiting?: WaitingRequest | null;
  /** The parent session of a sub-agent session. */
  parentId?: string | null;
  /** The engine that holds the session (stock opencode: legacy or api); absent/null: not known. */
  engine?: Engine | null;
  /** Why the newest message could not be read this round (verdict unknown), or null. */
  unreadable?: string | null;
  /** The session's own cost (sub-agents not included); absent/null: not reported by this backend. */
  cost?: SessionCost | null;
  /** The session's messages are not summed yet (SessionSnapshot.costPending): not 0, not known yet. */
  costPending?: boolean;
  /** The provider the session's cost is put down to: that of its newest message, when known. */
  costProvider?: string | null;
}
