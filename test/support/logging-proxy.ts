// A loopback HTTP proxy that records every request (method, path, query) before forwarding it to
// a backend, so tests can assert the order of requests the extension made (abort, idle read,
// prompt) against the real opencode server. Streams (the event stream) pass through. Optionally it
// rewrites answers (e.g. strips fields a backend version does not send) and counts answer bytes.
// Only node: builtins, so editor tests can load it too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoggedRequest {
  at: number;
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  /** The `x-opencode-directory` header (percent-encoded, as sent), where the request had one. */
  directoryHeader?: string;
  /** HTTP status of the answer. */
  status?: number;
  /** Body of the answer, kept for the state reads only (GET /session, GET /session/status). */
  answer?: string;
  /** Bytes of the answer's body as sent to the client (set when it ended). */
  bytes?: number;
}

export interface LoggingProxyOptions {
  /** A rewrite of the answer to this request (its whole body, uncompressed), or null to pass it through. */
  rewrite?: (entry: LoggedRequest) => ((body: string) => string) | null;
}

export interface LoggingProxy {
  /** http://127.0.0.1:PORT/ */
  url: string;
  log: LoggedRequest[];
  stop(): Promise<void>;
}

export async function startLoggingProxy(target: string, options: LoggingProxyOptions = {}): Promise<LoggingProxy> {
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
      const dirHeader = req.headers['x-opencode-directory'];
      if (typeof dirHeader === 'string') entry.directoryHeader = dirHeader;
      log.push(entry);
      const keep = entry.method === 'GET' && (entry.path === '/session' || entry.path === '/session/status');
      const rewrite = options.rewrite?.(entry) ?? null;
      const headers = { ...req.headers, host: to.host };
      if (rewrite) delete headers['accept-encoding'];
      const upstream = http.request(
        {
          host: to.hostname,
          port: to.port,
          method: req.method,
          path: req.url,
          headers,
        },
        (up) => {
          entry.status = up.statusCode;
          if (rewrite) {
            const whole: Buffer[] = [];
            up.on('data', (c: Buffer) => whole.push(c));
            up.on('end', () => {
              const text = rewrite(Buffer.concat(whole).toString('utf8'));
              entry.bytes = Buffer.byteLength(text);
              if (keep) entry.answer = text;
              const { 'content-length': _length, 'transfer-encoding': _chunked, ...rest } = up.headers;
              res.writeHead(up.statusCode ?? 502, { ...rest, 'content-length': String(entry.bytes) }).end(text);
            });
            return;
          }
          let bytes = 0;
          up.on('data', (c: Buffer) => (bytes += c.length));
          up.on('end', () => (entry.bytes = bytes));
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
