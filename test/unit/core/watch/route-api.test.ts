// The watch daemon's GET /api/route (issue 31 item 7): the same JSON as `session-ops route --json`
// from the routing file the configuration names; 404 without one, 409 ambiguous, 422 an invalid
// table with its diagnostics, 400 a bad query, 414 a URL above the cap; read-only (405 for POST).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runRoute } from '../../../../src/cli/route';
import { parseWatchConfig } from '../../../../src/core/watch/config';
import { MAX_URL_CHARS, WatchHttpServer } from '../../../../src/core/watch/http-server';
import { hashToken, TokenBook } from '../../../../src/core/watch/auth/tokens';

const TOKEN = 'sot_route-api-test-token-aaaaaaaaaaaaaaaaaaaaaaaaa';
const AUTH = { authorization: `Bearer ${TOKEN}` };
import { loadWatchConfig } from '../../../../src/core/watch/load';
import { answerRoute } from '../../../../src/core/watch/route-api';

const complete = readFileSync(path.join(__dirname, '../../../fixtures/routing/valid/complete.routing.yaml'), 'utf8');

describe('core/watch GET /api/route', () => {
  let tmp: string;
  let file: string;
  let routing: string | null;
  let server: WatchHttpServer;
  let base: string;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-route-api-'));
    file = path.join(tmp, 'routing.yaml');
    server = new WatchHttpServer(
      {
        metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
        health: () => ({ ok: true, detail: 'ok' }),
        status: () => ({ backends: [] }),
        route: (q) => answerRoute(routing, q),
      },
      { tokens: () => new TokenBook([{ name: 'ops', scope: 'read', sha256: hashToken(TOKEN), createdAt: null }]) },
    );
    base = `http://127.0.0.1:${(await server.listen({ host: '127.0.0.1', port: 0 })).port}`;
  });
  beforeEach(() => {
    writeFileSync(file, complete);
    routing = file;
  });
  after(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const get = async (query: string) => {
    const res = await fetch(`${base}/api/route${query}`, { headers: AUTH });
    return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as unknown };
  };

  it('answers the same JSON as route --json (labels repeated, highRisk)', async () => {
    const out: string[] = [];
    const io = { stdout: (t: string) => void out.push(t), stderr: () => undefined, env: {}, cwd: () => tmp };
    assert.equal(
      await runRoute(['--routing', file, '--label', 'Area/X', '--label', 'Kind/Bug', '--high-risk', '--json'], io),
      0,
    );
    const r = await get('?label=Area/X&label=Kind/Bug&highRisk=1');
    assert.equal(r.status, 200);
    assert.match(r.type ?? '', /^application\/json/);
    assert.deepEqual(r.body, JSON.parse(out.join('')));
    assert.equal((r.body as { matched: string }).matched, 'Kind/Bug');
    const plain = (await get('?label=Kind%2FEpic')).body as { matched: string; dag: unknown };
    assert.equal(plain.matched, 'Kind/Epic');
    assert.notEqual(plain.dag, null);
  });

  it('ambiguous labels: 409 {"ambiguous": [...]}', async () => {
    assert.deepEqual(await get('?label=Kind/Bug&label=Kind/Refactor'), {
      status: 409,
      type: 'application/json; charset=utf-8',
      body: { ambiguous: ['Kind/Bug', 'Kind/Refactor'] },
    });
  });

  it('an invalid table: 422 with its diagnostics (as validate --json)', async () => {
    writeFileSync(file, 'version: 2\ndefault: {}\nroutes: {}\n');
    const r = await get('?label=Kind/Bug');
    assert.equal(r.status, 422);
    const d = (r.body as { diagnostics: Array<{ file: string; severity: string; line: number }> }).diagnostics;
    assert.ok(
      d.some((x) => x.severity === 'error' && x.file === file && x.line === 1),
      JSON.stringify(d),
    );
  });

  it('no routing table configured: 404 with the reason; an unreadable one: 503', async () => {
    routing = null;
    const r = await get('?label=Kind/Bug');
    assert.equal(r.status, 404);
    assert.match((r.body as { error: string }).error, /names none \(add its routing: key/);
    routing = path.join(tmp, 'missing.yaml');
    assert.equal((await get('?label=Kind/Bug')).status, 503);
  });

  it('a bad query: 400; a URL above the cap: 414; POST: 405; without a route endpoint: 404', async () => {
    assert.equal((await get('')).status, 400);
    assert.equal((await get('?label=')).status, 400);
    assert.equal((await get('?label=Kind/Bug&highRisk=yes')).status, 400);
    assert.equal((await get(`?${Array.from({ length: 65 }, (_, i) => `label=L${i}`).join('&')}`)).status, 400);
    const long = await fetch(`${base}/api/route?label=${'x'.repeat(MAX_URL_CHARS)}`);
    assert.equal(long.status, 414);
    assert.equal((await fetch(`${base}/api/route?label=Kind/Bug`, { method: 'POST', headers: AUTH })).status, 405);
    const bare = new WatchHttpServer({
      metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
      health: () => ({ ok: true, detail: 'ok' }),
      status: () => ({}),
    });
    const port = (await bare.listen({ host: '127.0.0.1', port: 0 })).port;
    try {
      assert.equal((await fetch(`http://127.0.0.1:${port}/api/route?label=Kind/Bug`)).status, 404);
    } finally {
      await bare.close();
    }
  });

  it("the configuration key routing: parsed, and taken from the configuration file's folder", async () => {
    const yaml = 'backends:\n  - baseUrl: http://127.0.0.1:4096\n    directories: [/w]\nrouting: tables/routing.yaml\n';
    assert.equal(parseWatchConfig(yaml).config?.routing, 'tables/routing.yaml');
    assert.equal(parseWatchConfig(yaml.replace(/routing:.*\n/, '')).config?.routing, null);
    assert.ok(parseWatchConfig(yaml.replace('tables/routing.yaml', '""')).problems.some((p) => p.severity === 'error'));
    const conf = path.join(tmp, 'session-ops.yaml');
    writeFileSync(conf, yaml);
    const loaded = await loadWatchConfig(conf, { allowShortSpacing: false, env: {} });
    assert.ok(loaded.ok);
    assert.equal(loaded.loaded.config.routing, path.join(tmp, 'tables', 'routing.yaml'));
  });
});
