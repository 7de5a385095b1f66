// The documented limits of the backend client: deadlines and sizes. Each is far above what a
// healthy backend needs (stock opencode 1.18's provider listing is ~6.4 MB, a session list of a
// few hundred sessions is well under 1 MB, one newest message a few hundred KB) and bounds what a
// misbehaving one can cost. They are overridable per client (BackendClientOptions /
// TransportOptions) and per call (CallOptions.timeoutMs); the CLI sets the request deadline with
// `--timeout SECONDS`.

const MiB = 1024 * 1024;

/**
 * Total deadline of one request, headers and body together, from the moment it is handed to the
 * connection pool to its last body byte. A server that drips its body a few bytes at a time hits
 * it just like one that never answers.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/** Total deadline of GET /provider (the stock listing is ~6.4 MB): twice the request deadline, 30 s by default. */
export const PROVIDER_TIMEOUT_FACTOR = 2;
export const DEFAULT_PROVIDER_TIMEOUT_MS = PROVIDER_TIMEOUT_FACTOR * DEFAULT_REQUEST_TIMEOUT_MS;

/** The most read from one response of each endpoint; reading stops as soon as it is passed. */
export const BODY_LIMITS = {
  /** GET /provider. */
  providers: 32 * MiB,
  /** GET /session. */
  sessionList: 16 * MiB,
  /** GET /session/status (stock opencode). */
  statusMap: 16 * MiB,
  /** GET /session/{id}/message?limit=1 (one message). */
  message: 8 * MiB,
  /** GET /session/{id}/message?limit=N&before=: one page of messages summed for cost. */
  messagePage: 8 * MiB,
  /** GET /session/{id}/message without limit: the transcript, read once for its first user message (never for liveness). */
  transcript: 16 * MiB,
  /** Any other response. */
  other: 8 * MiB,
} as const;

/**
 * Sessions sampled per directory per round: beyond this many the most recently updated are kept
 * and the round says how many were listed (SampleRound.truncated). 1,000 is the largest
 * directory the benches sample in one round (bench/poll.mjs).
 */
export const MAX_SESSIONS_PER_ROUND = 1_000;

/** Event stream: no complete line (event, heartbeat, comment) for this long means a dead stream: it is dropped and reconnected; stock opencode beats every 10 s. */
export const DEFAULT_EVENT_IDLE_TIMEOUT_MS = 35_000;

/** Event stream: one event (or an unterminated line) larger than this drops the connection. */
export const MAX_EVENT_CHARS = 16 * MiB;
