// The transport's exchange with a plain loopback server: a request that waits in the pool's queue
// ends at its own deadline or its caller's abort (not when a connection frees), bodies nobody reads
// are drained or dropped without changing the outcome, and headers are there when a reader asks.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BackendError } from '../../../../src/core/backend/errors';
import { HttpTransport } from '../../../../src/core/backend/http';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function serve(handler: Handler): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const get = (path: string, extra: Partial<Parameters<HttpTransport['request']>[0]> = {}) => ({
  method: 'GET' as const,
  path,
  query: { directory: '/d' },
  operation: `GET /${path}`,
  read: 'json' as const,
  ...extra,
});

async function failure(p: Promise<unknown>): Promise<BackendError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof BackendError, `expected a BackendError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the request to fail');
}

describe('backend transport: one exchange per request', () => {
  let release: (() => void) | null = null;
  let server: Awaited<ReturnType<typeof serve>>;

  beforeEach(async () => {
    server = await serve((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/held') {
        release = () => {
          release = null;
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"held":true}');
        };
        return;
      }
      if (path === '/big-error') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('x'.repeat(1024 * 1024));
        return;
      }
      if (path === '/big-post') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`"${'y'.repeat(512 * 1024)}"`);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-next-cursor': 'msg_7' });
      res.end('{"ok":true}');
    });
  });
  /** Waits until the server holds the request to /held. */
  const heldArrived = async () => {
    while (!release) await new Promise((r) => setTimeout(r, 5));
  };
  afterEach(async () => {
    release?.();
    await server.stop();
  });

  it('a request queued behind a held one ends at its own deadline, and the held one still completes', async () => {
    const t = new HttpTransport({ baseUrl: server.url, connections: 1 });
    try {
      const order: string[] = [];
      const held = t.request(get('held')).then((r) => (order.push('held'), r));
      const queued = failure(t.request(get('plain', { timeoutMs: 150 }))).then((e) => (order.push('queued'), e));
      const err = await queued;
      assert.equal(err.code, 'timeout');
      await heldArrived();
      release!();
      assert.deepEqual((await held).json, { held: true });
      assert.deepEqual(order, ['queued', 'held'], 'the queued request did not wait for the connection');
      assert.deepEqual((await t.request(get('plain'))).json, { ok: true }, 'the connection is usable afterwards');
    } finally {
      await t.close();
    }
  });

  it("a request queued behind a held one ends at its caller's abort", async () => {
    const t = new HttpTransport({ baseUrl: server.url, connections: 1 });
    try {
      const held = t.request(get('held'));
      const ac = new AbortController();
      const queued = failure(t.request(get('plain', { signal: ac.signal })));
      ac.abort();
      assert.equal((await queued).code, 'aborted');
      await heldArrived();
      release!();
      assert.deepEqual((await held).json, { held: true });
    } finally {
      await t.close();
    }
  });

  it('an error status with a large body is that error (the body is never read whole); the next request works', async () => {
    const t = new HttpTransport({ baseUrl: server.url, connections: 1 });
    try {
      const err = await failure(t.request(get('big-error')));
      assert.equal(err.code, 'server');
      assert.equal(err.status, 500);
      assert.deepEqual((await t.request(get('plain'))).json, { ok: true });
    } finally {
      await t.close();
    }
  });

  it("a POST's answer is drained unread: past the drain limit it is dropped and the POST still counts as accepted", async () => {
    const t = new HttpTransport({ baseUrl: server.url, connections: 1 });
    try {
      const res = await t.request({
        method: 'POST',
        path: 'big-post',
        query: { directory: '/d' },
        body: '{}',
        operation: 'POST /big-post',
        read: 'discard',
      });
      assert.equal(res.status, 200);
      assert.equal(res.json, undefined);
      assert.deepEqual((await t.request(get('plain'))).json, { ok: true });
    } finally {
      await t.close();
    }
  });

  it('the headers of an answer are there when a reader asks (names lower-case)', async () => {
    const t = new HttpTransport({ baseUrl: server.url });
    try {
      const res = await t.request(get('plain'));
      assert.equal(res.headers['x-next-cursor'], 'msg_7');
      assert.equal(res.headers['content-type'], 'application/json');
      assert.equal(res.headers, res.headers, 'parsed once');
    } finally {
      await t.close();
    }
  });
  it('a query that cannot be encoded is an invalid request, counted as failed, never a raw error', async () => {
    const seen: Array<string | null> = [];
    const t = new HttpTransport({
      baseUrl: server.url,
      onRequest: (_op, error) => seen.push(error ? error.code : null),
    });
    try {
      const err = await failure(t.request(get('session', { query: { directory: '/d/\uD800' } })));
      assert.equal(err.code, 'invalid-request');
      assert.match(err.message, /cannot be encoded/);
      await t.request(get('session'));
      assert.deepEqual(seen, ['invalid-request', null], 'the failure reaches the request counter as a failure');
    } finally {
      await t.close();
    }
  });
});
