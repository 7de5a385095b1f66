// The API's act routes over a stand-in operator: each act goes to the operator with the watched row,
// is audited with the token's name and answered with the CLI's --json keys and `sent`; a refusal is
// 409 with its typed code; 404 for an unwatched session or a request it is not waiting on; 400 for a
// bad body; a read token's POST is 403 and reaches nothing.
import { strict as assert } from 'node:assert';
import { WatchHttpServer } from '../../../../../src/core/watch/http-server';
import { actRoutes, variantProblem, type ActView } from '../../../../../src/core/watch/api/act';
import type { AuditEntry } from '../../../../../src/core/audit/audit-log';
import { hashToken, TokenBook } from '../../../../../src/core/watch/auth/tokens';
import type { ActionOutcome } from '../../../../../src/core/operations/action-outcome';

const ACT = 'sot_act-routes-test-token-aaaaaaaaaaaaaaaaaaaaaaaa';
const READ = 'sot_act-routes-read-token-bbbbbbbbbbbbbbbbbbbbbbbb';
const KEY = 'http://127.0.0.1:4096/';

const row = {
  key: `${KEY}\u0000/w\u0000ses_1`,
  backendKey: KEY,
  directory: '/w',
  id: 'ses_1',
  title: 'worker',
  badge: 'waiting',
  verdict: null,
  pending: null,
  evidence: {
    earlier: null,
    latest: { at: 1, state: 'idle', stepCount: 1, lastStepAt: 1, newestId: 'm1', newestRole: 'assistant' },
  },
  waiting: {
    kind: 'permission',
    title: 'permission: bash ls',
    requestID: 'per_1',
    detail: { kind: 'permission', tool: 'bash', patterns: [], always: [] },
  },
};

function outcome(fields: Partial<ActionOutcome>): ActionOutcome {
  return {
    action: 'abort',
    rowKey: row.key,
    sessionId: 'ses_1',
    label: 'worker',
    outcome: 'idle',
    rowText: '',
    message: 'aborted, idle',
    automatic: false,
    model: null,
    undelivered: null,
    at: null,
    marks: [],
    instead: null,
    notice: null,
    code: null,
    sent: true,
    ...fields,
  };
}

describe('core/watch/api/act', () => {
  let server: WatchHttpServer;
  let base: string;
  const calls: Array<{ method: string; req: unknown }> = [];
  const audit: AuditEntry[] = [];
  let next: { outcome: ActionOutcome; result: unknown } = { outcome: outcome({}), result: { idle: true, sent: true } };
  const rows: unknown[] = [row];
  const op = (method: string) => (req: unknown) => (calls.push({ method, req }), Promise.resolve(next));
  const view = {
    backends: () => [
      {
        config: { key: KEY, name: 'oc', baseUrl: 'http://127.0.0.1:4096' },
        dialect: 'opencode',
        providers: {
          providers: [
            { id: 'p', name: 'P', connected: true, quota: null, models: ['m', 'n'], variants: { m: ['high', 'low'] } },
          ],
          connected: ['p'],
        },
        directories: [{ directory: '/w', rows }],
      },
    ],
    operator: {
      abort: op('abort'),
      wake: op('wake'),
      send: op('send'),
      recover: op('recover'),
      dispatch: op('dispatch'),
      answer: op('answer'),
      cancelScheduled: () => false,
      wakeTemplate: () => 'wake',
    },
    nameOf: () => 'oc',
    record: (e: AuditEntry) => audit.push(e),
    now: () => Date.UTC(2026, 10, 28),
  } as unknown as ActView;

  const post = (path: string, body: unknown, token = ACT) =>
    fetch(`${base}/api/sessions/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  before(async () => {
    server = new WatchHttpServer(
      {
        metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
        health: () => ({ ok: true, detail: 'ok' }),
        status: () => ({}),
      },
      {
        tokens: () =>
          new TokenBook([
            { name: 'alice', scope: 'act', sha256: hashToken(ACT), createdAt: null },
            { name: 'reader', scope: 'read', sha256: hashToken(READ), createdAt: null },
          ]),
        routes: actRoutes(view),
      },
    );
    base = `http://127.0.0.1:${(await server.listen({ host: '127.0.0.1', port: 0 })).port}`;
  });
  after(() => server.close());
  beforeEach(() => {
    calls.length = 0;
    audit.length = 0;
  });

  it('abort: through the operator with the row, audited as the token, answered with the CLI keys and sent', async () => {
    next = { outcome: outcome({}), result: { idle: true, sent: true } };
    const res = await post('ses_1/abort', { backend: KEY });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.session, 'ses_1');
    assert.equal(body.idle, true);
    assert.equal(body.sent, true);
    assert.deepEqual(
      calls.map((c) => c.method),
      ['abort'],
    );
    assert.equal((calls[0].req as { target: unknown }).target, row);
    assert.deepEqual(
      audit.map((e) => [e.who, e.action, e.sessionId, e.outcome.code]),
      [[{ kind: 'token', name: 'alice' }, 'abort', 'ses_1', 'idle']],
    );
  });

  it('a refusal is 409 with its typed code and the outcome', async () => {
    next = {
      outcome: outcome({ action: 'wake', outcome: 'refused', code: 'stale', sent: false, message: 'moved' }),
      result: null,
    };
    const res = await post('ses_1/wake', {});
    assert.equal(res.status, 409);
    const body = (await res.json()) as { error: { code: string }; sent: boolean; outcome: { outcome: string } };
    assert.equal(body.error.code, 'stale');
    assert.equal(body.sent, false);
    assert.equal(body.outcome.outcome, 'refused');
  });

  it('a prompt text goes out through send with its model; a bad model or both kind and prompt is 400', async () => {
    next = {
      outcome: outcome({ action: 'wake', outcome: 'confirmed' }),
      result: { model: null, aborted: false, confirmed: true, sent: true },
    };
    assert.equal((await post('ses_1/abort-and-wake', { prompt: 'go on', model: 'p/m' })).status, 200);
    assert.deepEqual(calls[0].method, 'send');
    assert.deepEqual((calls[0].req as { model: unknown; abortFirst: boolean }).model, {
      providerID: 'p',
      modelID: 'm',
    });
    assert.equal((calls[0].req as { abortFirst: boolean }).abortFirst, true);
    for (const body of [
      { prompt: 'x', model: 'nomodel' },
      { prompt: 'x', kind: 'wake' },
      { kind: 'quota-wake' },
      { model: 'p/m' },
      { nope: 1 },
      [1],
    ]) {
      const res = await post('ses_1/wake', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'bad-request');
    }
    assert.equal(calls.length, 1, 'nothing else reached the operator');
  });

  it('404 for a session the daemon does not watch and for a request it is not waiting on', async () => {
    const unknown = await post('ses_nope/abort', {});
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as { error: { code: string } }).error.code, 'unknown-session');
    const wrong = await post('ses_1/permissions/per_other', { reply: 'once' });
    assert.equal(wrong.status, 404);
    assert.equal(((await wrong.json()) as { error: { code: string } }).error.code, 'unknown-request');
    assert.equal((await post('ses_1/questions/per_1', { answers: [['a']] })).status, 404);
    assert.equal(calls.length, 0);
  });

  it('a permission answer goes to the operator; a bad reply is 400', async () => {
    next = { outcome: outcome({ action: 'answer', outcome: 'answered' }), result: { outcome: 'answered' } };
    assert.equal((await post('ses_1/permissions/per_1', { reply: 'sometimes' })).status, 400);
    const ok = await post('ses_1/permissions/per_1', { reply: 'once' });
    assert.equal(ok.status, 200);
    assert.deepEqual(
      calls.map((c) => c.req),
      [{ target: row, permission: 'once' }],
    );
    assert.equal(audit[0].action, 'permission');
  });

  it("dispatch: a variant from the model's variant table goes to the operator; an unknown one is 400 before anything", async () => {
    next = {
      outcome: outcome({ action: 'dispatch', outcome: 'confirmed' }),
      result: { model: { providerID: 'p', modelID: 'm' }, instead: null, variant: 'high', sent: true },
    };
    const ok = await post('ses_1/dispatch', { prompt: 'task', model: 'p/m', variant: 'high' });
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { variant: string }).variant, 'high');
    assert.deepEqual(calls[0].req, {
      target: row,
      task: 'task',
      model: { providerID: 'p', modelID: 'm' },
      effort: 'high',
    });
    for (const [body, why] of [
      [{ prompt: 'task', model: 'p/m', variant: 'max' }, /p\/m's variants are high, low/],
      [{ prompt: 'task', model: 'p/n', variant: 'high' }, /no variant table for p\/n/],
      [{ prompt: 'task', model: 'q/m', variant: 'high' }, /no variant table for q\/m/],
      [{ prompt: 'task', model: 'p/m', variant: '' }, /variant must be a non-empty string/],
    ] as const) {
      const res = await post('ses_1/dispatch', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(((await res.json()) as { error: { message: string } }).error.message, why);
    }
    assert.equal(calls.length, 1, 'an unknown variant reached nothing');
    const spec = { ...view.backends()[0], dialect: 'spec' } as Parameters<typeof variantProblem>[0];
    assert.match(variantProblem(spec, { providerID: 'p', modelID: 'm' }, 'high') ?? '', /payload takes no variant/);
    assert.equal(audit.length, 1);
  });

  it('a question is answered or rejected through the operator; both, or reject other than true, is 400', async () => {
    const asking = {
      ...row,
      waiting: {
        kind: 'question',
        title: 'question: which?',
        requestID: 'que_1',
        detail: { kind: 'question', questions: [{ question: 'which?', header: 'h', options: [], multiple: false }] },
      },
    };
    rows[0] = asking;
    try {
      next = { outcome: outcome({ action: 'answer', outcome: 'answered' }), result: { outcome: 'answered' } };
      assert.equal((await post('ses_1/questions/que_1', { reject: true, answers: [['a']] })).status, 400);
      assert.equal((await post('ses_1/questions/que_1', { reject: 'yes' })).status, 400);
      assert.equal(calls.length, 0);
      const rejected = await post('ses_1/questions/que_1', { reject: true });
      assert.equal(rejected.status, 200);
      assert.equal((await post('ses_1/questions/que_1', { answers: [['a']] })).status, 200);
      assert.deepEqual(
        calls.map((c) => c.req),
        [
          { target: asking, rejectQuestion: true },
          { target: asking, question: [['a']] },
        ],
      );
      assert.deepEqual(
        audit.map((e) => e.action),
        ['question', 'question'],
      );
    } finally {
      rows[0] = row;
    }
  });

  it("a read token's POST is 403 and reaches nothing", async () => {
    const res = await post('ses_1/abort', {}, READ);
    assert.equal(res.status, 403);
    assert.equal(calls.length + audit.length, 0);
  });

  it('DELETE retry: 409 no-retry when none is scheduled, audited', async () => {
    const res = await fetch(`${base}/api/sessions/ses_1/retry`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${ACT}` },
    });
    assert.equal(res.status, 409);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'no-retry');
    assert.equal(audit[0].action, 'cancel-retry');
  });
});
