// The HTTP layer of one backend: a keep-alive undici Pool per base URL, a bounded number of
// requests in flight, a total deadline (headers and body together) and the caller's AbortSignal
// on every request, HTTP Basic auth when a password is configured, a size cap on every body
// (reading stops as soon as it is passed), and one typed BackendError for every failure.
// Defaults and where they are configured: ./limits.ts.
import type { Client, Dispatcher, Pool } from 'undici';

// undici is loaded on first use, not when this module loads: the extension host pays for it only
// once a Session Ops view is visible (activation stays cheap).
let undiciModule: typeof import('undici') | undefined;
function undici(): typeof import('undici') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose: loaded on first use so activation stays cheap
  undiciModule ??= require('undici') as typeof import('undici');
  return undiciModule;
}
import { BackendError, kindForStatus, kindForTransportError, transportDetail } from './errors';
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
  /** The most read from the body (BODY_LIMITS); beyond it the request fails with kind 'too-large'. */
  maxBytes?: number;
  signal?: AbortSignal;
  /** json: parse the body; discard: drain it unread. */
  read: 'json' | 'discard';
}

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
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
      hook(spec.operation, err instanceof BackendError ? err : null);
      throw err;
    }
  }

  private async send(spec: RequestSpec): Promise<HttpResult> {
    if (this.closed) throw this.error(spec, 'aborted', { detail: 'client closed' });
    if (spec.signal?.aborted) throw this.error(spec, 'aborted');
    const wait = this.limiter.acquire();
    if (wait) await wait;
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
    const maxBytes = spec.maxBytes ?? this.maxBodyBytes;
    // One deadline for the whole exchange: undici's own headers/body timers restart with every
    // chunk, so a server dripping a few bytes at a time would never hit them.
    const deadline = new Deadline(timeoutMs, spec.signal);
    try {
      if (spec.signal?.aborted) throw this.error(spec, 'aborted');
      let res: Dispatcher.ResponseData;
      try {
        res = await this.pool.request({
          path: this.pathWithQuery(spec.path, spec.query),
          method: spec.method,
          headers: spec.body !== undefined ? this.jsonHeaders : this.plainHeaders,
          body: spec.body,
          signal: deadline.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (err) {
        throw this.transportError(spec, err, timeoutMs, deadline);
      }
      const status = res.statusCode;
      if (status < 200 || status >= 300) {
        // The error body is never read into a message: it may echo request data or secrets.
        await res.body.dump().catch(() => undefined);
        throw this.error(spec, kindForStatus(status), {
          status,
          detail: status === 429 ? 'too many requests' : undefined,
        });
      }
      if (mediaType(res.headers['content-type']) === 'text/html') {
        // A login or proxy page: the request never reached the backend, even for a POST.
        await res.body.dump().catch(() => undefined);
        throw this.error(spec, 'malformed', { status, detail: HTML_PAGE });
      }
      if (spec.read === 'discard') {
        // POSTs: the status decides; the body is drained (at most 128 KiB) within the deadline, never parsed.
        await res.body.dump().catch(() => undefined);
        return { status, headers: res.headers, json: undefined };
      }
      let text: string;
      try {
        text = await readCapped(res, maxBytes);
      } catch (err) {
        if (err instanceof BodyTooLarge)
          throw this.error(spec, 'too-large', {
            status,
            detail: `more than the ${formatBytes(maxBytes)} read from one answer of ${spec.operation}`,
          });
        throw this.transportError(spec, err, timeoutMs, deadline);
      }
      try {
        return { status, headers: res.headers, json: JSON.parse(text) };
      } catch {
        throw this.error(spec, 'malformed', {
          status,
          detail: `body is not JSON${describeContentType(res.headers['content-type'])}`,
        });
      }
    } finally {
      deadline.dispose();
      this.limiter.release();
    }
  }

  private error(
    spec: RequestSpec,
    kind: BackendError['kind'],
    extra: { status?: number; detail?: string; cause?: unknown } = {},
  ): BackendError {
    return new BackendError({
      kind,
      operation: spec.operation,
      baseUrl: this.baseUrl,
      sessionId: spec.sessionId,
      ...extra,
    });
  }

  private transportError(spec: RequestSpec, err: unknown, timeoutMs: number, deadline: Deadline): BackendError {
    if (err instanceof BackendError) return err;
    if (spec.signal?.aborted) return this.error(spec, 'aborted');
    if (deadline.expired)
      return this.error(spec, 'timeout', {
        detail: `no complete answer within ${timeoutMs} ms (one deadline for headers and body)`,
      });
    const kind = kindForTransportError(err);
    return this.error(
      spec,
      kind,
      kind === 'timeout'
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
    const fail = (kind: BackendError['kind'], extra: { status?: number; detail?: string; cause?: unknown } = {}) =>
      new BackendError({ kind, operation, baseUrl: this.baseUrl, ...extra });
    // The answer's headers within the request deadline (a server may drip them too).
    let headersLate = false;
    const headersTimer = setTimeout(() => {
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
        throw fail(kindForStatus(res.statusCode), { status: res.statusCode });
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
      throw fail(kindForTransportError(err), { detail: transportDetail(err), cause: err });
    } finally {
      clearTimeout(headersTimer);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.destroy().catch(() => undefined);
  }
}

class BodyTooLarge extends Error {}

/** A total deadline, merged with the caller's signal into one signal for undici. */
class Deadline {
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly onCallerAbort: (() => void) | undefined;
  expired = false;

  constructor(
    ms: number,
    private readonly caller: AbortSignal | undefined,
  ) {
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort();
    }, ms);
    if (caller) {
      this.onCallerAbort = () => this.controller.abort();
      caller.addEventListener('abort', this.onCallerAbort, { once: true });
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  dispose(): void {
    clearTimeout(this.timer);
    if (this.onCallerAbort) this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** Reads the body as text, destroying it as soon as more than `maxBytes` arrived (or are announced). */
async function readCapped(res: Dispatcher.ResponseData, maxBytes: number): Promise<string> {
  const body = res.body;
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discardBody(body);
    throw new BodyTooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      throw new BodyTooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
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
