// The HTTP layer of one backend: a keep-alive undici Pool per base URL, a bounded number of
// requests in flight, a total deadline (headers and body together) and the caller's AbortSignal
// on every request, HTTP Basic auth when a password is configured, a size cap on every body
// (reading stops as soon as it is passed), and one typed BackendError for every failure.
// Defaults and where they are configured: ./limits.ts. Deadlines are wall time for I/O: timers on
// the system clock (src/core/clock.ts), whatever clock the client reads.
import type { Client, Dispatcher, Pool } from 'undici';

// undici is loaded on first use, not when this module loads: the extension host pays for it only
// once a Session Ops view is visible (activation stays cheap).
let undiciModule: typeof import('undici') | undefined;
function undici(): typeof import('undici') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose: loaded on first use so activation stays cheap
  undiciModule ??= require('undici') as typeof import('undici');
  return undiciModule;
}
import { systemClock, type TimerHandle } from '../clock';
import { BackendError, codeForStatus, codeForTransportError, transportDetail } from './errors';
import { DEFAULT_USERNAME } from './credentials';
import { BODY_LIMITS, DEFAULT_REQUEST_TIMEOUT_MS } from './limits';

export interface TransportOptions {
  baseUrl: string;
  /** Basic auth user; default "opencode" (stock opencode's default) when a password is set. */
  username?: string;
  password?: string;
  /** Keep-alive connections (requests on the wire); at most 4x that many are queued. Default 8. */
  connections?: number;
  /**
   * Total deadline of one request, headers and body together, from the moment it is handed to the
   * connection pool to its last byte (a dripping body does not extend it). Default 15 s
   * (DEFAULT_REQUEST_TIMEOUT_MS; the CLI's --timeout). A request may set its own (RequestSpec.timeoutMs).
   */
  timeoutMs?: number;
  /** Largest body read when a request names no limit of its own (RequestSpec.maxBytes). Default 8 MiB. */
  maxBodyBytes?: number;
  /** Told the outcome of every request (null: it succeeded), e.g. to count requests by endpoint. */
  onRequest?: (operation: string, error: BackendError | null) => void;
}

export type Query = Record<string, string | number | undefined>;

export interface RequestSpec {
  method: 'GET' | 'POST';
  /** Relative to the base URL, segments already encoded, no leading slash: "session/ses_1/abort". */
  path: string;
  query: Query;
  /** JSON text (built with JSON.stringify by the caller). */
  body?: string;
  /** For messages: "GET /session/{id}/message". */
  operation: string;
  sessionId?: string;
  timeoutMs?: number;
  /** The most read from the body (BODY_LIMITS); beyond it the request fails with code 'too-large'. */
  maxBytes?: number;
  signal?: AbortSignal;
  /** json: parse the body; discard: drain it unread. */
  read: 'json' | 'discard';
  /**
   * The working directory as the `x-opencode-directory` header (percent-encoded here), for the
   * routes that scope by it (the `/api` engine) rather than by the `directory` query.
   */
  directoryHeader?: string;
}

export interface HttpResult {
  status: number;
  /** The answer's headers (names lower-case), parsed when first asked. */
  readonly headers: Record<string, string | string[] | undefined>;
  /** Parsed body when read = 'json'. */
  json: unknown;
}

/** A small FIFO semaphore: at most `max` holders. */
class Limiter {
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly max: number) {}
  acquire(): Promise<void> | undefined {
    if (this.active < this.max) {
      this.active++;
      return undefined;
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

export class HttpTransport {
  readonly baseUrl: string;
  private readonly origin: string;
  private readonly basePath: string;
  readonly #authorization: string | undefined;
  private readonly pool: Pool;
  private readonly limiter: Limiter;
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;
  private readonly onRequest: TransportOptions['onRequest'];
  private closed = false;
  private cachedPlain: Record<string, string> | undefined;
  private lastDirectory: string | undefined;
  private lastDirectoryQuery = '';
  private cachedJson: Record<string, string> | undefined;

  constructor(options: TransportOptions) {
    const url = new URL(options.baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
    if (url.username || url.password) throw new Error('credentials do not belong in the base URL');
    this.origin = url.origin;
    this.basePath = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`;
    this.baseUrl = `${this.origin}${this.basePath}`;
    if (options.password !== undefined && options.password !== '') {
      const user = options.username && options.username !== '' ? options.username : DEFAULT_USERNAME;
      this.#authorization = `Basic ${Buffer.from(`${user}:${options.password}`, 'utf8').toString('base64')}`;
    }
    const connections = Math.max(1, Math.floor(options.connections ?? 8));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.maxBodyBytes = options.maxBodyBytes ?? BODY_LIMITS.other;
    this.onRequest = options.onRequest;
    this.pool = new (undici().Pool)(this.origin, {
      connections,
      pipelining: 1,
      keepAliveTimeout: 4_000,
      connect: { timeout: Math.min(this.timeoutMs, 10_000) },
    });
    // A few requests per connection may wait in the pool's queue, so a connection never idles
    // between two requests; at most `connections` are on the wire.
    this.limiter = new Limiter(connections * 4);
  }

  /** Builds "/base/path?directory=...&limit=1"; every value is percent-encoded. */
  pathWithQuery(path: string, query: Query): string {
    let qs = '';
    // Fast path for the common {directory} and {directory, limit} queries (one encoding per directory).
    const keys = Object.keys(query);
    if (
      keys[0] === 'directory' &&
      typeof query.directory === 'string' &&
      (keys.length === 1 || (keys.length === 2 && keys[1] === 'limit' && query.limit !== undefined))
    ) {
      if (this.lastDirectory !== query.directory) {
        this.lastDirectory = query.directory;
        this.lastDirectoryQuery = `?directory=${encodeURIComponent(query.directory)}`;
      }
      return `${this.basePath}${path}${this.lastDirectoryQuery}${keys.length === 2 ? `&limit=${encodeURIComponent(String(query.limit))}` : ''}`;
    }
    for (const key of Object.keys(query)) {
      const value = query[key];
      if (value === undefined) continue;
      qs += `${qs ? '&' : '?'}${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`;
    }
    return `${this.basePath}${path}${qs}`;
  }

  private get plainHeaders(): Record<string, string> {
    return (this.cachedPlain ??= this.headers());
  }

  private get jsonHeaders(): Record<string, string> {
    return (this.cachedJson ??= this.headers({ 'content-type': 'application/json' }));
  }

  headers(extra?: Record<string, string>): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json', ...extra };
    if (this.#authorization) h.authorization = this.#authorization;
    return h;
  }

  async request(spec: RequestSpec): Promise<HttpResult> {
    const hook = this.onRequest;
    if (!hook) return this.send(spec);
    try {
      const result = await this.send(spec);
      hook(spec.operation, null);
      return result;
    } catch (err) {
      const error = err instanceof BackendError ? err : this.error(spec, 'network', { cause: err });
      hook(spec.operation, error);
      throw error;
    }
  }

  private async send(spec: RequestSpec): Promise<HttpResult> {
    if (this.closed) throw this.error(spec, 'aborted', { detail: 'client closed' });
    if (spec.signal?.aborted) throw this.error(spec, 'aborted');
    const wait = this.limiter.acquire();
    if (wait) await wait;
    try {
      if (spec.signal?.aborted) throw this.error(spec, 'aborted');
      const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
      const path = this.encodedPath(spec);
      const headers = this.headersOf(spec);
      const exchange = new Exchange(timeoutMs, spec.maxBytes ?? this.maxBodyBytes, spec.read, spec.signal);
      this.pool.dispatch(
        {
          path,
          method: spec.method,
          headers,
          body: spec.body,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        },
        exchange,
      );
      const outcome = await exchange.done;
      return this.result(spec, outcome, timeoutMs);
    } finally {
      this.limiter.release();
    }
  }

  private headersOf(spec: RequestSpec): Record<string, string> {
    const base = spec.body !== undefined ? this.jsonHeaders : this.plainHeaders;
    if (spec.directoryHeader === undefined) return base;
    try {
      return { ...base, 'x-opencode-directory': encodeURIComponent(spec.directoryHeader) };
    } catch (err) {
      throw this.error(spec, 'invalid-request', { detail: 'the directory cannot be encoded', cause: err });
    }
  }

  /** The request's path and query, or an invalid-request error (e.g. a directory holding a lone surrogate). */
  private encodedPath(spec: RequestSpec): string {
    try {
      return this.pathWithQuery(spec.path, spec.query);
    } catch (err) {
      throw this.error(spec, 'invalid-request', { detail: 'the path or query cannot be encoded', cause: err });
    }
  }

  /** The answer of an exchange, or the one BackendError that says why there is none. */
  private result(spec: RequestSpec, outcome: ExchangeOutcome, timeoutMs: number): HttpResult {
    const { status } = outcome;
    switch (outcome.kind) {
      case 'failed':
        throw this.transportError(spec, outcome.error, timeoutMs, outcome.expired);
      case 'status':
        // The error body is never read into a message: it may echo request data or secrets.
        throw this.error(spec, codeForStatus(status), {
          status,
          detail: status === 429 ? 'too many requests' : undefined,
        });
      case 'html':
        // A login or proxy page: the request never reached the backend, even for a POST.
        throw this.error(spec, 'malformed', { status, detail: HTML_PAGE });
      case 'too-large':
        throw this.error(spec, 'too-large', {
          status,
          detail: `more than the ${formatBytes(outcome.maxBytes)} read from one answer of ${spec.operation}`,
        });
      case 'discarded':
        return new Answer(status, outcome.rawHeaders, undefined);
      case 'body':
        try {
          return new Answer(status, outcome.rawHeaders, JSON.parse(outcome.text));
        } catch {
          throw this.error(spec, 'malformed', {
            status,
            detail: `body is not JSON${describeContentType(outcome.contentType ?? undefined)}`,
          });
        }
    }
  }

  private error(
    spec: RequestSpec,
    code: BackendError['code'],
    extra: { status?: number; detail?: string; cause?: unknown } = {},
  ): BackendError {
    return new BackendError({
      code,
      operation: spec.operation,
      baseUrl: this.baseUrl,
      sessionId: spec.sessionId,
      ...extra,
    });
  }

  private transportError(spec: RequestSpec, err: unknown, timeoutMs: number, expired: boolean): BackendError {
    if (err instanceof BackendError) return err;
    if (spec.signal?.aborted) return this.error(spec, 'aborted');
    if (expired)
      return this.error(spec, 'timeout', {
        detail: `no complete answer within ${timeoutMs} ms (one deadline for headers and body)`,
      });
    const code = codeForTransportError(err);
    return this.error(
      spec,
      code,
      code === 'timeout'
        ? { detail: `no answer within ${timeoutMs} ms` }
        : { detail: transportDetail(err), cause: err },
    );
  }

  /**
   * Opens a long-lived GET (server-sent events) on a connection of its own, so the stream never
   * occupies a pooled connection. The caller consumes `body` and destroys `client` when done.
   */
  async openStream(
    path: string,
    query: Query,
    operation: string,
    signal: AbortSignal,
    idleTimeoutMs: number,
  ): Promise<{ client: Client; body: Dispatcher.ResponseData['body'] }> {
    const client = new (undici().Client)(this.origin, {
      connect: { timeout: Math.min(this.timeoutMs, 10_000) },
      bodyTimeout: idleTimeoutMs,
      headersTimeout: this.timeoutMs,
    });
    const fail = (code: BackendError['code'], extra: { status?: number; detail?: string; cause?: unknown } = {}) =>
      new BackendError({ code, operation, baseUrl: this.baseUrl, ...extra });
    // The answer's headers within the request deadline (a server may drip them too).
    let headersLate = false;
    const headersTimer = systemClock.setTimeout(() => {
      headersLate = true;
      client.destroy().catch(() => undefined);
    }, this.timeoutMs);
    try {
      const res = await client.request({
        path: this.pathWithQuery(path, query),
        method: 'GET',
        headers: { ...this.headers(), accept: 'text/event-stream' },
        signal,
      });
      if (res.statusCode < 200 || res.statusCode >= 300) {
        await res.body.dump().catch(() => undefined);
        throw fail(codeForStatus(res.statusCode), { status: res.statusCode });
      }
      const type = mediaType(res.headers['content-type']);
      if (type !== null && type !== 'text/event-stream') {
        discardBody(res.body);
        throw fail('malformed', {
          status: res.statusCode,
          detail:
            type === 'text/html' ? HTML_PAGE : `not an event stream${describeContentType(res.headers['content-type'])}`,
        });
      }
      return { client, body: res.body };
    } catch (err) {
      client.destroy().catch(() => undefined);
      if (err instanceof BackendError) throw err;
      if (signal.aborted) throw fail('aborted');
      if (headersLate) throw fail('timeout', { detail: `no answer within ${this.timeoutMs} ms` });
      throw fail(codeForTransportError(err), { detail: transportDetail(err), cause: err });
    } finally {
      systemClock.clearTimeout(headersTimer);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.destroy().catch(() => undefined);
  }
}

/** How one exchange ended: the body, or why there is none (turned into a BackendError by the transport). */
type ExchangeOutcome =
  | { kind: 'body'; status: number; text: string; contentType: string | null; rawHeaders: RawHeaders }
  | { kind: 'discarded'; status: number; rawHeaders: RawHeaders }
  | { kind: 'status'; status: number }
  | { kind: 'html'; status: number }
  | { kind: 'too-large'; status: number; maxBytes: number }
  | { kind: 'failed'; status: number; error: unknown; expired: boolean };

type RawHeaders = Buffer[] | string[];

/** An answer: its headers are parsed only when a reader asks for them (most never do). */
class Answer implements HttpResult {
  #headers: Record<string, string | string[] | undefined> | undefined;
  constructor(
    readonly status: number,
    private readonly rawHeaders: RawHeaders,
    readonly json: unknown,
  ) {}

  get headers(): Record<string, string | string[] | undefined> {
    return (this.#headers ??= undici().util.parseHeaders(this.rawHeaders) as Record<
      string,
      string | string[] | undefined
    >);
  }
}

/** What is drained of a body nobody reads (an error status, an HTML page, a POST's answer) before the connection is dropped. */
const DRAIN_LIMIT = 128 * 1024;

/** Ends an exchange on purpose (its outcome is already decided). */
class ExchangeEnded extends Error {}

/**
 * One request's answer, read straight from undici's dispatch callbacks (no response stream): the
 * status and the two headers that matter, then the body chunks up to `maxBytes` (beyond it, or
 * announced beyond it, the exchange is dropped at once). One total deadline for headers and body
 * (undici's own timers restart with every chunk, so a server dripping a few bytes at a time would
 * never hit them), merged with the caller's signal. `done` always resolves, with the outcome.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly done: Promise<ExchangeOutcome>;
  private settle!: (outcome: ExchangeOutcome) => void;
  private settled = false;
  private abort: ((err: Error) => void) | null = null;
  private readonly timer: TimerHandle;
  private readonly onCallerAbort: (() => void) | null = null;
  private expired = false;
  private status = 0;
  private rawHeaders: RawHeaders = [];
  private contentType: string | null = null;
  /** Decided at the headers when the body is not read (error status, HTML page, discard). */
  private verdict: ExchangeOutcome | null = null;
  private first: Buffer | null = null;
  private chunks: Buffer[] | null = null;
  private size = 0;

  constructor(
    timeoutMs: number,
    private readonly maxBytes: number,
    private readonly read: RequestSpec['read'],
    private readonly caller: AbortSignal | undefined,
  ) {
    this.done = new Promise((resolve) => (this.settle = resolve));
    this.timer = systemClock.setTimeout(() => {
      this.expired = true;
      this.fail(new ExchangeEnded('deadline'));
    }, timeoutMs);
    if (caller) {
      this.onCallerAbort = () => this.fail(new ExchangeEnded('aborted'));
      caller.addEventListener('abort', this.onCallerAbort, { once: true });
    }
  }

  onConnect(abort: (err?: Error) => void): void {
    // Ended while it waited in the pool's queue: it never goes on the wire.
    if (this.settled) abort(new ExchangeEnded('ended'));
    else this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: RawHeaders | null): boolean {
    if (statusCode < 200) return true; // informational (100 Continue): the answer follows
    this.status = statusCode;
    let declared = NaN;
    const raw = (this.rawHeaders = rawHeaders ?? []);
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = undici().util.headerNameToString(raw[i]);
      if (name === 'content-type') this.contentType = raw[i + 1].toString();
      else if (name === 'content-length') declared = Number(raw[i + 1].toString());
    }
    if (statusCode >= 300) this.verdict = { kind: 'status', status: statusCode };
    else if (mediaType(this.contentType ?? undefined) === 'text/html')
      this.verdict = { kind: 'html', status: statusCode };
    else if (this.read === 'discard') this.verdict = { kind: 'discarded', status: statusCode, rawHeaders: raw };
    else if (Number.isFinite(declared) && declared > this.maxBytes) {
      this.verdict = { kind: 'too-large', status: statusCode, maxBytes: this.maxBytes };
      this.drop();
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.size += chunk.length;
    if (this.verdict) {
      // Drained, not kept; a long body is not worth the wait.
      if (this.size > DRAIN_LIMIT) this.drop();
      return true;
    }
    if (this.size > this.maxBytes) {
      this.verdict = { kind: 'too-large', status: this.status, maxBytes: this.maxBytes };
      this.first = this.chunks = null;
      this.drop();
      return true;
    }
    if (this.first === null) this.first = chunk;
    else (this.chunks ??= [this.first]).push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.verdict) return this.end(this.verdict);
    const text =
      this.chunks !== null
        ? Buffer.concat(this.chunks, this.size).toString('utf8')
        : (this.first?.toString('utf8') ?? '');
    this.first = this.chunks = null;
    this.end({ kind: 'body', status: this.status, text, contentType: this.contentType, rawHeaders: this.rawHeaders });
  }

  onError(err: Error): void {
    // A body nobody reads (or one refused as too large) that failed while draining: the outcome stands.
    if (this.verdict) return this.end(this.verdict);
    this.end({ kind: 'failed', status: this.status, error: err, expired: this.expired });
  }

  /** The deadline passed or the caller aborted: ends now, on the wire or still queued. */
  private fail(err: ExchangeEnded): void {
    if (this.settled) return;
    if (this.abort) this.abort(err);
    // Still queued (or undici already finished): settle here; onConnect drops it later.
    this.onError(err);
  }

  /** Ends an exchange whose outcome is decided (too large, or a drain past its limit). */
  private drop(): void {
    const outcome = this.verdict!;
    this.abort?.(new ExchangeEnded('ended'));
    this.end(outcome);
  }

  private end(outcome: ExchangeOutcome): void {
    if (this.settled) return;
    this.settled = true;
    systemClock.clearTimeout(this.timer);
    if (this.onCallerAbort) this.caller?.removeEventListener('abort', this.onCallerAbort);
    this.settle(outcome);
  }
}

/** Destroys a body nobody reads (its error event, if any, goes nowhere). */
function discardBody(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

const HTML_PAGE = "an HTML page instead of the backend's answer (a proxy or login page?)";

/** The lower-case media type of a content-type header, or null. */
function mediaType(raw: string | string[] | undefined): string | null {
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== 'string') return null;
  const type = value.split(';')[0].trim().toLowerCase();
  return type === '' ? null : type;
}

/** " (content-type text/html)" when the server said a type; only a plain media type is repeated. */
function describeContentType(raw: string | string[] | undefined): string {
  const value = Array.isArray(raw) ? raw[0] : raw;
  const m = typeof value === 'string' ? /^\s*([A-Za-z0-9.+-]{1,40}\/[A-Za-z0-9.+-]{1,60})/.exec(value) : null;
  return m ? ` (content-type ${m[1].toLowerCase()})` : '';
}
