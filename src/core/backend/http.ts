// The HTTP layer of one backend: a keep-alive undici Pool per base URL, a bounded number of
// requests in flight (queued requests do not start their timeout), a timeout and the caller's
// AbortSignal on every request, HTTP Basic auth when a password is configured, a size cap on
// bodies, and one typed BackendError for every failure.
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

export interface TransportOptions {
  baseUrl: string;
  /** Basic auth user; default "opencode" (stock opencode's default) when a password is set. */
  username?: string;
  password?: string;
  /** Keep-alive connections (requests on the wire); at most 4x that many are queued. Default 8. */
  connections?: number;
  /** Per-request timeout: for the answer's headers, and between body chunks, once the request is on the wire. Default 15 s. */
  timeoutMs?: number;
  /** Largest body accepted. Default 64 MiB (stock opencode's provider listing is ~6.4 MB). */
  maxBodyBytes?: number;
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
      const user = options.username && options.username !== '' ? options.username : 'opencode';
      this.#authorization = `Basic ${Buffer.from(`${user}:${options.password}`, 'utf8').toString('base64')}`;
    }
    const connections = Math.max(1, Math.floor(options.connections ?? 8));
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
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
    if (keys[0] === 'directory' && typeof query.directory === 'string' && (keys.length === 1 || (keys.length === 2 && keys[1] === 'limit' && query.limit !== undefined))) {
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
    if (this.closed) throw this.error(spec, 'aborted', { detail: 'client closed' });
    if (spec.signal?.aborted) throw this.error(spec, 'aborted');
    const wait = this.limiter.acquire();
    if (wait) await wait;
    // The timeout is undici's own per-request headers/body timeout: it starts when the request is
    // written (time spent queued in the pool does not count) and costs no timer or AbortController
    // of ours per request. The caller's signal goes to undici as is.
    const timeoutMs = spec.timeoutMs ?? this.timeoutMs;
    try {
      if (spec.signal?.aborted) throw this.error(spec, 'aborted');
      let res: Dispatcher.ResponseData;
      try {
        res = await this.pool.request({
          path: this.pathWithQuery(spec.path, spec.query),
          method: spec.method,
          headers: spec.body !== undefined ? this.jsonHeaders : this.plainHeaders,
          body: spec.body,
          signal: spec.signal,
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
      } catch (err) {
        throw this.transportError(spec, err, timeoutMs);
      }
      const status = res.statusCode;
      if (status < 200 || status >= 300) {
        // The error body is never read into a message: it may echo request data or secrets.
        await res.body.dump().catch(() => undefined);
        throw this.error(spec, kindForStatus(status), { status });
      }
      if (spec.read === 'discard') {
        await res.body.dump().catch(() => undefined);
        return { status, headers: res.headers, json: undefined };
      }
      let text: string;
      try {
        text = await this.readCapped(res);
      } catch (err) {
        if (err instanceof BodyTooLarge) throw this.error(spec, 'malformed', { status, detail: `body larger than ${this.maxBodyBytes} bytes` });
        throw this.transportError(spec, err, timeoutMs);
      }
      try {
        return { status, headers: res.headers, json: JSON.parse(text) };
      } catch {
        throw this.error(spec, 'malformed', { status, detail: 'body is not JSON' });
      }
    } finally {
      this.limiter.release();
    }
  }

  private error(spec: RequestSpec, kind: BackendError['kind'], extra: { status?: number; detail?: string; cause?: unknown } = {}): BackendError {
    return new BackendError({ kind, operation: spec.operation, baseUrl: this.baseUrl, sessionId: spec.sessionId, ...extra });
  }

  private transportError(spec: RequestSpec, err: unknown, timeoutMs: number): BackendError {
    if (err instanceof BackendError) return err;
    if (spec.signal?.aborted) return this.error(spec, 'aborted');
    const kind = kindForTransportError(err);
    return this.error(spec, kind, kind === 'timeout' ? { detail: `no answer within ${timeoutMs} ms` } : { detail: transportDetail(err), cause: err });
  }

  private async readCapped(res: Dispatcher.ResponseData): Promise<string> {
    const body = res.body;
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared >= 0) {
      if (declared > this.maxBodyBytes) {
        body.destroy();
        throw new BodyTooLarge();
      }
      return body.text();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > this.maxBodyBytes) {
        body.destroy();
        throw new BodyTooLarge();
      }
      chunks.push(chunk as Buffer);
    }
    return chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, size).toString('utf8');
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
    const client = new (undici().Client)(this.origin, { connect: { timeout: Math.min(this.timeoutMs, 10_000) }, bodyTimeout: idleTimeoutMs, headersTimeout: this.timeoutMs });
    const fail = (kind: BackendError['kind'], extra: { status?: number; detail?: string; cause?: unknown } = {}) =>
      new BackendError({ kind, operation, baseUrl: this.baseUrl, ...extra });
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
      return { client, body: res.body };
    } catch (err) {
      client.destroy().catch(() => undefined);
      if (err instanceof BackendError) throw err;
      if (signal.aborted) throw fail('aborted');
      throw fail(kindForTransportError(err), { detail: transportDetail(err), cause: err });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.destroy().catch(() => undefined);
  }
}

class BodyTooLarge extends Error {}
