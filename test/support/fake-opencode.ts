// A minimal fake of stock opencode 1.18's shapes (observed on the real server), for unit tests of
// the backend client: the session list and status map, newest messages, the provider listings
// (GET /provider's catalogue and GET /config/providers' connected ones) and an event stream.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export async function fakeOpencode(state: {
  status: Record<string, unknown>;
  messages: Record<string, unknown[]>;
  /** Serve GET /config/providers (stock opencode 1.18 does); false: 404. */
  configProviders?: boolean;
}) {
  const seen: string[] = [];
  const srv = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    seen.push(`${req.method} ${url.pathname}?${url.searchParams.toString()}`);
    const send = (body: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/session')
      return send(
        Object.keys(state.messages).map((id) => ({ id, title: `t ${id}`, time: { created: 1, updated: 2 } })),
      );
    if (url.pathname === '/session/status') return send(state.status);
    const m = /^\/session\/([^/]+)\/message$/.exec(url.pathname);
    if (m) return send(state.messages[decodeURIComponent(m[1])].slice(-1));
    if (url.pathname === '/config/providers' && state.configProviders !== false)
      return send({
        providers: [
          { id: 'opencode', models: { free: {} } },
          { id: 'local', options: { apiKey: 'sk-SECRET' }, models: { m1: { variants: { high: {} } } } },
        ],
        default: { opencode: 'free', local: 'm1' },
      });
    if (url.pathname === '/provider')
      return send({
        all: [
          { id: 'local', options: { apiKey: 'sk-SECRET' }, models: { m1: { variants: { high: {} } } } },
          { id: 'opencode', models: { free: {} } },
          { id: 'anthropic', models: { sonnet: {} } },
        ],
        connected: ['opencode', 'local'],
        default: { local: 'm1', opencode: 'free' },
      });
    if (url.pathname === '/event') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"id":"evt_1","type":"server.connected","properties":{}}\n\n');
      res.write(
        'data: {"id":"evt_2","type":"session.status","properties":{"sessionID":"ses_a","status":{"type":"busy"}}}\n\n',
      );
      setTimeout(() => res.end(), 30);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/`,
    seen,
    stop: () => new Promise<void>((r) => (srv.closeAllConnections(), srv.close(() => r()))),
  };
}
