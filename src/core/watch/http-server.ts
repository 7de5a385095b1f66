// The daemon's read-only HTTP endpoints: GET /metrics (Prometheus text, OpenMetrics when the
// Accept header asks), GET /healthz (200 "ok" while the sampling loop runs, 503 when stuck) and
// GET /api/status (the `status --json` documents per backend) and GET /api/route (a ticket's
// effective route in the configured routing table: ./route-api.ts); GET / and /assets/* the web
// page (static, with its Content-Security-Policy: ./web-page.ts). Any other path is 404, any other
// method on these paths 405; nothing here can act on a session. Requests carry no body (one sent is
// never read), a URL of at most MAX_URL_CHARS, and each has a deadline (an answer not ready within
// ANSWER_DEADLINE_MS is 503).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wantsOpenMetrics } from '../metrics/watch-metrics';
import type { RouteApiAnswer } from './route-api';
import type { PageAnswer } from './web-page';

export interface WatchEndpoints {
  metrics(openMetrics: boolean): Promise<{ contentType: string; body: string }>;
  health(): { ok: boolean; detail: string };
  status(): unknown;
  /** GET /api/route: the answer for the query (absent: 404 like an unknown path). */
  route?(query: URLSearchParams): Promise<RouteApiAnswer>;
  /** GET / and /assets/*: the web page's file for a path, null when the path is not the page's (./web-page.ts). */
  page?: (path: string) => PageAnswer | null;
}

const PATHS = new Set(['/metrics', '/healthz', '/api/status', '/api/route']);
/** The longest request URL read (a query of labels); longer: 414. */
export const MAX_URL_CHARS = 8192;
/** The longest an answer may take once the request is read; then 503. */
export const ANSWER_DEADLINE_MS = 5_000;

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

export class WatchHttpServer {
  private readonly server: Server;

  constructor(private readonly endpoints: WatchEndpoints) {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.requestTimeout = 10_000;
    this.server.headersTimeout = 5_000;
    this.server.keepAliveTimeout = 5_000;
    this.server.maxHeadersCount = 50;
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

  /** Stops accepting and closes every connection (a scrape in flight is cut). */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    if (url.length > MAX_URL_CHARS) return send(res, 414, 'text/plain; charset=utf-8', 'request URL too long\n');
    const [path, search = ''] = url.split(/\?(.*)/s, 2);
    const head = req.method === 'HEAD';
    const page = (req.method === 'GET' || head) && this.endpoints.page ? this.endpoints.page(path) : null;
    if (page) return sendPage(res, page, head);
    if (!PATHS.has(path) || (path === '/api/route' && !this.endpoints.route))
      return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed: these endpoints are read-only\n');
    }
    try {
      if (path === '/metrics') {
        const { contentType, body } = await this.endpoints.metrics(wantsOpenMetrics(req.headers.accept));
        return send(res, 200, contentType, body, req.method === 'HEAD');
      }
      if (path === '/api/route' && this.endpoints.route) {
        const answer = await withDeadline(this.endpoints.route(new URLSearchParams(search)), ANSWER_DEADLINE_MS);
        if (!answer) return send(res, 503, 'text/plain; charset=utf-8', 'the answer was not ready in time\n');
        return send(
          res,
          answer.status,
          'application/json; charset=utf-8',
          `${JSON.stringify(answer.body)}\n`,
          req.method === 'HEAD',
        );
      }
      if (path === '/healthz') {
        const h = this.endpoints.health();
        return send(res, h.ok ? 200 : 503, 'text/plain; charset=utf-8', `${h.detail}\n`, req.method === 'HEAD');
      }
      return send(
        res,
        200,
        'application/json; charset=utf-8',
        `${JSON.stringify(this.endpoints.status())}\n`,
        req.method === 'HEAD',
      );
    } catch {
      return send(res, 500, 'text/plain; charset=utf-8', 'internal error\n');
    }
  }
}

function sendPage(res: ServerResponse, page: PageAnswer, head: boolean): void {
  res.statusCode = page.status;
  for (const [k, v] of Object.entries(page.headers)) res.setHeader(k, v);
  res.setHeader('content-type', page.contentType);
  res.setHeader('content-length', Buffer.byteLength(page.body));
  res.end(head ? undefined : page.body);
}

function send(res: ServerResponse, status: number, contentType: string, body: string, head = false): void {
  res.statusCode = status;
  res.setHeader('content-type', contentType);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.setHeader('cache-control', 'no-store');
  res.end(head ? undefined : body);
}

/** The promise's value, or undefined when it is not settled within `ms` (a rejection rejects). */
function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
    timer.unref?.();
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
