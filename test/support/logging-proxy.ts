// A loopback HTTP proxy in front of a backend that logs every request (method, path, query, body)
// and, for the state reads (GET /session, GET /session/status), the answer's body: the request
// log of the tests against stock opencode. Only node: builtins.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: string;
  at: number;
  /** Body of the answer, for GET /session and GET /session/status only. */
  answer?: string;
  status?: number;
}

export interface LoggingProxy {
  url: string;
  log: ProxiedRequest[];
  stop(): Promise<void>;
}

export async function startLoggingProxy(target: string): Promise<LoggingProxy> {
  const t = new URL(target);
  const log: ProxiedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://proxy.invalid');
      const query: Record<string, string> = {};
      url.searchParams.forEach((v, k) => (query[k] = v));
      const body = Buffer.concat(chunks);
      const entry: ProxiedRequest = { method: req.method ?? 'GET', path: url.pathname, query, body: body.toString('utf8'), at: Date.now() };
      log.push(entry);
      const keep = entry.method === 'GET' && (entry.path === '/session' || entry.path === '/session/status');
      const upstream = http.request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers: { ...req.headers, host: t.host } }, (up) => {
        entry.status = up.statusCode;
        res.writeHead(up.statusCode ?? 502, up.headers);
        const kept: Buffer[] = [];
        up.on('data', (c: Buffer) => {
          if (keep) kept.push(c);
          res.write(c);
        });
        up.on('end', () => {
          if (keep) entry.answer = Buffer.concat(kept).toString('utf8');
          res.end();
        });
      });
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    log,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
