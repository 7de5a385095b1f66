// One BackendClient per base URL and credentials. It reads the endpoints every dialect shares and
// hands the raw bodies to the adapter of the dialect its detector chose from the responses
// (./dialects: the spec's, stock opencode 1.18); optional endpoints are read only when the
// adapter's capabilities say the backend has them. It returns only the normalized model. Every
// request carries `directory`; liveness reads the newest message with limit=1 only.
import type {
  BackendCapabilities,
  Dialect,
  Engine,
  EpochMs,
  MessageSnapshot,
  Progress,
  ProviderListing,
  SessionSample,
  SessionSnapshot,
  Surface,
  TodoProgress,
  WaitingRequest,
} from '../model';
import { systemClock, type Clock } from '../clock';
import type { ActivityCounter } from './activity';
import { ApiEngine } from './api-engine';
import { opencodeApiDialect } from './dialects/opencode-api';
import { EngineBook, holder } from './engines';
import { BackendError, readShaped } from './errors';
import { HttpTransport, type Query, type TransportOptions } from './http';
import { directoryProblem, isValidSessionId, segment } from './id-checks';
import { BODY_LIMITS, DEFAULT_PROVIDER_TIMEOUT_MS, MAX_SESSIONS_PER_ROUND, PROVIDER_TIMEOUT_FACTOR } from './limits';
import { isGuardedPrompt, type GuardedPrompt } from './guarded-prompt';
import { payloadBody, payloadProblem } from './payload';
import { QuotaMarkBook } from './quota-marks';
import type { DialectAdapter } from './dialects/adapter';
import { DialectDetector } from './dialects/detect';
import { firstRawUserMessage, newestRawMessage, toMessageSnapshot } from './wire/message';
import { readMessagePage, type MessagePage } from './wire/message-page';
import { readConnectedProviders, readProviderListing } from './wire/providers';
import { requestProviderListing } from './provider-request';
import { readSessionList, readStatusMap, type StatusEntry } from './wire/sessions';
import { ShapeError, type Obj } from './wire/shape';
import { readVcsFiles } from './wire/vcs';
import { readPermissionList } from './wire/permission';
import { answersProblem, readQuestionList } from './wire/question';
import { readTodoList } from './wire/todo';

export interface BackendClientOptions extends TransportOptions {
  /**
   * Quota marks merged into the provider listing when the backend has no quota objects (stock
   * opencode). Hand the same book to a new client (credentials change) so no mark is forgotten;
   * the health layer (recordWalls) fills it from the samples.
   */
  marks?: QuotaMarkBook;
  /** Total deadline of the provider listing (stock opencode sends ~6.4 MB). Default twice timeoutMs, 30 s (limits.ts). */
  providerTimeoutMs?: number;
  /** Sessions sampled per directory per round; the most recently updated are kept. Default 1,000 (limits.ts). */
  maxSessionsPerRound?: number;
  /**
   * Which surface of a stock opencode server to speak: `auto` (default) reads and acts on each
   * session through the engine that holds it, and goes all-`/api` when the old routes answer
   * 404/400; `api` / `legacy` force one (./engines.ts).
   */
  surface?: Surface;
  /** The one clock (src/core/clock.ts) the client reads the time from (default the system's). */
  clock?: Clock;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** A permission reply: allow this call, allow it from now on (its `always` patterns), or refuse it. */
export type PermissionReply = 'once' | 'always' | 'reject';

/** The requests of a directory that wait for a person, each a list (empty when none or unsupported). */
export interface PendingRequests {
  permissions: WaitingRequest[];
  questions: WaitingRequest[];
  warnings: string[];
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
  /** Every session the list named (also those not sampled by a partial round); absent: samples + unreadable. */
  listed?: string[];
  /** True when only named sessions were sampled (sampleRound's `sessionIds`). */
  partial?: boolean;
  /** Set when the directory listed more sessions than maxSessionsPerRound: only `kept` were sampled. */
  truncated?: { listed: number; kept: number };
}

export class BackendClient {
  readonly baseUrl: string;
  readonly marks: QuotaMarkBook;
  private readonly http: HttpTransport;
  private readonly now: () => EpochMs;
  private readonly providerTimeoutMs: number;
  private readonly maxSessionsPerRound: number;
  private readonly detector = new DialectDetector();
  private readonly engines: EngineBook;
  private readonly api: ApiEngine;
  /** Which engine each pending request (permission, question) came from, and its session. */
  private readonly requestEngines = new Map<string, { engine: Engine; sessionID: string }>();
  /** When GET /api/health last failed other than 404 (asked again a minute later). */
  private apiProbeFailedAt: EpochMs | null = null;
  private providerCache = new Map<string, { at: EpochMs; listing: ProviderListing }>();
  /** A session list being read: a provider listing asked meanwhile waits for the dialect it tells. */
  private sessionsReading: Promise<unknown> | null = null;
  /** False once GET /config/providers answered 404: GET /provider from then on. */
  private connectedListingServed = true;

  constructor(options: BackendClientOptions) {
    this.http = new HttpTransport(options);
    this.baseUrl = this.http.baseUrl;
    this.now = (options.clock ?? systemClock).now;
    this.marks = options.marks ?? new QuotaMarkBook(this.now);
    this.providerTimeoutMs =
      options.providerTimeoutMs ??
      (options.timeoutMs !== undefined ? PROVIDER_TIMEOUT_FACTOR * options.timeoutMs : DEFAULT_PROVIDER_TIMEOUT_MS);
    this.maxSessionsPerRound = Math.max(1, Math.floor(options.maxSessionsPerRound ?? MAX_SESSIONS_PER_ROUND));
    this.engines = new EngineBook(options.surface ?? 'auto');
    this.api = new ApiEngine(this.http, this.baseUrl);
  }

  /** The surface setting this client was made with. */
  get surface(): Surface {
    return this.engines.surface;
  }

  /** Which surfaces the server was seen to serve (null: not known yet). */
  get surfaces(): { legacy: boolean | null; api: boolean | null } {
    return { legacy: this.engines.legacy, api: this.engines.api };
  }

  /** The engine known to hold a session (null: not known yet, or not a stock opencode server). */
  engineOf(sessionId: string): Engine | null {
    return this.adapter?.dialect === 'opencode' ? this.engines.of(sessionId) : null;
  }

  /** The adapter of the sessions' reads: the detector's, or the `/api` one when only `/api` is spoken. */
  private get adapter(): DialectAdapter | null {
    return this.engines.apiOnly ? opencodeApiDialect : this.detector.adapter;
  }

  /** The dialect detected so far (null until a response told): data for reports, not for decisions. */
  get dialect(): Dialect | null {
    return this.adapter?.dialect ?? null;
  }

  /** What the backend offers; null until a response told its dialect. */
  get capabilities(): BackendCapabilities | null {
    return this.adapter?.capabilities ?? null;
  }

  /** What a view shows for the backend ("opencode", "spec dialect"); null until a response told. */
  get displayName(): string | null {
    return this.adapter?.displayName ?? null;
  }

  /** The underlying transport (for the event stream reader). */
  get transport(): HttpTransport {
    return this.http;
  }

  // ---- endpoints ---------------------------------------------------------------------------

  /** GET /session (+ GET /session/status when the dialect keeps state there: capabilities.sessionStatus). */
  async listSessions(directory: string, opts: CallOptions = {}): Promise<SessionList> {
    return (await this.readSessions(directory, opts)).list;
  }

  /**
   * The session list (and status map) of a directory. While it is read, `sessionsReading` holds it: a
   * provider listing asked meanwhile waits for the dialect (and the engines) it tells.
   */
  private readSessions(
    directory: string,
    opts: CallOptions,
  ): Promise<{ list: SessionList; adapter: DialectAdapter | null }> {
    const reading = this.readSessionsNow(directory, opts);
    this.sessionsReading = reading;
    const done = () => {
      if (this.sessionsReading === reading) this.sessionsReading = null;
    };
    reading.then(done, done);
    return reading;
  }

  private async readSessionsNow(
    directory: string,
    opts: CallOptions,
  ): Promise<{ list: SessionList; adapter: DialectAdapter | null }> {
    this.checkDirectory(directory, 'GET /session');
    if (this.engines.apiOnly) return this.readApiSessions(directory, opts);
    // When the dialect is known to keep state in a status map, read it alongside the list.
    const statusEarly = this.detector.adapter?.capabilities.sessionStatus ? this.statusMap(directory, opts) : null;
    statusEarly?.catch(() => undefined);
    let res;
    try {
      res = await this.http.request({
        method: 'GET',
        path: 'session',
        query: { directory },
        operation: 'GET /session',
        read: 'json',
        maxBytes: BODY_LIMITS.sessionList,
        ...opts,
      });
    } catch (err) {
      // opencode 2 answers 404/400 on the old routes: everything goes through `/api` from here on.
      if (!this.oldRoutesGone(err)) throw err;
      const viaApi = await this.readApiSessions(directory, opts).catch((apiErr: unknown) => {
        throw apiErr instanceof BackendError && apiErr.code === 'aborted' ? apiErr : err;
      });
      this.engines.legacy = false;
      return viaApi;
    }
    this.engines.legacy = true;
    const raw = this.shaped('GET /session', () => readSessionList(res.json));
    const listed = this.shaped('GET /session', () => this.detector.fromSessionList(raw.sessions));
    let sessions: SessionSnapshot[] = [];
    if (listed) {
      const both = listed.dialect === 'opencode' && (await this.servesApi(opts));
      const active = both ? this.api.active(opts) : null;
      active?.catch(() => undefined);
      const status = listed.capabilities.sessionStatus ? await (statusEarly ?? this.statusMap(directory, opts)) : null;
      // A session held by the `/api` engine runs there only: its state is in GET /api/session/active.
      const merged = active && status ? new Map([...(await active), ...status]) : status;
      sessions = this.shaped('GET /session', () => listed.toSessions(raw.sessions, merged));
      if (listed.dialect === 'opencode') for (const s of sessions) this.markEngine(s);
    }
    // An empty directory says nothing about the dialect: the detector asks (GET /session/status)
    // so that events and pending requests are read before the first session appears.
    const adapter = listed ?? this.detector.adapter ?? (await this.detector.probe(this.http, directory, opts));
    if (adapter?.dialect === 'opencode' && !listed) await this.servesApi(opts);
    return { list: { dialect: adapter?.dialect ?? null, sessions, warnings: raw.warnings }, adapter };
  }

  /** GET /api/session (+ GET /api/session/active): every session of the directory through `/api`. */
  private async readApiSessions(
    directory: string,
    opts: CallOptions,
  ): Promise<{ list: SessionList; adapter: DialectAdapter }> {
    const adapter = opencodeApiDialect;
    const active = this.api.active(opts);
    active.catch(() => undefined);
    const raw = await this.api.listSessions(directory, this.maxSessionsPerRound, opts);
    const status = await active;
    this.engines.api = true;
    const sessions = this.shaped('GET /api/session', () => adapter.toSessions(raw.sessions, status));
    for (const s of sessions) s.engine = 'api';
    const warnings = [...raw.warnings];
    if (raw.sessions.length >= this.maxSessionsPerRound && raw.next)
      warnings.push(
        truncationWarning({ listed: raw.sessions.length, kept: raw.sessions.length }).replace(
          /^\d+ sessions listed/,
          'more sessions listed than one page holds',
        ),
      );
    return { list: { dialect: adapter.dialect, sessions, warnings }, adapter };
  }

  /** A listed session's engine, when known; an `/api`-held session's own totals are the engine's zeros: not read. */
  private markEngine(session: SessionSnapshot): void {
    const engine = this.engines.of(session.id);
    session.engine = engine;
    if (engine === 'api') session.cost = null;
  }

  /** Whether the server serves `/api` (GET /api/health, asked once; a failure other than 404 is asked again a minute later). */
  private async servesApi(opts: CallOptions): Promise<boolean> {
    if (this.engines.api !== null) return this.engines.api;
    if (this.apiProbeFailedAt !== null && this.now() - this.apiProbeFailedAt < 60_000) return false;
    try {
      this.engines.api = await this.api.served(opts);
      this.apiProbeFailedAt = null;
    } catch (err) {
      if (err instanceof BackendError && err.code === 'aborted') throw err;
      this.apiProbeFailedAt = this.now();
      return false;
    }
    return this.engines.api;
  }

  /** GET /api/provider and GET /api/model: they carry API keys: read into ids, names and models only. */
  private async apiProviders(directory: string, opts: CallOptions): Promise<ProviderListing> {
    const listing = await this.api.providers(directory, {
      signal: opts.signal,
      timeoutMs: opts.timeoutMs ?? this.providerTimeoutMs,
    });
    this.providerCache.set(directory, { at: this.now(), listing });
    return listing;
  }

  /**
   * Stock opencode's connected providers alone, from GET /config/providers: the same records, models
   * and variants as GET /provider gives for them, without the whole catalogue (on 1.18.33: 7 KB and
   * about 6 ms of the server's CPU, against 6.4 MB and about 0.9 s: bench/providers.mjs). Only on a
   * server whose dialect is known to be stock opencode: that dialect has no quota objects, so nothing
   * the send guard reads is lost. Null: read GET /provider instead (the dialect is not known, or this
   * server does not serve the route).
   */
  private async connectedProviders(directory: string, opts: CallOptions): Promise<ProviderListing | null> {
    if (this.detector.adapter?.dialect !== 'opencode' || !this.connectedListingServed) return null;
    let json: unknown;
    try {
      json = await requestProviderListing(this.http, 'config/providers', directory, this.providerCall(opts));
    } catch (err) {
      if (!(err instanceof BackendError && err.code === 'not-found')) throw err;
      this.connectedListingServed = false;
      return null;
    }
    return this.shaped('GET /config/providers', () => readConnectedProviders(json));
  }

  /** For a client that has not listed yet: lists once, so a server without the old routes is known as one. */
  private async oldRoutesGoneHere(directory: string, opts: CallOptions): Promise<boolean> {
    if (this.engines.legacy !== null || this.engines.surface !== 'auto' || this.detector.adapter) return false;
    await this.readSessions(directory, { signal: opts.signal, timeoutMs: opts.timeoutMs });
    return this.engines.apiOnly;
  }

  /** A 404/400 answer of the old session list while `surface` is auto: a server without the old routes. */
  private oldRoutesGone(err: unknown): boolean {
    return (
      this.engines.surface === 'auto' &&
      this.detector.adapter?.dialect !== 'spec' &&
      err instanceof BackendError &&
      (err.code === 'not-found' || (err.code === 'rejected' && err.status === 400))
    );
  }

  /** GET /session/{id}/message?limit=1: the newest message only (never the transcript). */
  async newestMessage(directory: string, sessionId: string, opts: CallOptions = {}): Promise<MessageSnapshot | null> {
    return (await this.readNewest(directory, sessionId, opts)).message;
  }

  /**
   * GET /session/{id}/message?limit=N[&before=CURSOR]: one page of messages for summing cost (never
   * a liveness read). `before` is the `next` cursor of the previous page; each page under the body cap.
   */
  async messagePage(
    directory: string,
    sessionId: string,
    page: { limit: number; before?: string | null },
    opts: CallOptions = {},
  ): Promise<MessagePage> {
    const op = 'GET /session/{id}/message (page)';
    this.checkDirectory(directory, op);
    this.checkSession(sessionId, op);
    const limit = Math.floor(page.limit);
    if (!(limit >= 1)) throw this.invalid(op, 'limit must be at least 1');
    if ((await this.engineFor(directory, sessionId, opts)) === 'api')
      return this.api.messagePage(directory, sessionId, { limit, before: page.before }, opts);
    const res = await this.http.request({
      method: 'GET',
      path: `session/${segment(sessionId)}/message`,
      query: { directory, limit, before: page.before ?? undefined },
      operation: op,
      sessionId,
      read: 'json',
      maxBytes: BODY_LIMITS.messagePage,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
    });
    return this.shaped(op, () => readMessagePage(res.json, res.headers), sessionId);
  }

  /**
   * The session's first user message (its assignment), read once from the transcript (GET
   * /session/{id}/message without limit, under the transcript cap; never a liveness read): the
   * oldest message with role user, or null when it has none.
   */
  async firstUserMessage(
    directory: string,
    sessionId: string,
    opts: CallOptions = {},
  ): Promise<MessageSnapshot | null> {
    const op = 'GET /session/{id}/message (first user message)';
    this.checkDirectory(directory, op);
    this.checkSession(sessionId, op);
    if ((await this.engineFor(directory, sessionId, opts)) === 'api') {
      const raw = await this.api.firstUserMessage(directory, sessionId, opts);
      return raw ? this.shaped(op, () => toMessageSnapshot(raw), sessionId) : null;
    }
    const res = await this.http.request({
      method: 'GET',
      path: `session/${segment(sessionId)}/message`,
      query: { directory },
      operation: op,
      sessionId,
      read: 'json',
      maxBytes: BODY_LIMITS.transcript,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
    });
    return this.shaped(
      op,
      () => {
        const raw = firstRawUserMessage(res.json);
        return raw ? toMessageSnapshot(raw) : null;
      },
      sessionId,
    );
  }

  /** POST /session/{id}/abort. Confirm the state afterwards by reading it (src/core/actions/abort.ts). */
  async abort(directory: string, sessionId: string, opts: CallOptions = {}): Promise<void> {
    const op = 'POST /session/{id}/abort';
    this.checkDirectory(directory, op);
    this.checkSession(sessionId, op);
    if ((await this.engineFor(directory, sessionId, opts)) === 'api')
      return this.api.interrupt(directory, sessionId, opts);
    await this.post(op, `session/${segment(sessionId)}/abort`, directory, opts, { sessionId });
  }

  /**
   * POST /session/{id}/prompt_async. Takes only a prompt that passed the send guard
   * (src/core/actions/guard.ts): an explicit model on a connected, unmarked provider that is not
   * the session's quota wall. A 204 means accepted, not that the prompt ran.
   */
  async promptAsync(prompt: GuardedPrompt, opts: CallOptions = {}): Promise<void> {
    const op = 'POST /session/{id}/prompt_async';
    if (!isGuardedPrompt(prompt)) {
      throw new BackendError({
        code: 'invalid-request',
        operation: op,
        baseUrl: this.baseUrl,
        detail: 'the prompt did not pass the send guard (guardPrompt): nothing was sent',
      });
    }
    const { directory, sessionId, payload } = prompt;
    this.checkDirectory(directory, op);
    this.checkSession(sessionId, op);
    // The spec's payload defines agent, model and parts: a variant goes only to a dialect that takes it.
    const problem =
      payloadProblem(payload) ??
      (payload.variant !== undefined && this.capabilities?.promptVariant !== true
        ? `this backend's dialect (${this.displayName ?? 'not yet detected'}) defines no variant in the prompt payload: nothing was sent`
        : null);
    if (problem)
      throw new BackendError({
        code: 'invalid-request',
        operation: op,
        baseUrl: this.baseUrl,
        sessionId,
        detail: problem,
      });
    if ((await this.engineFor(directory, sessionId, opts)) === 'api')
      // The variant travels in the engine's model switch, checked against its own model listing.
      return this.api.prompt(
        directory,
        sessionId,
        {
          agent: payload.agent,
          model: payload.model,
          variant: payload.variant ?? null,
          text: payload.parts.map((p) => p.text).join('\n'),
        },
        opts,
      );
    await this.post(op, `session/${segment(sessionId)}/prompt_async`, directory, opts, {
      sessionId,
      body: payloadBody(payload),
    });
  }

  /**
   * Stock opencode POST /session?directory= with {title}: a new session, its id returned. Only on a
   * dialect that can create sessions (capabilities.createSession; the spec does not show it):
   * otherwise refused with that reason, nothing sent. The caller lists sessions first, so the
   * dialect is known.
   */
  async createSession(directory: string, title: string, opts: CallOptions = {}): Promise<string> {
    const op = 'POST /session';
    this.checkDirectory(directory, op);
    if (this.capabilities?.createSession !== true)
      throw new BackendError({
        code: 'invalid-request',
        operation: op,
        baseUrl: this.baseUrl,
        detail: `this backend (${this.displayName ?? 'dialect not yet detected'}) does not create sessions: the spec does not show session creation; nothing was sent`,
      });
    const res = await this.http.request({
      method: 'POST',
      path: 'session',
      query: { directory },
      body: JSON.stringify({ title }),
      operation: op,
      read: 'json',
      ...opts,
    });
    const id = (res.json as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || !isValidSessionId(id))
      throw new BackendError({
        code: 'malformed',
        operation: op,
        baseUrl: this.baseUrl,
        detail: 'the answer carries no valid session id',
      });
    return id;
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
      res = await this.http.request({
        method: 'GET',
        path: 'vcs/status',
        query: { directory },
        operation: op,
        read: 'json',
        ...opts,
      });
    } catch (err) {
      if (err instanceof BackendError && err.code === 'not-found') return null;
      throw err;
    }
    return this.shaped(op, () => readVcsFiles(res.json));
  }

  /** Stock opencode GET /permission: pending permission requests of the directory ([] when unsupported). */
  async listPermissions(
    directory: string,
    opts: CallOptions = {},
  ): Promise<{ requests: WaitingRequest[]; warnings: string[] }> {
    const op = 'GET /permission';
    this.checkDirectory(directory, op);
    const body = await this.optionalJson('permission', directory, op, opts);
    return body === null ? { requests: [], warnings: [] } : this.shaped(op, () => readPermissionList(body));
  }

  /** Stock opencode GET /question: pending questions of the directory ([] when unsupported). */
  async listQuestions(
    directory: string,
    opts: CallOptions = {},
  ): Promise<{ requests: WaitingRequest[]; warnings: string[] }> {
    const op = 'GET /question';
    this.checkDirectory(directory, op);
    const body = await this.optionalJson('question', directory, op, opts);
    return body === null ? { requests: [], warnings: [] } : this.shaped(op, () => readQuestionList(body));
  }

  /** Both lists, read in parallel: one request each per sampling round, never one per session. */
  async pendingRequests(directory: string, opts: CallOptions = {}): Promise<PendingRequests> {
    const adapter = this.adapter;
    if (adapter) return this.pendingOf(adapter, directory, opts);
    const [p, q] = await Promise.all([this.listPermissions(directory, opts), this.listQuestions(directory, opts)]);
    return { permissions: p.requests, questions: q.requests, warnings: [...p.warnings, ...q.warnings] };
  }

  /** Stock opencode POST /permission/{requestID}/reply {"reply", "message"?}. */
  async replyPermission(
    directory: string,
    requestID: string,
    reply: PermissionReply,
    message?: string,
    opts: CallOptions = {},
  ): Promise<void> {
    const op = 'POST /permission/{id}/reply';
    this.checkDirectory(directory, op);
    this.checkRequest(requestID, op);
    if (reply !== 'once' && reply !== 'always' && reply !== 'reject')
      throw this.invalid(op, 'reply must be once, always or reject');
    if (message !== undefined && (typeof message !== 'string' || message.length > 10_000))
      throw this.invalid(op, 'message must be a string up to 10,000 characters');
    const body = message === undefined || message === '' ? { reply } : { reply, message };
    const viaApi = this.apiRequest(requestID);
    if (viaApi) return this.api.replyPermission(directory, viaApi.sessionID, requestID, body, opts);
    await this.post(op, `permission/${segment(requestID)}/reply`, directory, opts, { body: JSON.stringify(body) });
  }

  /** Stock opencode POST /question/{requestID}/reply {"answers": [[label, ...], ...]} (one array per question). */
  async replyQuestion(
    directory: string,
    requestID: string,
    answers: string[][],
    opts: CallOptions = {},
  ): Promise<void> {
    const op = 'POST /question/{id}/reply';
    this.checkDirectory(directory, op);
    this.checkRequest(requestID, op);
    const problem = answersProblem(answers);
    if (problem) throw this.invalid(op, problem);
    const viaApi = this.apiRequest(requestID);
    if (viaApi) return this.api.replyQuestion(directory, viaApi.sessionID, requestID, answers, opts);
    await this.post(op, `question/${segment(requestID)}/reply`, directory, opts, {
      body: JSON.stringify({ answers }),
    });
  }

  /** Stock opencode POST /question/{requestID}/reject: the agent is told the question was dismissed. */
  async rejectQuestion(directory: string, requestID: string, opts: CallOptions = {}): Promise<void> {
    const op = 'POST /question/{id}/reject';
    this.checkDirectory(directory, op);
    this.checkRequest(requestID, op);
    const viaApi = this.apiRequest(requestID);
    if (viaApi) return this.api.replyQuestion(directory, viaApi.sessionID, requestID, null, opts);
    await this.post(op, `question/${segment(requestID)}/reject`, directory, opts);
  }

  /** Stock opencode GET /session/{id}/todo: the todo list in numbers (null when unsupported). */
  async todos(directory: string, sessionId: string, opts: CallOptions = {}): Promise<TodoProgress | null> {
    const op = 'GET /session/{id}/todo';
    this.checkDirectory(directory, op);
    this.checkSession(sessionId, op);
    // The `/api` engine keeps no todo list of its own (its `GET /doc` names none).
    if (this.engineOf(sessionId) === 'api') return null;
    let res;
    try {
      res = await this.http.request({
        method: 'GET',
        path: `session/${segment(sessionId)}/todo`,
        query: { directory },
        operation: op,
        sessionId,
        read: 'json',
        ...opts,
      });
    } catch (err) {
      if (err instanceof BackendError && err.code === 'not-found' && !this.capabilities?.todos) return null;
      throw err;
    }
    return this.shaped(op, () => readTodoList(res.json), sessionId);
  }

  /** Stock opencode GET /session/{id}/children: the ids of its sub-agent sessions. */
  async children(directory: string, sessionId: string, opts: CallOptions = {}): Promise<string[]> {
    const op = 'GET /session/{id}/children';
    this.checkDirectory(directory, op);
    this.checkSession(sessionId, op);
    const res = await this.http.request({
      method: 'GET',
      path: `session/${segment(sessionId)}/children`,
      query: { directory },
      operation: op,
      sessionId,
      read: 'json',
      ...opts,
    });
    return this.shaped(op, () => readSessionList(res.json).sessions.map((s) => s.id as string), sessionId);
  }

  /**
   * GET /provider, with provider `options` dropped on read. On stock opencode the remembered
   * quota marks are merged in. `maxAgeMs` reuses a recent listing (the stock one is ~6.4 MB).
   */
  async listProviders(directory: string, opts: CallOptions & { maxAgeMs?: number } = {}): Promise<ProviderListing> {
    this.checkDirectory(directory, 'GET /provider');
    const cached = this.providerCache.get(directory);
    if (cached && opts.maxAgeMs !== undefined && this.now() - cached.at <= opts.maxAgeMs)
      return this.withMarks(cached.listing);
    // A session list under way tells the dialect and the engines (a server without the old routes).
    if (!this.detector.adapter && this.sessionsReading) await this.sessionsReading.catch(() => undefined);
    if (this.engines.apiOnly) return this.withMarks(await this.apiProviders(directory, opts));
    const listing =
      (await this.connectedProviders(directory, opts)) ?? (await this.wholeProviderListing(directory, opts));
    if (listing === 'api') return this.withMarks(await this.apiProviders(directory, opts));
    this.providerCache.set(directory, { at: this.now(), listing });
    return this.withMarks(listing);
  }

  /** GET /provider: the whole catalogue (stock opencode) or the spec's listing with its quota objects. */
  private async wholeProviderListing(directory: string, opts: CallOptions): Promise<ProviderListing | 'api'> {
    let json: unknown;
    try {
      json = await requestProviderListing(this.http, 'provider', directory, this.providerCall(opts));
    } catch (err) {
      // A client that has not listed yet, on a server without the old routes (opencode 2).
      if (
        !(err instanceof BackendError && err.code === 'not-found') ||
        !(await this.oldRoutesGoneHere(directory, opts))
      )
        throw err;
      return 'api';
    }
    const listing = this.shaped('GET /provider', () => readProviderListing(json));
    this.detector.fromProviderListing(json);
    this.marks.observeQuotaObjects(listing);
    return listing;
  }

  private providerCall(opts: CallOptions): { timeoutMs: number; signal?: AbortSignal } {
    return { timeoutMs: opts.timeoutMs ?? this.providerTimeoutMs, signal: opts.signal };
  }

  // ---- compositions ------------------------------------------------------------------------

  /**
   * One sample of every session: the list (and status map), then the newest message of each
   * session in parallel within the pool's bounded concurrency. On stock opencode, progress is
   * derived from the newest message. Remembering quota walls is the caller's (health/recordWalls).
   * `activity`: the counter fed by the event stream (readEventStream), copied into each sample.
   * `sessionIds`: sample only these sessions (an event named them); the list is read as always.
   */
  async sampleRound(
    directory: string,
    opts: CallOptions & { activity?: ActivityCounter; sessionIds?: Iterable<string> } = {},
  ): Promise<SampleRound> {
    const at = this.now();
    const { list, adapter } = await this.readSessions(directory, opts);
    // A nudge for named sessions: the list (and status map) as always, the newest message of
    // those sessions only. `listed` still carries every session, so the caller sees new ones.
    const only = opts.sessionIds ? new Set(opts.sessionIds) : null;
    const sampled = only ? list.sessions.filter((s) => only.has(s.id)) : list.sessions;
    // A dialect whose sessions carry no progress: derived from each newest message.
    const derive = adapter && !adapter.capabilities.progress ? adapter : null;
    const vanished: string[] = [];
    const errors: SampleRound['errors'] = [];
    const unreadable: SampleRound['unreadable'] = [];
    const sampleOne = (session: SessionSnapshot): Promise<SessionSample | null> =>
      this.readNewest(directory, session.id, opts, derive).then(
        ({ message, progress, engine }): SessionSample => {
          if (derive) session.progress = progress;
          if (engine) {
            session.engine = engine;
            if (engine === 'api') session.cost = null;
          }
          const sample: SessionSample = { at: this.now(), readFrom: at, session, newest: message };
          if (opts.activity) sample.activity = opts.activity.count(session.id);
          return sample;
        },
        (err: unknown) => {
          if (err instanceof BackendError && err.code === 'not-found') vanished.push(session.id);
          else if (err instanceof BackendError && err.code !== 'aborted')
            errors.push({ sessionId: session.id, error: err });
          else throw err;
          unreadable.push({ session, at: this.now(), error: err });
          return null;
        },
      );
    const warnings = [...list.warnings];
    // The pending permissions and questions of the directory (capabilities.permissions, .questions),
    // one request each. They are a hint that can only prevent "hung"; a failure to read them is a warning.
    const pendingRead: Promise<PendingRequests | null> =
      adapter && (adapter.capabilities.permissions || adapter.capabilities.questions) && sampled.length > 0
        ? this.pendingOf(adapter, directory, opts).catch((err: unknown) => {
            if (err instanceof BackendError && err.code !== 'aborted') {
              warnings.push(`pending permissions/questions not read: ${err.message}`);
              return null;
            }
            throw err;
          })
        : Promise.resolve(null);
    const kept = boundSessions(sampled, this.maxSessionsPerRound);
    const [results, pending] = await Promise.all([Promise.all(kept.map(sampleOne)), pendingRead]);
    const samples = results.filter((s): s is SessionSample => s !== null);
    if (pending) {
      warnings.push(...pending.warnings);
      attachWaiting(samples, [...pending.permissions, ...pending.questions]);
    }
    const round: SampleRound = {
      directory,
      at,
      dialect: list.dialect,
      samples,
      vanished,
      errors,
      unreadable,
      warnings,
      listed: list.sessions.map((s) => s.id),
      partial: only !== null,
    };
    // A partial round samples fewer than listed by design: truncated only when the bound cut it.
    if (kept.length < sampled.length) {
      round.truncated = { listed: list.sessions.length, kept: kept.length };
      round.warnings = [...warnings, truncationWarning(round.truncated)];
    }
    return round;
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  // ---- internals ---------------------------------------------------------------------------

  /**
   * The newest message through the engine that holds the session. A session no engine is known to
   * hold yet (a server with both) is read on both, once each with limit=1: the one that shows a
   * message holds it from then on; neither: a new session, asked again on the next read.
   * `derive`: the adapter that derives progress from the newest message (its sessions carry none).
   */
  private async readNewest(
    directory: string,
    sessionId: string,
    opts: CallOptions,
    derive: DialectAdapter | null = this.adapter?.capabilities.progress === false ? this.adapter : null,
  ): Promise<{ message: MessageSnapshot | null; progress: Progress | null; engine: Engine | null }> {
    this.checkDirectory(directory, 'GET /session/{id}/message');
    this.checkSession(sessionId, 'GET /session/{id}/message');
    // A client that has not listed yet lists once (which tells the dialect, and on stock opencode
    // whether `/api` is served), so no session is read on an engine that does not hold it and a
    // spec-dialect server is never asked for a route the spec does not show.
    // A listing that fails is not this read's failure: the read goes on and fails (or not) on its own.
    if (this.engines.api === null && this.engines.surface === 'auto' && !this.adapter)
      await this.oldRoutesGoneHere(directory, opts).catch((err: unknown) => {
        if (err instanceof BackendError && err.code === 'aborted') throw err;
      });
    if (this.engines.api === null && this.engines.surface === 'auto' && this.adapter?.dialect === 'opencode')
      await this.servesApi(opts);
    const known = this.engineOf(sessionId);
    if (known === 'api' || (known === null && this.engines.apiOnly))
      return { ...(await this.apiNewest(directory, sessionId, opts, derive)), engine: 'api' };
    if (known === 'legacy' || !this.engines.both)
      return { ...(await this.legacyNewest(directory, sessionId, opts, derive)), engine: known };
    const [legacyRead, apiRead] = await Promise.allSettled([
      this.legacyNewest(directory, sessionId, opts, derive),
      this.api.newest(directory, sessionId, opts),
    ]);
    // A 404 on one side while the other answers: the session (or that side's routes) is not there.
    const missing = (r: PromiseSettledResult<unknown>) =>
      r.status === 'rejected' && r.reason instanceof BackendError && r.reason.code === 'not-found';
    if (legacyRead.status === 'rejected' && !(missing(legacyRead) && apiRead.status === 'fulfilled'))
      throw legacyRead.reason;
    if (apiRead.status === 'rejected' && !(missing(apiRead) && legacyRead.status === 'fulfilled')) throw apiRead.reason;
    const legacy = legacyRead.status === 'fulfilled' ? legacyRead.value : { message: null, progress: null };
    const api = apiRead.status === 'fulfilled' ? apiRead.value : { raw: null, any: false };
    const engine = holder(legacy.message !== null, api.any);
    if (engine) this.engines.set(sessionId, engine);
    if (engine !== 'api') return { ...legacy, engine };
    return { ...this.fromRaw(api.raw, derive, 'GET /api/session/{id}/message', sessionId), engine };
  }

  private async apiNewest(directory: string, sessionId: string, opts: CallOptions, derive: DialectAdapter | null) {
    const { raw } = await this.api.newest(directory, sessionId, opts);
    return this.fromRaw(raw, derive, 'GET /api/session/{id}/message', sessionId);
  }

  private fromRaw(raw: Obj | null, derive: DialectAdapter | null, op: string, sessionId: string) {
    return this.shaped(
      op,
      () => ({
        message: raw ? toMessageSnapshot(raw) : null,
        progress: derive ? derive.progressFromMessage(raw) : null,
      }),
      sessionId,
    );
  }

  private async legacyNewest(directory: string, sessionId: string, opts: CallOptions, derive: DialectAdapter | null) {
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
      maxBytes: BODY_LIMITS.message,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
    });
    try {
      const raw = newestRawMessage(res.json);
      return {
        message: raw ? toMessageSnapshot(raw) : null,
        progress: derive ? derive.progressFromMessage(raw) : null,
      };
    } catch (err) {
      if (err instanceof ShapeError)
        throw new BackendError({
          code: 'malformed',
          operation: op,
          baseUrl: this.baseUrl,
          sessionId,
          detail: err.message,
        });
      throw err;
    }
  }

  private async statusMap(directory: string, opts: CallOptions): Promise<Map<string, StatusEntry>> {
    const op = 'GET /session/status';
    let res;
    try {
      res = await this.http.request({
        method: 'GET',
        path: 'session/status',
        query: { directory } satisfies Query,
        operation: op,
        read: 'json',
        maxBytes: BODY_LIMITS.statusMap,
        ...opts,
      });
    } catch (err) {
      if (err instanceof BackendError && err.code === 'not-found') {
        throw new BackendError({
          code: 'malformed',
          operation: 'GET /session',
          baseUrl: this.baseUrl,
          detail: 'sessions carry no state and GET /session/status does not exist',
        });
      }
      throw err;
    }
    return this.shaped(op, () => readStatusMap(res.json));
  }

  /** A POST whose answer is only its status (the body is read and dropped). */
  private async post(
    operation: string,
    path: string,
    directory: string,
    opts: CallOptions,
    extra: { body?: string; sessionId?: string } = {},
  ): Promise<void> {
    await this.http.request({
      method: 'POST',
      path,
      query: { directory },
      ...extra,
      operation,
      read: 'discard',
      ...opts,
    });
  }

  /** GET of an optional stock-opencode endpoint: null when the backend has none (404). */
  private async optionalJson(path: string, directory: string, operation: string, opts: CallOptions): Promise<unknown> {
    try {
      const res = await this.http.request({
        method: 'GET',
        path,
        query: { directory },
        operation,
        read: 'json',
        ...opts,
      });
      return res.json;
    } catch (err) {
      if (err instanceof BackendError && err.code === 'not-found') return null;
      throw err;
    }
  }

  /** The pending requests the adapter's capabilities say the backend keeps (the others read as none). */
  private async pendingOf(adapter: DialectAdapter, directory: string, opts: CallOptions): Promise<PendingRequests> {
    const none = Promise.resolve({ requests: [] as WaitingRequest[], warnings: [] as string[] });
    const viaOld = !this.engines.apiOnly;
    const viaApi = this.engines.apiOnly || this.engines.both;
    const [p, q, a] = await Promise.all([
      viaOld && adapter.capabilities.permissions ? this.listPermissions(directory, opts) : none,
      viaOld && adapter.capabilities.questions ? this.listQuestions(directory, opts) : none,
      viaApi ? this.api.pending(directory, opts) : none,
    ]);
    const remember = (requests: WaitingRequest[], engine: Engine) => {
      for (const r of requests) {
        this.requestEngines.delete(r.requestID);
        this.requestEngines.set(r.requestID, { engine, sessionID: r.sessionID });
        if (this.requestEngines.size > 10_000)
          this.requestEngines.delete(this.requestEngines.keys().next().value as string);
      }
    };
    remember(p.requests, 'legacy');
    remember(q.requests, 'legacy');
    remember(a.requests, 'api');
    return {
      permissions: [...p.requests, ...a.requests.filter((r) => r.kind === 'permission')],
      questions: [...q.requests, ...a.requests.filter((r) => r.kind === 'question')],
      warnings: [...p.warnings, ...q.warnings, ...a.warnings],
    };
  }

  /**
   * The engine that holds a session: known, else found by reading its newest message on both (a
   * server with both engines). A session no engine shows a message for goes to the server's
   * default engine (the old one while it is served).
   */
  private async engineFor(directory: string, sessionId: string, opts: CallOptions): Promise<Engine> {
    // A listing that fails is not this act's failure: it goes to the old routes and fails (or not) there.
    if (this.adapter === null)
      await this.readSessions(directory, opts).catch((err: unknown) => {
        if (err instanceof BackendError && err.code === 'aborted') throw err;
      });
    if (this.adapter?.dialect !== 'opencode') return 'legacy';
    const known = this.engines.of(sessionId);
    if (known) return known;
    const { engine } = await this.readNewest(directory, sessionId, opts);
    return engine ?? this.engines.fallback;
  }

  /** The `/api` request a reply goes to (the engine the request was listed by), or null for the old routes. */
  private apiRequest(requestID: string): { sessionID: string } | null {
    const r = this.requestEngines.get(requestID);
    return r && r.engine === 'api' ? r : null;
  }

  private invalid(operation: string, detail: string): BackendError {
    return new BackendError({ code: 'invalid-request', operation, baseUrl: this.baseUrl, detail });
  }

  private checkRequest(requestID: string, operation: string): void {
    if (!isValidSessionId(requestID)) throw this.invalid(operation, 'request id is not a safe path segment');
  }

  private withMarks(listing: ProviderListing): ProviderListing {
    const marks = this.marks.list();
    const ended = (id: string) => this.marks.cooldownEndedAt(id);
    if (marks.length === 0 && !listing.providers.some((p) => ended(p.id) !== null)) return listing;
    const byId = new Map(marks.map((m) => [m.provider, m]));
    const providers = listing.providers.map((p) => {
      const m = byId.get(p.id);
      byId.delete(p.id);
      const end = ended(p.id);
      const q =
        p.quota || !m ? p : { ...p, quota: { markedAt: m.markedAt, resetAt: m.resetAt, category: m.category ?? null } };
      return end === null ? q : { ...q, cooldownEndedAt: end };
    });
    for (const m of byId.values()) {
      providers.push({
        id: m.provider,
        name: null,
        connected: false,
        quota: { markedAt: m.markedAt, resetAt: m.resetAt, category: m.category ?? null },
        models: [],
      });
    }
    return { providers, connected: listing.connected };
  }

  private shaped<T>(operation: string, read: () => T, sessionId?: string): T {
    return readShaped(operation, this.baseUrl, read, sessionId);
  }

  private checkDirectory(directory: string, operation: string): void {
    const problem = directoryProblem(directory);
    if (problem) throw new BackendError({ code: 'invalid-request', operation, baseUrl: this.baseUrl, detail: problem });
  }

  private checkSession(sessionId: string, operation: string): void {
    if (!isValidSessionId(sessionId)) {
      throw new BackendError({
        code: 'invalid-request',
        operation,
        baseUrl: this.baseUrl,
        detail: 'session id is not a safe path segment',
      });
    }
  }
}

/** Attaches each pending request to the sample of the session it names (the oldest request first). */
export function attachWaiting(samples: SessionSample[], requests: WaitingRequest[]): void {
  const bySession = new Map<string, WaitingRequest>();
  for (const r of requests) if (!bySession.has(r.sessionID)) bySession.set(r.sessionID, r);
  for (const sample of samples) {
    const w = bySession.get(sample.session.id) ?? null;
    sample.waiting = w;
    if (w && sample.newest?.runningTool)
      sample.newest.runningTool = { ...sample.newest.runningTool, waitingFor: w.kind };
  }
}

/** At most `max` sessions: the most recently updated (sessions without a time last), list order otherwise. */
export function boundSessions(sessions: SessionSnapshot[], max: number): SessionSnapshot[] {
  if (sessions.length <= max) return sessions;
  const order = sessions.map((s, i) => ({ s, i, t: s.updatedAt ?? -Infinity }));
  order.sort((a, b) => b.t - a.t || a.i - b.i);
  return order.slice(0, max).map((o) => o.s);
}

export function truncationWarning(t: { listed: number; kept: number }): string {
  return `${t.listed} sessions listed; only the ${t.kept} most recently updated were sampled (the limit per directory per round)`;
}
