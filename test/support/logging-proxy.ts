// A loopback HTTP proxy that records every request (method, path, query) before forwarding it to
// a backend, so tests can assert the order of requests the extension made (abort, idle read,
// prompt) against the real opencode server. Streams (the event stream) pass through.
// Only node: builtins, so editor tests can load it too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoggedRequest {
  at: number;
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  /** HTTP status of the answer. */
  status?: number;
  /** Body of the answer, kept for the state reads only (GET /session, GET /session/status). */
  answer?: string;
}

export interface LoggingProxy {
  /** http://127.0.0.1:PORT/ */
  url: string;
  log: LoggedRequest[];
  stop(): Promise<void>;
}

export async function startLoggingProxy(target: string): Promise<LoggingProxy> {
  const to = new URL(target);
  const log: LoggedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://proxy');
      const entry: LoggedRequest = {
        at: Date.now(),
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body: body.toString('utf8'),
      };
      log.push(entry);
      const keep = entry.method === 'GET' && (entry.path === '/session' || entry.path === '/session/status');
      const upstream = http.request(
        {
          host: to.hostname,
          port: to.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: to.host },
        },
        (up) => {
          entry.status = up.statusCode;
          res.writeHead(up.statusCode ?? 502, up.headers);
          if (keep) {
            const kept: Buffer[] = [];
            up.on('data', (c: Buffer) => kept.push(c));
            up.on('end', () => (entry.answer = Buffer.concat(kept).toString('utf8')));
          }
          up.pipe(res);
        },
      );
      upstream.on('error', (err) => {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${err.message}`);
      });
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
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
