// A loopback proxy that plays opencode 2 in front of an opencode 1.18 server: every path of the
// old surface answers 404 (as reported of opencode 2, which keeps only `/api`); `/api/*` and
// `/doc` pass through (streams too). It records each request's method and path. Only node: builtins.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OldSurfaceBlocker {
  /** http://127.0.0.1:PORT/ */
  url: string;
  /** "GET /api/session" ..., in order, and whether it was blocked. */
  log: Array<{ method: string; path: string; blocked: boolean }>;
  stop(): Promise<void>;
}

export async function startOldSurfaceBlocker(target: string): Promise<OldSurfaceBlocker> {
  const to = new URL(target);
  const log: OldSurfaceBlocker['log'] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const pass = url.pathname.startsWith('/api/') || url.pathname === '/doc';
    log.push({ method: req.method ?? 'GET', path: url.pathname, blocked: !pass });
    if (!pass) {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"_tag":"NotFound","message":"Not Found"}');
      return;
    }
    const upstream = http.request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: to.host },
        // No pooled agent: its idle-socket timeout would cut a quiet event stream.
        agent: false,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${err.message}`);
    });
    upstream.setTimeout(0);
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    log,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
