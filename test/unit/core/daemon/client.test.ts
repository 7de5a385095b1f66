import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { DaemonApiError, DaemonClient, parseDaemonUrl } from '../../../../src/core/daemon/client';
import { backoffMs, DaemonEventStream, type DaemonEvent } from '../../../../src/core/daemon/event-stream';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

describe('core/daemon client (the API an attached window reads)', () => {
  let server: http.Server;
  let handler: Handler;
  let url: string;
  const seen: {
    method: string;
    path: string;
    auth: string | undefined;
    lastEventId: string | undefined;
    body: string;
  }[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({
          method: req.method!,
          path: req.url!,
          auth: req.headers.authorization,
          lastEventId: req.headers['last-event-id'] as string | undefined,
          body,
        });
        handler(req, res, body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const json = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };

  it('sends the token as Bearer only and reads whoami and the fleet', async () => {
    handler = (req, res) => {
      if (req.url === '/api/whoami') json(res, 200, { name: 'alice', scope: 'read' });
      else json(res, 200, { backends: [{ key: 'k', directories: [] }] });
    };
    const c = new DaemonClient({ url, token: 'sot_x' });
    assert.deepEqual(await c.whoami(), { name: 'alice', scope: 'read' });
    assert.deepEqual(await c.fleet(), { backends: [{ key: 'k', directories: [] }] });
    assert.deepEqual(
      seen.map((s) => [s.path, s.auth]),
      [
        ['/api/whoami', 'Bearer sot_x'],
        ['/api/fleet', 'Bearer sot_x'],
      ],
    );
  });

  it('keeps a path prefix of the daemon URL and refuses credentials or other schemes in it', () => {
    assert.equal(
      new DaemonClient({ url: 'https://h/ops', token: null }).url('api/fleet').href,
      'https://h/ops/api/fleet',
    );
    assert.throws(() => parseDaemonUrl('http://u:p@h/'), /no credentials/);
    assert.throws(() => parseDaemonUrl('file:///etc/passwd'), /only http and https/);
    assert.throws(() => parseDaemonUrl('nope'), /not a URL/);
  });

  it('a daemon that does not answer in time is a deadline error, not a hang', async () => {
    handler = () => undefined; // never answers
    const c = new DaemonClient({ url, token: 't', timeoutMs: 150 });
    const t0 = Date.now();
    await assert.rejects(c.fleet(), (e: DaemonApiError) => e.kind === 'deadline' && /within 150 ms/.test(e.message));
    assert.ok(Date.now() - t0 < 2000);
  });

  it('a body dripped slower than the deadline is a deadline error', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"backends":[');
      // never ends
    };
    const c = new DaemonClient({ url, token: 't', timeoutMs: 200 });
    await assert.rejects(c.fleet(), (e: DaemonApiError) => e.kind === 'deadline');
  });

  it('stops reading an answer past its size limit (declared or streamed)', async () => {
    const big = 'x'.repeat(9 * 1024 * 1024);
    handler = (req, res) => {
      if (req.url === '/api/whoami') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(big.length + 2) });
        res.end(JSON.stringify(big));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length declared
        res.write('"');
        res.write(big);
        res.end('"');
      }
    };
    const c = new DaemonClient({ url, token: 't' });
    await assert.rejects(c.whoami(), (e: DaemonApiError) => e.kind === 'too-large');
    await assert.rejects(
      c.providers(),
      (e: DaemonApiError) => e.kind === 'too-large' && /8388608 bytes/.test(e.message),
    );
  });

  it('tells 401, 403, 409 (with the outcome) and 429 (Retry-After) apart', async () => {
    const c = new DaemonClient({ url, token: 't' });
    handler = (_req, res) =>
      json(
        res,
        401,
        { error: { code: 'unauthenticated', message: 'no' } },
        { 'www-authenticate': 'Bearer realm="session-ops"' },
      );
    await assert.rejects(
      c.fleet(),
      (e: DaemonApiError) => e.kind === 'unauthenticated' && e.status === 401 && /Set Daemon Token/.test(e.message),
    );
    handler = (_req, res) => json(res, 403, { error: { code: 'forbidden', message: 'read scope' } });
    await assert.rejects(
      c.act('ses_1', 'wake', { backend: 'k' }),
      (e: DaemonApiError) => e.kind === 'forbidden' && e.status === 403,
    );
    const outcome = { code: 'not-idle', message: 'the session is busy', sent: false };
    handler = (_req, res) => json(res, 409, { error: { code: 'not-idle', message: 'the session is busy' }, outcome });
    await assert.rejects(
      c.act('ses_1', 'wake', {}),
      (e: DaemonApiError) =>
        e.kind === 'refused' && e.code === 'not-idle' && assert.deepEqual(e.outcome, outcome) === undefined,
    );
    handler = (_req, res) =>
      json(res, 429, { error: { code: 'rate-limited', message: 'slow down' } }, { 'retry-after': '4' });
    await assert.rejects(c.whoami(), (e: DaemonApiError) => e.kind === 'rate-limited' && e.retryAfterSeconds === 4);
  });

  it('posts an act as JSON to the act route and returns the outcome', async () => {
    handler = (_req, res) => json(res, 200, { code: 'confirmed', sent: true });
    const c = new DaemonClient({ url, token: 't' });
    assert.deepEqual(await c.act('ses/1', 'wake', { backend: 'http://b/', model: 'p/m' }), {
      code: 'confirmed',
      sent: true,
    });
    assert.equal(seen[0].method, 'POST');
    assert.equal(seen[0].path, '/api/sessions/ses%2F1/wake');
    assert.deepEqual(JSON.parse(seen[0].body), { backend: 'http://b/', model: 'p/m' });
    await assert.rejects(c.act('ses_1', 'delete', {}), /unknown action/);
  });

  it('an unreachable daemon is a clear error', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const c = new DaemonClient({ url: `http://127.0.0.1:${port}`, token: 't' });
    await assert.rejects(c.fleet(), (e: DaemonApiError) => e.kind === 'unreachable' && /ECONNREFUSED/.test(e.message));
  });

  describe('event stream', () => {
    it('backoff doubles up to its ceiling', () => {
      assert.deepEqual(
        [0, 1, 2, 3, 10].map((a) => backoffMs(a, 100, 500)),
        [100, 200, 400, 500, 500],
      );
    });

    it('parses events, reconnects after a drop with Last-Event-ID and backoff, stops on 401', async () => {
      let n = 0;
      handler = (_req, res) => {
        n++;
        if (n === 1) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write(': keep-alive\n\n');
          res.write('id: 7\nevent: row\ndata: {"backend":"k","directory":"/d","row":{"id":"s1"}}\n\n');
          res.end(); // the daemon drops the stream
        } else if (n === 2) {
          res.writeHead(503, { 'content-type': 'application/json' });
          res.end('{}');
        } else if (n === 3) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end('id: 8\nevent: removed\ndata: {"backend":"k","directory":"/d","sessionId":"s1"}\n\n');
        } else json(res, 401, { error: { code: 'unauthenticated', message: 'no' } });
      };
      const events: DaemonEvent[] = [];
      const errors: [string, number | null][] = [];
      let opens = 0;
      const s = new DaemonEventStream(
        new DaemonClient({ url, token: 't' }),
        { onEvent: (e) => events.push(e), onOpen: () => opens++, onError: (e, wait) => errors.push([e.kind, wait]) },
        { minBackoffMs: 10, maxBackoffMs: 40 },
      );
      await s.run();
      assert.deepEqual(
        events.map((e) => [e.event, e.id]),
        [
          ['row', '7'],
          ['removed', '8'],
        ],
      );
      assert.deepEqual((events[0].data as { row: { id: string } }).row, { id: 's1' });
      assert.equal(opens, 2);
      assert.deepEqual(errors, [
        ['unreachable', 10],
        ['server', 10],
        ['unreachable', 10],
        ['unauthenticated', null],
      ]);
      assert.deepEqual(
        seen.map((x) => x.lastEventId),
        [undefined, '7', '7', '8'],
      );
      assert.ok(seen.every((x) => x.auth === 'Bearer t' && x.path === '/api/events'));
    });

    it('a silent stream is dropped after the idle timeout and reconnected; close() ends it', async () => {
      let n = 0;
      handler = (_req, res) => {
        n++;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': hello\n\n'); // then silence
      };
      const errors: string[] = [];
      const s = new DaemonEventStream(
        new DaemonClient({ url, token: 't' }),
        { onEvent: () => undefined, onError: (e) => errors.push(e.message) },
        { idleTimeoutMs: 100, minBackoffMs: 10 },
      );
      const done = s.run();
      while (n < 2) await new Promise((r) => setTimeout(r, 20));
      s.close();
      await done;
      assert.match(errors[0], /silent for 100 ms/);
    });

    it('an event over the size limit drops the connection', async () => {
      handler = (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: row\ndata: ${'x'.repeat(5000)}\n\n`);
      };
      const errors: string[] = [];
      const s: DaemonEventStream = new DaemonEventStream(
        new DaemonClient({ url, token: 't' }),
        {
          onEvent: () => undefined,
          onError: (e) => {
            errors.push(e.kind);
            s.close();
          },
        },
        { maxEventChars: 1000, minBackoffMs: 10 },
      );
      await s.run();
      assert.deepEqual(errors, ['too-large']);
    });
  });
});
