// The daemon's HTTP endpoints: read-only, 404 for other paths, 405 for other methods, /healthz
// 503 when stuck, /metrics in OpenMetrics when asked; HOST:PORT parsing.
import { strict as assert } from 'node:assert';
import { isLoopbackListen, parseListen, WatchHttpServer } from '../../../../src/core/watch/http-server';

describe('core/watch/http-server', () => {
  let server: WatchHttpServer;
  let base: string;
  let healthy = true;
  const calls: boolean[] = [];

  before(async () => {
    server = new WatchHttpServer({
      metrics: (om) => {
        calls.push(om);
        return Promise.resolve({ contentType: om ? 'application/openmetrics-text' : 'text/plain', body: 'm 1\n' });
      },
      health: () => (healthy ? { ok: true, detail: 'ok' } : { ok: false, detail: 'stuck: no round for 99 s' }),
      status: () => ({ backends: [] }),
    });
    const addr = await server.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${addr.port}`;
  });
  after(() => server.close());

  it('serves /metrics (OpenMetrics by Accept), /healthz and /api/status', async () => {
    const text = await fetch(`${base}/metrics`);
    assert.equal(text.status, 200);
    assert.equal(await text.text(), 'm 1\n');
    await fetch(`${base}/metrics?x=1`, { headers: { accept: 'application/openmetrics-text; version=1.0.0' } });
    assert.deepEqual(calls, [false, true]);
    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), 'ok\n');
    const status = await fetch(`${base}/api/status`);
    assert.equal(status.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(await status.json(), { backends: [] });
  });

  it('/healthz is 503 when the loop is stuck', async () => {
    healthy = false;
    const res = await fetch(`${base}/healthz`);
    healthy = true;
    assert.equal(res.status, 503);
    assert.match(await res.text(), /^stuck/);
  });

  it('anything else: 404 for other paths, 405 for other methods (nothing can act)', async () => {
    assert.equal((await fetch(`${base}/`)).status, 404);
    assert.equal((await fetch(`${base}/api/status/x`)).status, 404);
    assert.equal((await fetch(`${base}/session/ses_1/abort`, { method: 'POST' })).status, 404);
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await fetch(`${base}/metrics`, { method, body: method === 'DELETE' ? undefined : 'x' });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'GET, HEAD');
    }
  });

  it('parses HOST:PORT and tells loopback from the rest', () => {
    assert.deepEqual(parseListen('127.0.0.1:9464'), { host: '127.0.0.1', port: 9464 });
    assert.deepEqual(parseListen('[::1]:0'), { host: '::1', port: 0 });
    assert.deepEqual(parseListen('0.0.0.0:80'), { host: '0.0.0.0', port: 80 });
    assert.throws(() => parseListen('9464'), /expected HOST:PORT/);
    assert.throws(() => parseListen('h:70000'), /out of range/);
    assert.equal(isLoopbackListen('127.0.0.1'), true);
    assert.equal(isLoopbackListen('::1'), true);
    assert.equal(isLoopbackListen('0.0.0.0'), false);
    assert.equal(isLoopbackListen('10.0.0.1'), false);
  });
});
