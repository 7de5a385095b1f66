// The daemon's HTTP server (docs/daemon-api.md): GET /metrics (Prometheus text, OpenMetrics when the
// Accept header asks), GET /healthz (200 "ok" while the sampling loop runs, 503 when stuck), the
// page at / and /assets/* (static, public), and the API under /api/ (./api/): each route needs a
// Bearer token of its scope (read < act). Secure by default: with no tokens file every /api/ path is
// 401; /metrics needs a read token only when auth.metrics is true. Failed attempts are limited per
// address (./auth/rate-limit.ts) and logged without the token. No cookie, no CORS header is ever
// sent. Every request has a URL of at most MAX_URL_CHARS, a body of at most MAX_BODY_BYTES (read
// only on POST routes, JSON only) and a deadline; TLS when a certificate and key are given (a renewed
// pair taken with setTls, no restart).
import { systemClock, unrefTimer, type TimerHandle } from '../clock';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { wantsOpenMetrics } from '../metrics/watch-metrics';
import { allows, bearerToken, type Principal, type Scope, type TokenBook } from './auth/tokens';
import { FailureLimiter } from './auth/rate-limit';
import { apiError, baseHeaders, sendJson, sendText, type ApiAnswer } from './api/respond';
import type { RouteApiAnswer } from './route-api';
import type { Logger } from './log';
import type { PageAnswer } from './web-page';

export interface WatchEndpoints {
  metrics(openMetrics: boolean): Promise<{ contentType: string; body: string }>;
  health(): { ok: boolean; detail: string };
  status(): unknown;
  /** The /api/status body as bytes, cached per round (./api/body-cache.ts); absent: status() serialised per request. */
  statusBytes?(): Buffer;
  /** GET /api/route: the answer for the query (absent: 404 like an unknown path). */
  route?(query: URLSearchParams): Promise<RouteApiAnswer>;
  /** GET / and /assets/*: the web page's file for a path, null when the path is not the page's (./web-page.ts: static, public, its own CSP). */
  page?: (path: string) => PageAnswer | null;
}

/** What a route's handler is given. */
export interface RequestContext {
  principal: Principal;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body (POST routes), else undefined. */
  body: unknown;
  req: IncomingMessage;
  res: ServerResponse;
}

export interface ApiRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** "/api/sessions/:id/abort": a ":name" segment captures one URL-decoded segment. */
  path: string;
  scope: Scope;
  /** The answer, or 'streamed' when the handler wrote the response itself (the event stream). */
  handle(ctx: RequestContext): Promise<ApiAnswer | 'streamed'>;
  /** How long the answer may take (default ANSWER_DEADLINE_MS). */
  deadlineMs?: number;
}

export interface ServerOptions {
  /** The tokens in force (read at each request, so a reload counts); null: no tokens file. */
  tokens?: () => TokenBook | null;
  /** Whether /metrics needs a read token (auth.metrics). */
  metricsNeedToken?: () => boolean;
  limiter?: FailureLimiter;
  log?: Logger;
  routes?: readonly ApiRoute[];
  /** Serve HTTPS with this certificate and key (PEM). */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

/** The longest request URL read (a query of labels); longer: 414. */
export const MAX_URL_CHARS = 8192;
/** The longest an answer may take once the request is read; then 503. */
export const ANSWER_DEADLINE_MS = 5_000;
/** The largest request body read (POST routes); larger: 413. */
export const MAX_BODY_BYTES = 64 * 1024;
/** How long a request body may take to arrive. */
export const BODY_DEADLINE_MS = 10_000;

export interface ListenAddress {
  host: string;
  port: number;
}

/** Parses HOST:PORT ("127.0.0.1:9464", "[::1]:9464", "0.0.0.0:0"); throws a readable error. */
export function parseListen(value: string): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim());
  if (!m) throw new Error(`--listen ${value}: expected HOST:PORT, e.g. 127.0.0.1:9464`);
  const port = Number(m[3]);
  if (port > 65535) throw new Error(`--listen ${value}: port out of range`);
  return { host: m[1] ?? m[2], port };
}

export function isLoopbackListen(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

interface CompiledRoute {
  route: ApiRoute;
  parts: string[];
}

const CLOSED = 'no tokens file is configured (auth.tokensFile): the API is closed';
const JSON_TYPE = /^application\/json\s*(;.*)?$/i;

export class WatchHttpServer {
  private readonly server: Server;
  private readonly routes: CompiledRoute[];
  private readonly limiter: FailureLimiter;

  constructor(
    private readonly endpoints: WatchEndpoints,
    private readonly options: ServerOptions = {},
  ) {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    this.server = options.tls
      ? (createTlsServer({ cert: options.tls.cert, key: options.tls.key }, handler) as unknown as Server)
      : createServer(handler);
    this.server.requestTimeout = 10_000;
    this.server.headersTimeout = 5_000;
    this.server.keepAliveTimeout = 5_000;
    this.server.maxHeadersCount = 50;
    this.limiter = options.limiter ?? new FailureLimiter();
    const builtIn: ApiRoute[] = [
      {
        method: 'GET',
        path: '/api/status',
        scope: 'read',
        handle: () => {
          const raw = this.endpoints.statusBytes?.();
          return Promise.resolve(
            raw ? { status: 200, body: null, raw } : { status: 200, body: this.endpoints.status() },
          );
        },
      },
    ];
    if (endpoints.route) {
      const route = endpoints.route.bind(endpoints);
      builtIn.push({ method: 'GET', path: '/api/route', scope: 'read', handle: async (ctx) => route(ctx.query) });
    }
    this.routes = [...builtIn, ...(options.routes ?? [])].map((route) => ({ route, parts: route.path.split('/') }));
  }

  /**
   * Serves a new certificate and key from now on (a renewed pair; the caller checked that they
   * match): new connections get it, open ones keep theirs. Only on an HTTPS server.
   */
  setTls(pair: { cert: string | Buffer; key: string | Buffer }): void {
    if (!this.options.tls) throw new Error('this server serves plain HTTP: restart it to serve TLS');
    (this.server as unknown as HttpsServer).setSecureContext({ cert: pair.cert, key: pair.key });
  }

  get protocol(): 'http' | 'https' {
    return this.options.tls ? 'https' : 'http';
  }

  listen(address: ListenAddress): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(address.port, address.host, () => {
        this.server.off('error', reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  /** Stops accepting and closes every connection (a scrape or an event stream in flight is cut). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.dispatch(req, res);
    } catch (err) {
      this.options.log?.('error', 'http-error', { message: (err as Error).message });
      if (!res.headersSent) sendJson(res, apiError(500, 'internal', 'internal error'));
      else res.destroy();
    }
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const head = req.method === 'HEAD';
    if (url.length > MAX_URL_CHARS) return sendJson(res, apiError(414, 'uri-too-long', 'request URL too long'));
    const [path, search = ''] = url.split(/\?(.*)/s, 2);
    if (path === '/healthz' || path === '/metrics') {
      if (req.method !== 'GET' && !head) return this.notAllowed(res, 'GET, HEAD');
      if (path === '/healthz') {
        const h = this.endpoints.health();
        return sendText(res, h.ok ? 200 : 503, 'text/plain; charset=utf-8', `${h.detail}\n`, head);
      }
      if (this.options.metricsNeedToken?.()) {
        const who = this.authenticate(req, res, 'read', path);
        if (!who) return;
      }
      const { contentType, body } = await this.endpoints.metrics(wantsOpenMetrics(req.headers.accept));
      return sendText(res, 200, contentType, body, head);
    }
    const page = (req.method === 'GET' || head) && this.endpoints.page ? this.endpoints.page(path) : null;
    if (page) {
      for (const [k, v] of Object.entries(page.headers)) res.setHeader(k, v);
      return sendText(res, page.status, page.contentType, page.body, head);
    }
    if (!path.startsWith('/api/')) return sendText(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    const matches = this.match(path);
    if (matches === null) return sendJson(res, apiError(404, 'not-found', `no such path: ${path.slice(0, 200)}`));
    const method = head ? 'GET' : req.method;
    const found = matches.find((m) => m.route.method === method);
    const scope: Scope = found?.route.scope ?? (matches.some((m) => m.route.scope === 'read') ? 'read' : 'act');
    const principal = this.authenticate(req, res, scope, path);
    if (!principal) return;
    if (!found) return this.notAllowed(res, [...new Set(matches.map((m) => m.route.method))].join(', '));
    let body: unknown;
    if (found.route.method === 'POST') {
      const read = await readJsonBody(req);
      if ('error' in read) return sendJson(res, read.error);
      body = read.body;
    }
    const answer = await withDeadline(
      found.route.handle({ principal, params: found.params, query: new URLSearchParams(search), body, req, res }),
      found.route.deadlineMs ?? ANSWER_DEADLINE_MS,
    );
    if (answer === 'streamed') return;
    if (answer === undefined) return sendJson(res, apiError(503, 'deadline', 'the answer was not ready in time'), head);
    return sendJson(res, answer, head);
  }

  private notAllowed(res: ServerResponse, allow: string): void {
    res.setHeader('allow', allow);
    sendJson(res, apiError(405, 'method-not-allowed', `method not allowed here (allowed: ${allow})`));
  }

  /** The routes whose path matches (any method), with their captured parameters; null: none. */
  private match(path: string): Array<{ route: ApiRoute; params: Record<string, string> }> | null {
    const parts = path.split('/');
    const out: Array<{ route: ApiRoute; params: Record<string, string> }> = [];
    for (const c of this.routes) {
      if (c.parts.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const want = c.parts[i];
        if (want.startsWith(':')) {
          let value: string;
          try {
            value = decodeURIComponent(parts[i]);
          } catch {
            value = '';
          }
          if (value === '') ok = false;
          else params[want.slice(1)] = value;
        } else ok = want === parts[i];
      }
      if (ok) out.push({ route: c.route, params });
    }
    return out.length > 0 ? out : null;
  }

  /**
   * The request's principal when its Bearer token holds `scope`; otherwise the refusal is sent
   * (429 for an address over its failed attempts, 401 without a valid token, 403 for a read token
   * on an act route) and null returned.
   */
  private authenticate(req: IncomingMessage, res: ServerResponse, scope: Scope, path: string): Principal | null {
    const address = req.socket.remoteAddress ?? 'unknown';
    const waitMs = this.limiter.blockedFor(address);
    if (waitMs > 0) {
      sendJson(res, {
        ...apiError(429, 'rate-limited', 'too many failed attempts from this address: try again later'),
        headers: { 'retry-after': String(Math.ceil(waitMs / 1000)) },
      });
      return null;
    }
    const unauthenticated = (message: string) => {
      res.setHeader('www-authenticate', 'Bearer realm="session-ops"');
      sendJson(res, apiError(401, 'unauthenticated', message));
      return null;
    };
    const book = this.options.tokens?.() ?? null;
    const token = bearerToken(req.headers.authorization);
    if (token === null)
      return unauthenticated(
        book
          ? 'send Authorization: Bearer <token>'
          : 'no tokens file is configured (auth.tokensFile): the API is closed',
      );
    const principal = token !== undefined && book ? book.authenticate(token) : null;
    if (!principal) {
      const blockMs = this.limiter.fail(address);
      // Never the token: the address, the path and why.
      this.options.log?.('warn', 'auth-failed', {
        address,
        path: path.slice(0, 200),
        reason: token === undefined ? 'malformed Authorization header' : book ? 'unknown token' : 'no tokens file',
        ...(blockMs > 0 ? { blockedSeconds: Math.ceil(blockMs / 1000) } : {}),
      });
      return unauthenticated(book ? 'the token is not valid' : CLOSED);
    }
    this.limiter.succeed(address);
    if (!allows(principal.scope, scope)) {
      sendJson(
        res,
        apiError(403, 'forbidden', `the token "${principal.name}" has scope ${principal.scope}; this needs ${scope}`),
      );
      return null;
    }
    return principal;
  }
}

/** A POST's JSON body: JSON only (415), at most MAX_BODY_BYTES (413), within BODY_DEADLINE_MS. */
async function readJsonBody(req: IncomingMessage): Promise<{ body: unknown } | { error: ApiAnswer }> {
  const type = req.headers['content-type'] ?? '';
  if (!JSON_TYPE.test(type))
    return { error: apiError(415, 'unsupported-media-type', 'send the body as content-type: application/json') };
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > MAX_BODY_BYTES) {
    req.resume();
    return { error: apiError(413, 'too-large', `the body is larger than ${MAX_BODY_BYTES} bytes`) };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const done = await withDeadline(
    new Promise<'ok' | 'large'>((resolve, reject) => {
      req.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_BODY_BYTES) {
          req.removeAllListeners('data');
          req.resume();
          resolve('large');
        } else chunks.push(c);
      });
      req.on('end', () => resolve('ok'));
      req.on('error', reject);
    }),
    BODY_DEADLINE_MS,
  );
  if (done === undefined) return { error: apiError(408, 'deadline', 'the body did not arrive in time') };
  if (done === 'large') return { error: apiError(413, 'too-large', `the body is larger than ${MAX_BODY_BYTES} bytes`) };
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return { body: {} };
  try {
    return { body: JSON.parse(text) as unknown };
  } catch {
    return { error: apiError(400, 'bad-request', 'the body is not valid JSON') };
  }
}

/** The promise's value, or undefined when it is not settled within `ms` (a rejection rejects). */
export function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: TimerHandle | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = unrefTimer(systemClock.setTimeout(() => resolve(undefined), ms));
  });
  return Promise.race([p, late]).finally(() => systemClock.clearTimeout(timer));
}

export { baseHeaders };
