// The daemon's HTTP server: public /healthz and /metrics, the API behind Bearer tokens of a scope
// (401 without, 403 for a read token on an act route, 429 after failed attempts, logged without the
// token), no cookies and no CORS headers, typed JSON errors, body limits (415, 413, 400), 404 and
// 405, auth.metrics, TLS with a certificate made by openssl at test time; HOST:PORT parsing.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isLoopbackListen, parseListen, WatchHttpServer, type ApiRoute } from '../../../../src/core/watch/http-server';
import { hashToken, TokenBook } from '../../../../src/core/watch/auth/tokens';
import { FailureLimiter } from '../../../../src/core/watch/auth/rate-limit';

const READ = 'sot_read-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const ACT = 'sot_act-token-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const book = new TokenBook([
  { name: 'reader', scope: 'read', sha256: hashToken(READ), createdAt: null },
  { name: 'actor', scope: 'act', sha256: hashToken(ACT), createdAt: null },
]);
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });

describe('core/watch/http-server', () => {
  let server: WatchHttpServer;
  let base: string;
  let healthy = true;
  let metricsNeedToken = false;
  let clock = 1_000_000;
  const calls: boolean[] = [];
  const logged: Array<{ event: string; fields: Record<string, unknown> }> = [];
  const bodies: unknown[] = [];
  const routes: ApiRoute[] = [
    {
      method: 'POST',
      path: '/api/sessions/:id/abort',
      scope: 'act',
      handle: (ctx) => {
        bodies.push(ctx.body);
        return Promise.resolve({ status: 200, body: { id: ctx.params.id, who: ctx.principal.name } });
      },
    },
    { method: 'GET', path: '/api/slow', scope: 'read', deadlineMs: 50, handle: () => new Promise(() => undefined) },
  ];

  before(async () => {
    server = new WatchHttpServer(
      {
        metrics: (om) => {
          calls.push(om);
          return Promise.resolve({ contentType: om ? 'application/openmetrics-text' : 'text/plain', body: 'm 1\n' });
        },
        health: () => (healthy ? { ok: true, detail: 'ok' } : { ok: false, detail: 'stuck: no round for 99 s' }),
        status: () => ({ backends: [] }),
      },
      {
        tokens: () => book,
        metricsNeedToken: () => metricsNeedToken,
        limiter: new FailureLimiter(() => clock),
        log: (_level, event, fields = {}) => logged.push({ event, fields }),
        routes,
      },
    );
    const addr = await server.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${addr.port}`;
  });
  after(() => server.close());

  it('serves /metrics (OpenMetrics by Accept) and /healthz without a token; /api/status with a read token', async () => {
    const text = await fetch(`${base}/metrics`);
    assert.equal(text.status, 200);
    assert.equal(await text.text(), 'm 1\n');
    await fetch(`${base}/metrics?x=1`, { headers: { accept: 'application/openmetrics-text; version=1.0.0' } });
    assert.deepEqual(calls, [false, true]);
    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), 'ok\n');
    const status = await fetch(`${base}/api/status`, { headers: bearer(READ) });
    assert.equal(status.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(status.headers.get('cache-control'), 'no-store');
    assert.deepEqual(await status.json(), { backends: [] });
  });

  it('no token: 401 unauthenticated with WWW-Authenticate; a read token on an act route: 403; an act token acts', async () => {
    const none = await fetch(`${base}/api/status`);
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal(((await none.json()) as { error: { code: string } }).error.code, 'unauthenticated');
    const post = (token: string, body = '{"backend":"b"}') =>
      fetch(`${base}/api/sessions/ses%2F1/abort`, {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body,
      });
    const forbidden = await post(READ);
    assert.equal(forbidden.status, 403);
    assert.equal(((await forbidden.json()) as { error: { code: string } }).error.code, 'forbidden');
    const ok = await post(ACT);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { id: 'ses/1', who: 'actor' });
    assert.deepEqual(bodies.at(-1), { backend: 'b' });
  });

  it('never sets a cookie or a CORS header, even when asked by an Origin', async () => {
    for (const path of ['/healthz', '/metrics', '/api/status', '/api/nothing']) {
      const res = await fetch(`${base}${path}`, { headers: { origin: 'https://evil.example', ...bearer(READ) } });
      assert.equal(res.headers.get('set-cookie'), null, path);
      for (const [k] of res.headers) assert.doesNotMatch(k, /^access-control-/, path);
    }
    const preflight = await fetch(`${base}/api/sessions/s/abort`, {
      method: 'OPTIONS',
      headers: { origin: 'https://x' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    assert.notEqual(preflight.status, 200);
  });

  it('POST bodies: JSON only (415), at most 64 KiB (413), valid JSON (400)', async () => {
    const url = `${base}/api/sessions/s1/abort`;
    const text = await fetch(url, {
      method: 'POST',
      headers: { ...bearer(ACT), 'content-type': 'text/plain' },
      body: '{}',
    });
    assert.equal(text.status, 415);
    const big = await fetch(url, {
      method: 'POST',
      headers: { ...bearer(ACT), 'content-type': 'application/json' },
      body: `"${'x'.repeat(70 * 1024)}"`,
    });
    assert.equal(big.status, 413);
    assert.equal(((await big.json()) as { error: { code: string } }).error.code, 'too-large');
    const bad = await fetch(url, {
      method: 'POST',
      headers: { ...bearer(ACT), 'content-type': 'application/json' },
      body: '{',
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'bad-request');
  });

  it('unknown paths 404 (JSON under /api/), other methods 405 with Allow, an answer past its deadline 503', async () => {
    assert.equal((await fetch(`${base}/`)).status, 404);
    const nf = await fetch(`${base}/api/nothing`, { headers: bearer(READ) });
    assert.equal(nf.status, 404);
    assert.equal(((await nf.json()) as { error: { code: string } }).error.code, 'not-found');
    const m = await fetch(`${base}/api/status`, { method: 'DELETE', headers: bearer(ACT) });
    assert.equal(m.status, 405);
    assert.equal(m.headers.get('allow'), 'GET');
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const res = await fetch(`${base}/metrics`, { method, body: method === 'DELETE' ? undefined : 'x' });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'GET, HEAD');
    }
    const slow = await fetch(`${base}/api/slow`, { headers: bearer(READ) });
    assert.equal(slow.status, 503);
    assert.equal(((await slow.json()) as { error: { code: string } }).error.code, 'deadline');
  });

  it('/healthz is 503 when the loop is stuck', async () => {
    healthy = false;
    const res = await fetch(`${base}/healthz`);
    healthy = true;
    assert.equal(res.status, 503);
    assert.match(await res.text(), /^stuck/);
  });

  it('auth.metrics: /metrics needs a read token', async () => {
    metricsNeedToken = true;
    try {
      assert.equal((await fetch(`${base}/metrics`)).status, 401);
      assert.equal((await fetch(`${base}/metrics`, { headers: bearer(READ) })).status, 200);
    } finally {
      metricsNeedToken = false;
    }
  });

  it('a wrong token five times is slowed: 429 rate-limited with Retry-After, even for a right token; logged without the token', async () => {
    logged.length = 0;
    const wrong = 'sot_wrong-token-cccccccccccccccccccccccccccccccccccc';
    for (let i = 0; i < 5; i++)
      assert.equal((await fetch(`${base}/api/status`, { headers: bearer(wrong) })).status, 401);
    const limited = await fetch(`${base}/api/status`, { headers: bearer(READ) });
    assert.equal(limited.status, 429);
    assert.equal(((await limited.json()) as { error: { code: string } }).error.code, 'rate-limited');
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    const failures = logged.filter((l) => l.event === 'auth-failed');
    assert.equal(failures.length, 5);
    assert.ok(failures.every((l) => l.fields.address && l.fields.reason === 'unknown token'));
    assert.equal(failures[4].fields.blockedSeconds, 1);
    assert.ok(!JSON.stringify(logged).includes(wrong.slice(4)), 'the token is never logged');
    clock += 2_000;
    assert.equal(
      (await fetch(`${base}/api/status`, { headers: bearer(READ) })).status,
      200,
      'a success after the block clears it',
    );
  });

  it('/api/status from statusBytes (the cached body) is written as is, HEAD without it; status() is not called', async () => {
    const bytes = Buffer.from('{"backends":["cached é"]}\n', 'utf8');
    const cached = new WatchHttpServer(
      {
        metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
        health: () => ({ ok: true, detail: 'ok' }),
        status: () => {
          throw new Error('not called when the bytes are cached');
        },
        statusBytes: () => bytes,
      },
      { tokens: () => book },
    );
    const addr = await cached.listen({ host: '127.0.0.1', port: 0 });
    try {
      const res = await fetch(`http://127.0.0.1:${addr.port}/api/status`, { headers: bearer(READ) });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.equal(res.headers.get('content-length'), String(bytes.length));
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes);
      const head = await fetch(`http://127.0.0.1:${addr.port}/api/status`, { method: 'HEAD', headers: bearer(READ) });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), String(bytes.length));
    } finally {
      await cached.close();
    }
  });

  it('without a tokens file every /api/ path is 401 (closed by default); /healthz stays public', async () => {
    const closed = new WatchHttpServer({
      metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
      health: () => ({ ok: true, detail: 'ok' }),
      status: () => ({ backends: [] }),
    });
    const addr = await closed.listen({ host: '127.0.0.1', port: 0 });
    try {
      const res = await fetch(`http://127.0.0.1:${addr.port}/api/status`, { headers: bearer(READ) });
      assert.equal(res.status, 401);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /no tokens file/);
      assert.equal((await fetch(`http://127.0.0.1:${addr.port}/healthz`)).status, 200);
    } finally {
      await closed.close();
    }
  });

  it('serves HTTPS with a certificate and key (a self-signed one made by openssl now)', async function () {
    this.timeout(30_000);
    const dir = mkdtempSync(path.join(tmpdir(), 'so-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'rsa:2048',
          '-nodes',
          '-days',
          '1',
          '-subj',
          '/CN=127.0.0.1',
          '-addext',
          'subjectAltName=IP:127.0.0.1',
          '-keyout',
          path.join(dir, 'key.pem'),
          '-out',
          path.join(dir, 'cert.pem'),
        ],
        { stdio: 'ignore' },
      );
      const cert = readFileSync(path.join(dir, 'cert.pem'));
      const tls = new WatchHttpServer(
        {
          metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
          health: () => ({ ok: true, detail: 'ok' }),
          status: () => ({ backends: ['tls'] }),
        },
        { tokens: () => book, tls: { cert, key: readFileSync(path.join(dir, 'key.pem')) } },
      );
      const addr = await tls.listen({ host: '127.0.0.1', port: 0 });
      try {
        assert.equal(tls.protocol, 'https');
        const body = await new Promise<string>((resolve, reject) => {
          const req = httpsRequest(
            { host: '127.0.0.1', port: addr.port, path: '/api/status', ca: cert, headers: bearer(READ) },
            (res) => {
              let text = '';
              res.on('data', (c: Buffer) => (text += c.toString()));
              res.on('end', () => resolve(`${res.statusCode} ${text}`));
            },
          );
          req.on('error', reject);
          req.end();
        });
        assert.equal(body, '200 {"backends":["tls"]}\n');
        // Plain HTTP to the TLS port is not answered as HTTP.
        await assert.rejects(fetch(`http://127.0.0.1:${addr.port}/healthz`));
      } finally {
        await tls.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
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
