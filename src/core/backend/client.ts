// One BackendClient per base URL and credentials. It speaks both dialects (the spec's and stock
// opencode 1.18), detected from the responses, and returns only the normalized model. Every
// request carries `directory`; liveness reads the newest message with limit=1 only.
import type { BackendCapabilities, Dialect, EpochMs, MessageSnapshot, ProviderListing, SessionSample, SessionSnapshot } from '../model';
import type { ActivityCounter } from './activity';
import { BackendError } from './errors';
import { HttpTransport, type Query, type TransportOptions } from './http';
import { directoryProblem, isValidSessionId, segment } from './ids';
import { isGuardedPrompt, type GuardedPrompt } from '../actions/guard';
import { payloadBody, payloadProblem } from './payload';
import { QuotaMarkBook } from './quota-marks';
import { newestRawMessage, toMessageSnapshot } from './wire/message';
import { deriveProgress } from './wire/opencode-progress';
import { readProviderListing } from './wire/providers';
import { opencodeSession, readSessionList, readStatusMap, specSession, type StatusEntry } from './wire/sessions';
import { ShapeError } from './wire/shape';
import { readVcsFiles } from './wire/vcs';

export interface BackendClientOptions extends TransportOptions {
  /**
   * Quota marks merged into the provider listing when the backend has no quota objects (stock
   * opencode). Hand the same book to a new client (credentials change) so no mark is forgotten;
   * the health layer (recordWalls) fills it from the samples.
   */
  marks?: QuotaMarkBook;
  /** Timeout for the provider listing (stock opencode sends ~6.4 MB). Default 60 s. */
  providerTimeoutMs?: number;
  now?: () => EpochMs;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface SessionList {
  dialect: Dialect | null;
  sessions: SessionSnapshot[];
  warnings: string[];
}

/** One sample of every session of a directory. */
export interface SampleRound {
  directory: string;
  /** When the round started (the session list was requested). */
  at: EpochMs;
  dialect: Dialect | null;
  samples: SessionSample[];
  /** Sessions listed but gone (404) by the time their newest message was read. */
  vanished: string[];
  /** Sessions whose newest message could not be read (other than vanished). */
  errors: Array<{ sessionId: string; error: BackendError }>;
  /** Every listed session whose newest message could not be read (vanished or error), as listed. */
  unreadable: Array<{ session: SessionSnapshot; at: EpochMs; error: BackendError }>;
  warnings: string[];
  /** Every session the list named (also those not sampled by a partial round). */
  listed: string[];
  /** True when only named sessions were sampled (sampleRound's `sessionIds`). */
  partial: boolean;
}

const CAPABILITIES: Record<Dialect, BackendCapabilities> = {
  spec: { events: false, sessionStatus: false, quotaObjects: true, progress: true },
  opencode: { events: true, sessionStatus: true, quotaObjects: false, progress: false },
};

export class BackendClient {
  readonly baseUrl: string;
  readonly marks: QuotaMarkBook;
  private readonly http: HttpTransport;
  private readonly now: () => EpochMs;
  private readonly providerTimeoutMs: number;
  private detected: Dialect | null = null;
  private providerCache = new Map<string, { at: EpochMs; listing: ProviderListing }>();

  constructor(options: BackendClientOptions) {
    this.http = new HttpTransport(options);
    this.baseUrl = this.http.baseUrl;
    this.now = options.now ?? Date.now;
    this.marks = options.marks ?? new QuotaMarkBook(this.now);
    this.providerTimeoutMs = options.providerTimeoutMs ?? 60_000;
  }

  /** The dialect detected so far (null until a response told). */
  get dialect(): Dialect | null {
    return this.detected;
  }

  /** What the backend offers; null until a response told its dialect. */
  get capabilities(): BackendCapabilities | null {
    return this.detected === null ? null : CAPABILITIES[this.detected];
  }

  /** The underlying transport (for the event stream reader). */
  get transport(): HttpTransport {
    return this.http;
  }

  // ---- endpoints ---------------------------------------------------------------------------

  /** GET /session (+ GET /session/status on stock opencode). */
  async listSessions(directory: string, opts: CallOptions = {}): Promise<SessionList> {
    this.checkDirectory(directory, 'GET /session');
    // When the backend is known to be stock opencode, read the status map alongside the list.
    const statusEarly = this.detected === 'opencode' ? this.statusMap(directory, opts) : null;
    statusEarly?.catch(() => undefined);
    const res = await this.http.request({ method: 'GET', path: 'session', query: { directory }, operation: 'GET /session', read: 'json', ...opts });
    const raw = this.shaped('GET /session', () => readSessionList(res.json));
    if (raw.dialect) this.detected = raw.dialect;
    let sessions: SessionSnapshot[];
    if (raw.dialect === 'opencode') {
      const status = await (statusEarly ?? this.statusMap(directory, opts));
      sessions = raw.sessions.map((s) => opencodeSession(s, status));
    } else {
      sessions = this.shaped('GET /session', () => raw.sessions.map(specSession));
    }
    return { dialect: raw.dialect, sessions, warnings: raw.warnings };
  }

  /** GET /session/{id}/message?limit=1: the newest message only (never the transcript). */
  async newestMessage(directory: string, sessionId: string, opts: CallOptions = {}): Promise<MessageSnapshot | null> {
    return (await this.readNewest(directory, sessionId, opts)).message;
  }

  /** POST /session/{id}/abort. Confirm the state afterwards by reading it (src/core/actions/abort.ts). */
  async abort(directory: string, sessionId: string, opts: CallOptions = {}): Promise<void> {
    const op = 'POST /session/{id}/abort';
    this.checkDirectory(directory, op);
    this.checkSession(sessionId, op);
    await this.http.request({ method: 'POST', path: `session/${segment(sessionId)}/abort`, query: { directory }, operation: op, sessionId, read: 'discard', ...opts });
  }

  /**
   * POST /session/{id}/prompt_async. Takes only a prompt that passed the send guard
   * (src/core/actions/guard.ts): an explicit model on a connected, unmarked provider that is not
   * the session's quota wall. A 204 means accepted, not that the prompt ran.
   */
  async promptAsync(prompt: GuardedPrompt, opts: CallOptions = {}): Promise<void> {
    const op = 'POST /session/{id}/prompt_async';
    if (!isGuardedPrompt(prompt)) {
      throw new BackendError({ kind: 'invalid-request', operation: op, baseUrl: this.baseUrl, detail: 'the prompt did not pass the send guard (guardPrompt): nothing was sent' });
    }
    const { directory, sessionId, payload } = prompt;
    this.checkDirectory(directory, op);
    this.checkSession(sessionId, op);
    const problem = payloadProblem(payload);
    if (problem) throw new BackendError({ kind: 'invalid-request', operation: op, baseUrl: this.baseUrl, sessionId, detail: problem });
    await this.http.request({
      method: 'POST',
      path: `session/${segment(sessionId)}/prompt_async`,
      query: { directory },
      body: payloadBody(payload),
      operation: op,
      sessionId,
      read: 'discard',
      ...opts,
    });
  }

  /**
   * Stock opencode GET /vcs/status?directory=: the worktree's changed files as the server reads
   * them (works for remote servers). Null when the backend has no such endpoint (404).
   */
  async vcsStatus(directory: string, opts: CallOptions = {}): Promise<string[] | null> {
    const op = 'GET /vcs/status';
    this.checkDirectory(directory, op);
    let res;
    try {
      res = await this.http.request({ method: 'GET', path: 'vcs/status', query: { directory }, operation: op, read: 'json', ...opts });
    } catch (err) {
      if (err instanceof BackendError && err.kind === 'not-found') return null;
      throw err;
    }
    return this.shaped(op, () => readVcsFiles(res.json));
  }

  /**
   * GET /provider, with provider `options` dropped on read. On stock opencode the remembered
   * quota marks are merged in. `maxAgeMs` reuses a recent listing (the stock one is ~6.4 MB).
   */
  async listProviders(directory: string, opts: CallOptions & { maxAgeMs?: number } = {}): Promise<ProviderListing> {
    const op = 'GET /provider';
    this.checkDirectory(directory, op);
    const cached = this.providerCache.get(directory);
    let listing: ProviderListing;
    if (cached && opts.maxAgeMs !== undefined && this.now() - cached.at <= opts.maxAgeMs) {
      listing = cached.listing;
    } else {
      const res = await this.http.request({ method: 'GET', path: 'provider', query: { directory }, operation: op, read: 'json', timeoutMs: opts.timeoutMs ?? this.providerTimeoutMs, signal: opts.signal });
      const read = this.shaped(op, () => readProviderListing(res.json));
      if (!this.detected && read.dialect) this.detected = read.dialect;
      listing = read.listing;
      this.providerCache.set(directory, { at: this.now(), listing });
    }
    return this.withMarks(listing);
  }

  // ---- compositions ------------------------------------------------------------------------

  /**
   * One sample of every session: the list (and status map), then the newest message of each
   * session in parallel within the pool's bounded concurrency. On stock opencode, progress is
   * derived from the newest message. Remembering quota walls is the caller's (health/recordWalls).
   * `activity`: the counter fed by the event stream (readEventStream), copied into each sample.
   * `sessionIds`: sample only these sessions (an event named them); the list is read as always.
   */
  async sampleRound(directory: string, opts: CallOptions & { activity?: ActivityCounter; sessionIds?: Iterable<string> } = {}): Promise<SampleRound> {
    const at = this.now();
    const list = await this.listSessions(directory, opts);
    // A nudge for named sessions: the list (and status map) as always, the newest message of
    // those sessions only. `listed` still carries every session, so the caller sees new ones.
    const only = opts.sessionIds ? new Set(opts.sessionIds) : null;
    const sampled = only ? list.sessions.filter((s) => only.has(s.id)) : list.sessions;
    const opencode = list.dialect === 'opencode';
    const vanished: string[] = [];
    const errors: SampleRound['errors'] = [];
    const unreadable: SampleRound['unreadable'] = [];
    const sampleOne = (session: SessionSnapshot): Promise<SessionSample | null> =>
      this.readNewest(directory, session.id, opts, opencode).then(
        ({ message, progress }): SessionSample => {
          if (opencode) session.progress = progress;
          const sample: SessionSample = { at: this.now(), session, newest: message };
          if (opts.activity) sample.activity = opts.activity.count(session.id);
          return sample;
        },
        (err: unknown) => {
          if (err instanceof BackendError && err.kind === 'not-found') vanished.push(session.id);
          else if (err instanceof BackendError && err.kind !== 'aborted') errors.push({ sessionId: session.id, error: err });
          else throw err;
          unreadable.push({ session, at: this.now(), error: err });
          return null;
        },
      );
    const results = await Promise.all(sampled.map(sampleOne));
    const samples = results.filter((s): s is SessionSample => s !== null);
    return { directory, at, dialect: list.dialect, samples, vanished, errors, unreadable, warnings: list.warnings, listed: list.sessions.map((s) => s.id), partial: only !== null };
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  // ---- internals ---------------------------------------------------------------------------

  private async readNewest(directory: string, sessionId: string, opts: CallOptions, derive = this.detected === 'opencode') {
    const op = 'GET /session/{id}/message';
    this.checkDirectory(directory, op);
    this.checkSession(sessionId, op);
    const res = await this.http.request({
      method: 'GET',
      path: `session/${segment(sessionId)}/message`,
      query: { directory, limit: 1 },
      operation: op,
      sessionId,
      read: 'json',
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
    });
    try {
      const raw = newestRawMessage(res.json);
      return { message: raw ? toMessageSnapshot(raw) : null, progress: derive ? deriveProgress(raw) : null };
    } catch (err) {
      if (err instanceof ShapeError) throw new BackendError({ kind: 'malformed', operation: op, baseUrl: this.baseUrl, sessionId, detail: err.message });
      throw err;
    }
  }

  private async statusMap(directory: string, opts: CallOptions): Promise<Map<string, StatusEntry>> {
    const op = 'GET /session/status';
    let res;
    try {
      res = await this.http.request({ method: 'GET', path: 'session/status', query: { directory } satisfies Query, operation: op, read: 'json', ...opts });
    } catch (err) {
      if (err instanceof BackendError && err.kind === 'not-found') {
        throw new BackendError({ kind: 'malformed', operation: 'GET /session', baseUrl: this.baseUrl, detail: 'sessions carry no state and GET /session/status does not exist' });
      }
      throw err;
    }
    return this.shaped(op, () => readStatusMap(res.json));
  }

  private withMarks(listing: ProviderListing): ProviderListing {
    const marks = this.marks.list();
    if (marks.length === 0) return listing;
    const byId = new Map(marks.map((m) => [m.provider, m]));
    const providers = listing.providers.map((p) => {
      const m = byId.get(p.id);
      byId.delete(p.id);
      return p.quota || !m ? p : { ...p, quota: { markedAt: m.markedAt, resetAt: m.resetAt, category: m.category ?? null } };
    });
    for (const m of byId.values()) {
      providers.push({ id: m.provider, name: null, connected: false, quota: { markedAt: m.markedAt, resetAt: m.resetAt, category: m.category ?? null }, models: [] });
    }
    return { providers, connected: listing.connected };
  }

  private shaped<T>(operation: string, read: () => T, sessionId?: string): T {
    try {
      return read();
    } catch (err) {
      if (err instanceof ShapeError) throw new BackendError({ kind: 'malformed', operation, baseUrl: this.baseUrl, sessionId, detail: err.message });
      throw err;
    }
  }

  private checkDirectory(directory: string, operation: string): void {
    const problem = directoryProblem(directory);
    if (problem) throw new BackendError({ kind: 'invalid-request', operation, baseUrl: this.baseUrl, detail: problem });
  }

  private checkSession(sessionId: string, operation: string): void {
    if (!isValidSessionId(sessionId)) {
      throw new BackendError({ kind: 'invalid-request', operation, baseUrl: this.baseUrl, detail: 'session id is not a safe path segment' });
    }
  }
}
