// The API's read routes over a stand-in fleet: whoami, 404 unknown-session for a session the daemon
// does not watch, the audit query's validation and filters, the fleet and providers documents.
import { strict as assert } from 'node:assert';
import { WatchHttpServer } from '../../../../../src/core/watch/http-server';
import { auditQuery, fleetRow, providers, readRoutes, type FleetView } from '../../../../../src/core/watch/api/read';
import type { StatusSession } from '../../../../../src/core/health/status-document';
import type { BackendState } from '../../../../../src/core/monitor/sessionMonitor';
import { idleEvidence, sessionRow } from '../../../../support/session-rows';
import type { AuditQuery } from '../../../../../src/core/audit/audit-log';
import { hashToken, TokenBook } from '../../../../../src/core/watch/auth/tokens';

const TOKEN = 'sot_read-routes-test-token-aaaaaaaaaaaaaaaaaaaaaaa';

describe('core/watch/api/read', () => {
  let server: WatchHttpServer;
  let base: string;
  const queries: AuditQuery[] = [];
  const view: FleetView = {
    backends: () => [],
    status: () => ({ backends: [] }),
    retryOf: () => null,
    audit: (q) => (queries.push(q), Promise.resolve({ entries: [], truncated: false })),
    now: () => 0,
  };
  const get = (p: string) => fetch(`${base}${p}`, { headers: { authorization: `Bearer ${TOKEN}` } });

  before(async () => {
    server = new WatchHttpServer(
      {
        metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
        health: () => ({ ok: true, detail: 'ok' }),
        status: () => view.status(),
      },
      {
        tokens: () => new TokenBook([{ name: 'ops', scope: 'read', sha256: hashToken(TOKEN), createdAt: null }]),
        routes: readRoutes(view),
      },
    );
    base = `http://127.0.0.1:${(await server.listen({ host: '127.0.0.1', port: 0 })).port}`;
  });
  after(() => server.close());

  it('whoami names the token and its scope', async () => {
    assert.deepEqual(await (await get('/api/whoami')).json(), { name: 'ops', scope: 'read' });
  });

  it('a session the daemon does not watch: 404 unknown-session', async () => {
    const res = await get('/api/sessions/ses_nope?backend=http%3A%2F%2Fx%2F');
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unknown-session');
  });

  it('/api/audit: filters passed on, bad ones 400', async () => {
    const res = await get('/api/audit?session=s1&since=2026-01-01T00:00:00Z&limit=5');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { entries: [], truncated: false });
    assert.deepEqual(queries.at(-1), { sessionId: 's1', since: Date.UTC(2026, 0, 1), until: null, limit: 5 });
    for (const q of ['limit=0', 'limit=5000', 'limit=x', 'since=yesterday', 'session=']) {
      const bad = await get(`/api/audit?${q}`);
      assert.equal(bad.status, 400, q);
      assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'bad-request');
    }
    assert.deepEqual(auditQuery(new URLSearchParams()), { sessionId: null, since: null, until: null, limit: 100 });
  });

  it('the fleet and providers documents', async () => {
    assert.deepEqual(await (await get('/api/fleet')).json(), { backends: [] });
    assert.deepEqual(await (await get('/api/providers')).json(), { backends: [] });
  });

  it("a fleet row carries the latest sample's step count, last step and newest message (additive)", () => {
    const row = sessionRow({
      evidence: idleEvidence({ stepCount: 42, lastStepAt: 900, newestId: 'msg_9', newestRole: 'assistant' }),
    });
    const s = fleetRow({ id: 'ses_1' } as StatusSession, row, () => null);
    assert.deepEqual([s.stepCount, s.lastStepAt, s.newestId, s.newestRole], [42, 900, 'msg_9', 'assistant']);
    const none = fleetRow({ id: 'ses_1' } as StatusSession, undefined, () => null);
    assert.deepEqual([none.stepCount, none.newestId], [null, null]);
  });

  it("/api/providers carries each provider's models, default model and variant names, never its options", () => {
    const state = {
      config: { key: 'http://b/', name: 'b' },
      providersError: null,
      allFreeAt: null,
      providers: {
        connected: ['local'],
        providers: [
          {
            id: 'local',
            name: 'Local',
            connected: true,
            quota: null,
            models: ['m1', 'm2'],
            defaultModel: 'm1',
            variants: { m1: ['high'] },
            options: { apiKey: 'sk-never' },
          },
        ],
      },
    } as unknown as BackendState;
    const body = providers({ ...view, backends: () => [state] }) as { backends: Array<{ providers: unknown[] }> };
    assert.deepEqual(body.backends[0].providers, [
      {
        id: 'local',
        connected: true,
        quota: null,
        name: 'Local',
        category: null,
        models: ['m1', 'm2'],
        defaultModel: 'm1',
        variants: { m1: ['high'] },
      },
    ]);
    assert.ok(!JSON.stringify(body).includes('sk-never'));
  });
});
