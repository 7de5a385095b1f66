// The attached daemon's actor (src/core/daemon/daemon-actor.ts) for the prompt acts: a prompt
// document's Send (wake / abort-and-wake with the text), Dispatch (task, model, variant) and the
// models offered (the daemon's /api/providers, only usable ones), against a local fake of the
// daemon's API: the exact request bodies, the outcome mapping (200, 409 with its typed code and
// `instead`), a read token refused before any POST, and the fleet's step count and newest id.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../../../../src/core/clock';
import { parseDaemonConfigs } from '../../../../src/core/config/daemons';
import { AttachedDaemon } from '../../../../src/core/daemon/attached-daemon';
import { DaemonActor } from '../../../../src/core/daemon/daemon-actor';
import { describeRow } from '../../../../src/core/monitor/present';
import type { BackendState } from '../../../../src/core/monitor/types';
import { BACKEND, fleet, HUNG, PROVIDERS, session } from '../../../support/fake-daemon-fleet';
import { waitFor } from '../../../support/wait-for';

const IDLE = session('ses_idle', { verdict: 'idle', headline: 'idle', action: 'wake', state: 'idle' });

describe('core/daemon/daemon-actor: prompt acts of an attached row go to the daemon', () => {
  let server: http.Server;
  let url: string;
  const posts: Array<{ path: string; body: unknown }> = [];
  let answer: (path: string) => [number, unknown];
  const daemons: AttachedDaemon[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const scope = token === 'sot_actor' ? 'act' : token === 'sot_reader' ? 'read' : null;
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      };
      if (!scope) return json(401, { error: { code: 'unauthenticated', message: 'no such token' } });
      if (req.method !== 'GET') {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          posts.push({ path: req.url!, body: body ? JSON.parse(body) : null });
          if (scope !== 'act') return json(403, { error: { code: 'forbidden', message: 'read token' } });
          const [status, a] = answer(req.url!);
          json(status, a);
        });
        return;
      }
      if (req.url === '/api/whoami') return json(200, { name: 'alice', scope });
      if (req.url === '/api/fleet') return json(200, fleet([HUNG, IDLE]));
      if (req.url === '/api/providers') return json(200, PROVIDERS);
      if (req.url === '/api/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
        res.write(': hello\n\n');
        return;
      }
      json(404, { error: { code: 'not-found', message: 'no such path' } });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    posts.length = 0;
    answer = () => [
      200,
      {
        session: 'ses_idle',
        action: 'wake',
        model: 'local/m2',
        sent: true,
        outcome: { outcome: 'confirmed', code: null, message: 'woken on local/m2, confirmed', at: null },
      },
    ];
  });
  afterEach(() => {
    for (const d of daemons.splice(0)) d.stop();
  });

  const rowsOf = (states: readonly BackendState[]) => states.flatMap((b) => b.directories.flatMap((d) => d.rows));

  async function attached(token: string) {
    const config = parseDaemonConfigs([{ url, name: 'ops' }]).daemons[0];
    const d = new AttachedDaemon({
      config,
      token: () => Promise.resolve(token),
      clock: systemClock,
      onChange: () => undefined,
      minBackoffMs: 20,
      maxBackoffMs: 80,
    });
    daemons.push(d);
    d.start();
    await waitFor('the fleet was read', () => rowsOf(d.backends()).length === 2, 10_000, 20);
    const [hung, idle] = rowsOf(d.backends());
    return { actor: new DaemonActor(d), hung, idle };
  }

  it("a prompt document's Send: the text (and the chosen model, when one) in one POST wake / abort-and-wake", async () => {
    const { actor, hung, idle } = await attached('sot_actor');
    const o = await actor.send(idle, { text: 'Carry on with step 3.', model: { providerID: 'local', modelID: 'm2' } });
    await actor.send(hung, { text: 'Start again.', model: null, abortFirst: true });
    assert.deepEqual(posts, [
      {
        path: '/api/sessions/ses_idle/wake',
        body: { backend: BACKEND, prompt: 'Carry on with step 3.', model: 'local/m2' },
      },
      { path: '/api/sessions/ses_hung/abort-and-wake', body: { backend: BACKEND, prompt: 'Start again.' } },
    ]);
    assert.deepEqual(
      [o.action, o.outcome, o.sent, o.model, o.rowKey],
      ['wake', 'confirmed', true, { providerID: 'local', modelID: 'm2' }, idle.key],
    );
    assert.match(o.message, /confirmed \(by daemon ops\)/);
  });

  it('Dispatch: task, model and variant in one POST dispatch; no variant key when none', async () => {
    answer = () => [
      200,
      {
        session: 'ses_idle',
        model: 'local/m1',
        instead: null,
        variant: 'high',
        newSession: false,
        sent: true,
        outcome: { outcome: 'confirmed', code: null, message: 'dispatched on local/m1, started', at: null },
      },
    ];
    const { actor, idle } = await attached('sot_actor');
    const o = await actor.dispatch(idle, {
      task: 'Fix the flaky test.',
      model: { providerID: 'local', modelID: 'm1' },
      variant: 'high',
    });
    await actor.dispatch(idle, { task: 'Write the docs.', model: { providerID: 'local', modelID: 'm2' } });
    assert.deepEqual(posts, [
      {
        path: '/api/sessions/ses_idle/dispatch',
        body: { backend: BACKEND, prompt: 'Fix the flaky test.', model: 'local/m1', variant: 'high' },
      },
      {
        path: '/api/sessions/ses_idle/dispatch',
        body: { backend: BACKEND, prompt: 'Write the docs.', model: 'local/m2' },
      },
    ]);
    assert.deepEqual([o.action, o.outcome, o.sent, o.instead], ['dispatch', 'confirmed', true, null]);
  });

  it("a 409 pre-dispatch refusal: outcome refused with its typed code, nothing sent, and the daemon's `instead` model", async () => {
    answer = () => [
      409,
      {
        error: { code: 'pre-dispatch', message: 'local is quota-marked' },
        session: 'ses_idle',
        model: 'cloud/c1',
        instead: 'local/m1',
        sent: false,
        outcome: { outcome: 'refused', code: 'pre-dispatch', message: 'cloud is quota-marked', rowText: 'refused' },
      },
    ];
    const { actor, idle } = await attached('sot_actor');
    const o = await actor.dispatch(idle, { task: 'Go.', model: { providerID: 'cloud', modelID: 'c1' } });
    assert.deepEqual(
      [o.outcome, o.code, o.sent, o.instead],
      ['refused', 'pre-dispatch', false, { providerID: 'local', modelID: 'm1' }],
    );
    assert.match(o.notice?.text ?? '', /\(daemon ops\)$/);
  });

  it('a read token: Send and Dispatch refuse before any POST', async () => {
    const { actor, idle } = await attached('sot_reader');
    await assert.rejects(actor.send(idle, { text: 'x', model: null }), /may only read.*nothing was sent/);
    await assert.rejects(
      actor.dispatch(idle, { task: 'x', model: { providerID: 'local', modelID: 'm1' } }),
      /may only read.*nothing was sent/,
    );
    await assert.rejects(actor.abort(idle), /may only read/);
    assert.deepEqual(posts, []);
  });

  it("the models offered are the daemon's /api/providers: only a connected, unmarked provider's models", async () => {
    const { actor, idle } = await attached('sot_reader');
    const listing = await actor.providers(idle);
    const offered = listing.providers.flatMap((p) => p.models.map((m) => `${p.id}/${m}`));
    assert.deepEqual(offered, ['local/m1', 'local/m2']);
    assert.deepEqual(listing.connected, ['local', 'cloud']);
    const local = listing.providers.find((p) => p.id === 'local');
    assert.deepEqual([local?.defaultModel, local?.variants], ['m1', { m1: ['high'] }]);
  });

  it('a daemon row shows the step count and newest message id the fleet carries, as a local row shows them', async () => {
    const { hung, idle } = await attached('sot_actor');
    assert.equal(hung.stepCount, 42);
    assert.deepEqual(
      [hung.evidence.latest.newestId, hung.evidence.latest.newestRole, hung.evidence.latest.lastStepAt],
      ['msg_009', 'assistant', 900],
    );
    assert.match(describeRow(hung, Date.now()), /^step 42\b/);
    assert.equal(idle.stepCount, null);
  });
});
