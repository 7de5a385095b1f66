// A loopback backend that misbehaves on demand, one endpoint at a time. It speaks either dialect
// well enough for the client and `session-ops status` (the spec's: sessions carry `state`, no
// event stream; stock opencode 1.18's: GET /session/status, GET /event with a heartbeat, provider
// `options` echoing an API key), logs every request, and injects one fault per endpoint:
//
//   reset        headers and part of the body, then the socket is destroyed
//   no-answer    the request is read and never answered
//   drip         a 200 whose (valid) body arrives a few bytes at a time, forever
//   401 404 429 500 503   that status with a small body
//   malformed    a 200 whose body is not JSON
//   wrong-shape  a 200 with valid JSON of the wrong shape
//   huge         a 200 with a 50 MB body of valid JSON, streamed (no content-length)
//   html         a 200 text/html login page
//   event-close  (event stream) one busy event, then the stream ends mid-turn
//   event-silent (event stream) headers, then nothing: no event, no heartbeat
//
// "Connection refused" is the server stopped (stop(), then restart() on the same port).
// Only node: builtins.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FaultDialect = 'spec' | 'opencode';
export type FaultEndpoint = 'sessions' | 'message' | 'status' | 'providers' | 'abort' | 'prompt' | 'events';
export type FaultKind =
  | 'reset'
  | 'no-answer'
  | 'drip'
  | '401'
  | '404'
  | '429'
  | '500'
  | '503'
  | 'malformed'
  | 'wrong-shape'
  | 'huge'
  | 'html'
  | 'event-close'
  | 'event-silent';

export interface FaultRequest {
  method: string;
  endpoint: FaultEndpoint | null;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
  fault: FaultKind | null;
}

export interface FaultServerOptions {
  dialect: FaultDialect;
  port?: number;
  /** Sessions listed (ids ses_0001 ...). Default 2. */
  sessions?: number;
  /** Heartbeat period of the event stream (stock: 10 s). Default 200 ms. */
  heartbeatMs?: number;
  /** Delay between two bytes of a dripping body. Default 50 ms. */
  dripMs?: number;
  /** Size of a huge body. Default 50 MB. */
  hugeBytes?: number;
  /** The API key echoed in provider options (never to be seen in any output). */
  apiKey?: string;
}

export interface FaultServer {
  url: string;
  port: number;
  dialect: FaultDialect;
  requests: FaultRequest[];
  sessionIds: string[];
  /** `sessionId`: only that session's requests to the endpoint get the fault (default: all). */
  setFault(endpoint: FaultEndpoint, fault: FaultKind | null, sessionId?: string): void;
  clearFaults(): void;
  /** Bytes written by huge bodies (to see that the client stopped reading). */
  hugeBytesSent: number;
  /** Stops listening and destroys every connection (then: connection refused). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
}

export const ALL_ENDPOINTS: FaultEndpoint[] = [
  'sessions',
  'message',
  'status',
  'providers',
  'abort',
  'prompt',
  'events',
];

const STATUS_FAULTS: Record<string, number> = { '401': 401, '404': 404, '429': 429, '500': 500, '503': 503 };

function endpointOf(method: string, path: string): FaultEndpoint | null {
  if (method === 'GET' && path === '/session') return 'sessions';
  if (method === 'GET' && path === '/session/status') return 'status';
  if (method === 'GET' && /^\/session\/[^/]+\/message$/.test(path)) return 'message';
  if (method === 'GET' && path === '/provider') return 'providers';
  if (method === 'POST' && /^\/session\/[^/]+\/abort$/.test(path)) return 'abort';
  if (method === 'POST' && /^\/session\/[^/]+\/prompt_async$/.test(path)) return 'prompt';
  if (method === 'GET' && path === '/event') return 'events';
  return null;
}

export async function startFaultServer(options: FaultServerOptions): Promise<FaultServer> {
  const dialect = options.dialect;
  const heartbeatMs = options.heartbeatMs ?? 200;
  const dripMs = options.dripMs ?? 50;
  const hugeBytes = options.hugeBytes ?? 50 * 1000 * 1000;
  const apiKey = options.apiKey ?? 'sk-fault-server-SECRET-0123456789';
  const sessionIds = Array.from({ length: options.sessions ?? 2 }, (_, i) => `ses_${String(i + 1).padStart(4, '0')}`);
  const faults = new Map<FaultEndpoint, FaultKind>();
  const faultSession = new Map<FaultEndpoint, string>();
  const requests: FaultRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setInterval>>();
  const t0 = Date.now();

  const healthy = (endpoint: FaultEndpoint): { status: number; body: unknown } => {
    switch (endpoint) {
      case 'sessions':
        return dialect === 'spec'
          ? {
              status: 200,
              body: sessionIds.map((id) => ({
                id,
                title: `t ${id}`,
                state: 'idle',
                progress: { stepCount: 3, lastStepAt: t0 },
                time: { created: t0, updated: t0 },
              })),
            }
          : {
              status: 200,
              body: sessionIds.map((id) => ({ id, title: `t ${id}`, time: { created: t0, updated: t0 } })),
            };
      case 'status':
        return { status: 200, body: {} };
      case 'message':
        return {
          status: 200,
          body:
            dialect === 'spec'
              ? [
                  {
                    info: { id: 'msg_0001', role: 'assistant', finish: 'stop', time: { created: t0, completed: t0 } },
                    parts: [{ type: 'text', text: 'working' }],
                  },
                ]
              : [
                  {
                    info: {
                      id: 'msg_0001',
                      role: 'assistant',
                      providerID: 'local',
                      modelID: 'm1',
                      time: { created: t0, completed: t0 },
                    },
                    parts: [{ type: 'text', text: 'working' }],
                  },
                ],
        };
      case 'providers':
        return dialect === 'spec'
          ? { status: 200, body: { all: [{ id: 'p', name: 'P', options: { apiKey } }], connected: ['p'] } }
          : {
              status: 200,
              body: {
                all: [
                  {
                    id: 'local',
                    name: 'Local',
                    options: { apiKey, baseURL: 'http://127.0.0.1:9/v1' },
                    models: { m1: {} },
                  },
                ],
                connected: ['local'],
                default: { local: 'm1' },
              },
            };
      case 'abort':
        return { status: 200, body: true };
      case 'prompt':
        return { status: 204, body: null };
      case 'events':
        return { status: 404, body: { error: 'no event stream' } };
    }
  };

  const wrongShape = (endpoint: FaultEndpoint): unknown => {
    if (endpoint === 'sessions' || endpoint === 'message') return { data: [{ id: 42 }] };
    if (endpoint === 'status') return [{ id: 'ses_0001', type: 7 }];
    if (endpoint === 'providers') return { all: 'none', connected: 5 };
    return { unexpected: true };
  };

  /** A valid JSON value of about `bytes` bytes for the endpoint, written in chunks as the socket drains. */
  const streamHuge = (endpoint: FaultEndpoint, res: http.ServerResponse) => {
    const item =
      endpoint === 'message'
        ? JSON.stringify({ type: 'text', text: 'x'.repeat(1000) })
        : endpoint === 'providers'
          ? JSON.stringify({ id: 'p', models: { m: {} }, options: { apiKey } })
          : dialect === 'spec'
            ? JSON.stringify({ id: 'ses_huge', state: 'idle', title: 'x'.repeat(200), directory: '/w' })
            : JSON.stringify({
                id: 'ses_huge',
                title: 'x'.repeat(200),
                directory: '/w',
                time: { created: 1, updated: 1 },
              });
    const [head, tail] =
      endpoint === 'message'
        ? ['[{"info":{"id":"msg_1","role":"assistant","time":{"created":1}},"parts":[', ']}]']
        : endpoint === 'providers'
          ? ['{"connected":[],"all":[', ']}']
          : endpoint === 'status'
            ? ['{"pad":[', ']}']
            : ['[', ']'];
    let counter = 0;
    const chunkOf = () => {
      const items: string[] = [];
      for (let i = 0; i < 64; i++)
        items.push(endpoint === 'sessions' ? item.replace('ses_huge', `ses_h${counter++}`) : item);
      return items.join(',');
    };
    let sent = 0;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(head);
    let first = true;
    const pump = () => {
      while (sent < hugeBytes && !res.destroyed) {
        const chunk = (first ? '' : ',') + chunkOf();
        first = false;
        sent += chunk.length;
        server.hugeBytesSent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!res.destroyed) res.end(tail);
    };
    pump();
  };

  const sendJson = (res: http.ServerResponse, status: number, body: unknown) => {
    if (status === 204) {
      res.writeHead(204);
      res.end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };

  const openEvents = (res: http.ServerResponse, fault: FaultKind | null) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    if (fault === 'event-silent') return;
    res.write(`data: ${JSON.stringify({ type: 'server.connected', properties: {} })}\n\n`);
    if (fault === 'event-close') {
      res.write(
        `data: ${JSON.stringify({ type: 'session.status', properties: { sessionID: sessionIds[0], status: { type: 'busy' } } })}\n\n`,
      );
      res.write(
        `data: ${JSON.stringify({ type: 'message.part.updated', properties: { part: { sessionID: sessionIds[0], type: 'text' } } })}\n\n`,
      );
      setTimeout(() => res.end(), 20);
      return;
    }
    const beat = setInterval(() => {
      if (res.destroyed) {
        clearInterval(beat);
        timers.delete(beat);
        return;
      }
      res.write(`data: ${JSON.stringify({ type: 'server.heartbeat', properties: {} })}\n\n`);
    }, heartbeatMs);
    timers.add(beat);
    res.on('close', () => {
      clearInterval(beat);
      timers.delete(beat);
    });
  };

  const handle = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    const endpoint = endpointOf(method, url.pathname);
    const only = endpoint ? faultSession.get(endpoint) : undefined;
    const scoped = only === undefined || url.pathname.includes(`/session/${only}/`);
    const fault = endpoint && scoped ? (faults.get(endpoint) ?? null) : null;
    const auth = req.headers.authorization;
    requests.push({
      method,
      endpoint,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      authorization: typeof auth === 'string' ? auth : null,
      fault,
    });
    req.resume();
    if (!endpoint) return sendJson(res, 404, { error: 'no such endpoint' });
    if (endpoint === 'events' && dialect === 'spec' && fault === null)
      return sendJson(res, 404, { error: 'no event stream' });
    if (endpoint === 'status' && dialect === 'spec' && fault === null)
      return sendJson(res, 404, { error: 'not found' });
    switch (fault) {
      case null:
        if (endpoint === 'events') return openEvents(res, null);
        return sendJson(res, healthy(endpoint).status, healthy(endpoint).body);
      case 'reset': {
        res.writeHead(200, { 'content-type': endpoint === 'events' ? 'text/event-stream' : 'application/json' });
        res.write(endpoint === 'events' ? 'data: {"type":"server.conn' : '[{"id":"ses_');
        setTimeout(() => req.socket.destroy(), 10);
        return;
      }
      case 'no-answer':
        return; // never answered; the socket stays open until the client gives up
      case 'drip': {
        res.writeHead(200, { 'content-type': endpoint === 'events' ? 'text/event-stream' : 'application/json' });
        const text =
          endpoint === 'events'
            ? `data: ${JSON.stringify({ type: 'server.connected', properties: { pad: 'x'.repeat(1_000_000) } })}\n\n`
            : JSON.stringify(healthy(endpoint).body ?? {}).padEnd(1_000_000, ' ');
        let i = 0;
        const drip = setInterval(() => {
          if (res.destroyed || i >= text.length) {
            clearInterval(drip);
            timers.delete(drip);
            if (!res.destroyed) res.end();
            return;
          }
          res.write(text.slice(i, i + 3));
          i += 3;
        }, dripMs);
        timers.add(drip);
        res.on('close', () => {
          clearInterval(drip);
          timers.delete(drip);
        });
        return;
      }
      case '401':
      case '404':
      case '429':
      case '500':
      case '503':
        res.setHeader('retry-after', '1');
        return sendJson(res, STATUS_FAULTS[fault], {
          error: `injected ${fault}`,
          echo: { authorization: auth ?? null },
        });
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end('[{"id": "ses_0001", "state": ');
      case 'wrong-shape':
        return sendJson(res, 200, wrongShape(endpoint));
      case 'huge':
        return streamHuge(endpoint, res);
      case 'html':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        return void res.end(
          '<!doctype html><html><body><form action="/login"><input name="password"></form></body></html>',
        );
      case 'event-close':
      case 'event-silent':
        if (endpoint === 'events') return openEvents(res, fault);
        return sendJson(res, healthy(endpoint).status, healthy(endpoint).body);
    }
  };

  const server = http.createServer(handle) as http.Server & { hugeBytesSent: number };
  server.hugeBytesSent = 0;
  server.keepAliveTimeout = 5_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  const port = await listen(options.port ?? 0);

  const api: FaultServer = {
    url: `http://127.0.0.1:${port}/`,
    port,
    dialect,
    requests,
    sessionIds,
    setFault(endpoint, fault, sessionId) {
      if (fault === null) faults.delete(endpoint);
      else faults.set(endpoint, fault);
      if (fault !== null && sessionId !== undefined) faultSession.set(endpoint, sessionId);
      else faultSession.delete(endpoint);
    },
    clearFaults() {
      faults.clear();
      faultSession.clear();
    },
    get hugeBytesSent() {
      return server.hugeBytesSent;
    },
    set hugeBytesSent(v: number) {
      server.hugeBytesSent = v;
    },
    async stop() {
      for (const t of timers) clearInterval(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async restart() {
      await listen(port);
    },
  };
  return api;
}
