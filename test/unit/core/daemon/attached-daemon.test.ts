// An attached daemon (sessionOps.daemons) against a local fake of the daemon's API: the fleet and
// providers become the BackendStates the views render (badges, contextValue as for a sampled
// backend, who acted), the event stream keeps them live, and a daemon that cannot be read is one
// error row with the reason, retried with backoff. Only the daemon's /api/ paths are ever asked.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { systemClock } from '../../../../src/core/clock';
import { parseDaemonConfigs } from '../../../../src/core/config/daemons';
import { AttachedDaemon, attachedBackendKey } from '../../../../src/core/daemon/attached-daemon';
import { sessionContextValue } from '../../../../src/core/monitor/context-values';
import type { BackendState, MonitorChange, Transition } from '../../../../src/core/monitor/types';
import { describeRow } from '../../../../src/core/monitor/present';
import { DaemonActor } from '../../../../src/core/daemon/daemon-actor';
import { FleetUnion } from '../../../../src/core/daemon/fleet-union';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { SessionMonitor } from '../../../../src/core/monitor/sessionMonitor';
import { Actors, type SessionActor } from '../../../../src/core/operations/actor';
import { Operator } from '../../../../src/core/operations/operator';
import { operatorDefaults } from '../../../../src/core/settings/operator-settings';
import { sessionRow } from '../../../support/session-rows';
import { evaluateWhen } from '../../../support/when-clause';
import { BACKEND, fleet, HUNG, PROVIDERS, session, WAITING } from '../../../support/fake-daemon-fleet';
import { waitFor } from '../../../support/wait-for';

const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8'));
const itemMenu: Array<{ command: string; when?: string }> = pkg.contributes.menus['view/item/context'];
const menusOf = (viewItem: string) =>
  itemMenu
    .filter((m) => !m.when || evaluateWhen(m.when, { view: 'sessionOps.sessions', viewItem }))
    .map((m) => m.command)
    .filter((c, i, all) => all.indexOf(c) === i)
    .sort();

describe('core/daemon attached daemon (a window attached to session-ops watch)', () => {
  let server: http.Server;
  let url: string;
  const seen: Array<{ path: string; auth: string | undefined }> = [];
  let tokens: Record<string, 'read' | 'act'> = {};
  let streams: http.ServerResponse[] = [];
  let sessions: unknown[] = [];
  const daemons: AttachedDaemon[] = [];
  const posts: Array<{ method: string; path: string; body: unknown }> = [];
  /** What an act answers (the daemon's act body: docs/daemon-api.md). */
  let actAnswer: (path: string) => [number, unknown] = () => [
    200,
    {
      session: 'ses_hung',
      action: 'wake',
      model: { providerID: 'local', modelID: 'm1' },
      sent: true,
      outcome: {
        outcome: 'confirmed',
        code: null,
        message: 'woken on local/m1, confirmed',
        rowText: 'woken on local/m1, confirmed',
        notice: { level: 'info', text: '"title ses_hung": woken on local/m1, confirmed' },
        at: null,
      },
    },
  ];

  before(async () => {
    server = http.createServer((req, res) => {
      seen.push({ path: req.url!, auth: req.headers.authorization });
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      const scope = tokens[token];
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      };
      if (!scope) return json(401, { error: { code: 'unauthenticated', message: 'no such token' } });
      if (req.method !== 'GET') {
        if (scope !== 'act') return json(403, { error: { code: 'forbidden', message: 'read token' } });
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          posts.push({ method: req.method!, path: req.url!, body: body ? JSON.parse(body) : null });
          const [status, answer] = actAnswer(req.url!);
          json(status, answer);
        });
        return;
      }
      switch (req.url) {
        case '/api/whoami':
          return json(200, { name: token === 'sot_reader' ? 'bob' : 'alice', scope });
        case '/api/fleet':
          return json(200, fleet(sessions));
        case '/api/providers':
          return json(200, PROVIDERS);
        case '/api/events':
          res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
          res.write(': hello\n\n');
          streams.push(res);
          return;
        default:
          return json(404, { error: { code: 'not-found', message: 'no such path' } });
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    seen.length = 0;
    posts.length = 0;
    streams = [];
    tokens = { sot_actor: 'act', sot_reader: 'read' };
    sessions = [HUNG, WAITING];
  });
  afterEach(() => {
    for (const d of daemons.splice(0)) d.stop();
    for (const s of streams) s.end();
  });

  function attach(token: () => string | null, daemonUrl = url) {
    const changes: MonitorChange[] = [];
    const transitions: Transition[] = [];
    const config = parseDaemonConfigs([{ url: daemonUrl, name: 'ops' }]).daemons[0];
    const d = new AttachedDaemon({
      config,
      token: () => Promise.resolve(token()),
      clock: systemClock,
      onChange: (c) => changes.push(c),
      onTransition: (t) => transitions.push(t),
      minBackoffMs: 20,
      maxBackoffMs: 80,
    });
    daemons.push(d);
    d.start();
    return { d, changes, transitions };
  }

  const send = (event: string, data: unknown, id: number) => {
    for (const s of streams) s.write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const rowsOf = (states: readonly BackendState[]) => states.flatMap((b) => b.directories.flatMap((d) => d.rows));

  it('shows the fleet as rows with the badges and menus of a sampled backend, and asks only the daemon API', async () => {
    const { d } = attach(() => 'sot_actor');
    await waitFor('the fleet was read', () => rowsOf(d.backends()).length === 2, 10_000, 20);
    const [state] = d.backends();
    assert.equal(state.config.key, attachedBackendKey(parseDaemonConfigs([{ url }]).daemons[0].key, BACKEND));
    assert.equal(state.status, 'ok');
    assert.deepEqual(state.attached?.scope, 'act');
    assert.equal(state.attached?.remoteKey, BACKEND);
    const [hung, waiting] = rowsOf(d.backends());
    assert.equal(hung.badge, 'hung');
    assert.equal(hung.action, 'abort-and-wake');
    assert.equal(waiting.badge, 'waiting');
    assert.equal(waiting.waiting?.requestID, 'per_1');
    assert.deepEqual(waiting.waiting?.detail, { kind: 'permission', tool: 'bash', patterns: ['ls'], always: [] });
    // The same contextValue (and so the same menus) as a sampled row with that verdict and action.
    assert.ok(menusOf(sessionContextValue(hung)).includes('sessionOps.abortAndWake'));
    assert.ok(menusOf(sessionContextValue(waiting)).includes('sessionOps.allowOnce'));
    // Providers from /api/providers, marks kept.
    assert.deepEqual(
      state.providers?.providers.map((p) => [p.id, p.quota?.resetAt ?? null]),
      [
        ['local', null],
        ['cloud', 9_000],
      ],
    );
    assert.equal(state.allFreeAt, 9_000);
    assert.ok(seen.every((s) => s.path.startsWith('/api/') && s.auth === 'Bearer sot_actor'));
  });

  it('keeps the rows live from the event stream: row, removed, outcome (who acted) and alert', async () => {
    const { d, transitions } = attach(() => 'sot_actor');
    await waitFor('attached', () => rowsOf(d.backends()).length === 2 && streams.length === 1, 10_000, 20);
    send(
      'row',
      {
        backend: BACKEND,
        directory: '/srv/work',
        row: session('ses_hung', { verdict: 'idle', headline: 'idle', state: 'idle', action: 'wake' }),
      },
      1,
    );
    await waitFor('the row event applied', () => rowsOf(d.backends())[0].badge === 'idle', 10_000, 20);
    send('row', { backend: BACKEND, directory: '/srv/work', row: session('ses_new') }, 2);
    await waitFor('a new row listed', () => rowsOf(d.backends()).length === 3, 10_000, 20);
    send('removed', { backend: BACKEND, directory: '/srv/work', sessionId: 'ses_new' }, 3);
    await waitFor('the removed row gone', () => rowsOf(d.backends()).length === 2, 10_000, 20);
    send(
      'outcome',
      {
        at: '2026-11-28T01:02:03.000Z',
        who: { kind: 'token', name: 'carol' },
        action: 'wake',
        backend: 'build-box',
        directory: '/srv/work',
        sessionId: 'ses_hung',
        outcome: { code: 'confirmed', message: 'woken', sent: true },
      },
      4,
    );
    await waitFor('who acted is on the row', () => rowsOf(d.backends())[0].actedBy?.by === 'carol', 10_000, 20);
    assert.match(describeRow(rowsOf(d.backends())[0], Date.now()), /wake confirmed by carol/);
    send(
      'alert',
      {
        kind: 'waiting',
        backend: BACKEND,
        backendName: 'build-box',
        directory: '/srv/work',
        sessionId: 'ses_wait',
        title: 'x',
      },
      5,
    );
    await waitFor('the alert became a transition', () => transitions.length === 1, 10_000, 20);
    assert.equal(transitions[0].kind, 'waiting');
    assert.equal(transitions[0].row.id, 'ses_wait');
  });

  it('a read token: the rows carry readOnlySession, which no act menu matches (Copy Session Id only)', async () => {
    const { d } = attach(() => 'sot_reader');
    await waitFor('the fleet was read', () => rowsOf(d.backends()).length === 2, 10_000, 20);
    assert.equal(d.backends()[0].attached?.scope, 'read');
    for (const row of rowsOf(d.backends())) {
      const value = sessionContextValue(row, { readOnly: d.backends()[0].attached?.scope === 'read' });
      assert.match(value, /^sessionOps:readOnlySession\+/);
      assert.deepEqual(menusOf(value), ['sessionOps.copySessionId']);
    }
  });

  it('401 (unknown token): one error row with the reason, retried with backoff; a new token attaches', async () => {
    let token = 'sot_wrong';
    const { d } = attach(() => token);
    await waitFor('the error row', () => d.backends()[0]?.status === 'error', 10_000, 20);
    assert.equal(d.backends().length, 1);
    assert.match(d.backends()[0].error ?? '', /does not know this token \(401\).*retrying in \d+ s/);
    await waitFor('retried', () => seen.filter((s) => s.path === '/api/whoami').length >= 3, 10_000, 20);
    assert.ok(
      seen.every((s) => s.path === '/api/whoami'),
      'nothing but whoami asked with a wrong token',
    );
    token = 'sot_actor';
    d.restart();
    await waitFor('attached after the new token', () => rowsOf(d.backends()).length === 2, 10_000, 20);
  });

  it('no token set: the error row says to set one, and nothing is asked', async () => {
    const { d } = attach(() => null);
    await waitFor('the error row', () => d.backends()[0]?.status === 'error', 10_000, 20);
    assert.match(d.backends()[0].error ?? '', /Set Daemon Token/);
    assert.equal(seen.length, 0);
  });

  it('an unreachable daemon is one error row with the reason', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const { d } = attach(() => 'sot_actor', `http://127.0.0.1:${port}/`);
    await waitFor('the error row', () => d.backends()[0]?.status === 'error', 10_000, 20);
    assert.equal(d.backends().length, 1);
    assert.match(d.backends()[0].error ?? '', /ECONNREFUSED.*retrying in/);
  });

  it('acts through the daemon: the actor for an attached row POSTs to the daemon, a local row gets the local actor', async () => {
    const { d } = attach(() => 'sot_actor');
    await waitFor('the fleet was read', () => rowsOf(d.backends()).length === 2, 10_000, 20);
    const [hung, waiting] = rowsOf(d.backends());
    const local = { who: 'this window' } as unknown as SessionActor;
    const actors = new Actors(local, (row) => (row.backendKey === hung.backendKey ? new DaemonActor(d) : undefined));
    assert.equal(actors.for(sessionRow()).who, 'this window');
    const actor = actors.for(hung);
    assert.equal(actor.who, 'daemon ops');
    const woken = await actor.wake(hung, { abortFirst: true });
    assert.deepEqual(
      [woken.outcome, woken.sent, woken.model, woken.action, woken.rowKey],
      ['confirmed', true, { providerID: 'local', modelID: 'm1' }, 'abort-and-wake', hung.key],
    );
    assert.match(woken.notice?.text ?? '', /woken on local\/m1, confirmed \(daemon ops\)/);
    await actor.answer(waiting, { permission: 'once' });
    await actor.send(hung, { text: 'Go on.', model: { providerID: 'local', modelID: 'm1' } });
    assert.deepEqual(posts, [
      { method: 'POST', path: '/api/sessions/ses_hung/abort-and-wake', body: { backend: BACKEND } },
      { method: 'POST', path: '/api/sessions/ses_wait/permissions/per_1', body: { reply: 'once', backend: BACKEND } },
      {
        method: 'POST',
        path: '/api/sessions/ses_hung/wake',
        body: { backend: BACKEND, prompt: 'Go on.', model: 'local/m1' },
      },
    ]);
  });

  it("a 409 refusal is an outcome with the daemon's typed code (nothing thrown); a read token's act is refused by the daemon", async () => {
    actAnswer = () => [
      409,
      {
        error: { code: 'stale', message: 'the session moved since the decision' },
        session: 'ses_hung',
        sent: false,
        outcome: {
          outcome: 'refused',
          code: 'stale',
          message: 'the session moved since the decision',
          rowText: 'refused',
        },
      },
    ];
    const { d } = attach(() => 'sot_actor');
    await waitFor('the fleet was read', () => rowsOf(d.backends()).length === 2, 10_000, 20);
    const o = await new DaemonActor(d).wake(rowsOf(d.backends())[0], {});
    assert.deepEqual([o.outcome, o.code, o.sent], ['refused', 'stale', false]);
    assert.match(o.message, /moved since the decision/);
    const reader = attach(() => 'sot_reader').d;
    await waitFor('the fleet was read', () => rowsOf(reader.backends()).length === 2, 10_000, 20);
    await assert.rejects(new DaemonActor(reader).abort(rowsOf(reader.backends())[0]), /may only read/);
  });

  it("automatic mode is never given an attached row: the window's operator sees only what it samples", async () => {
    const monitor = new SessionMonitor({
      createClient: () => {
        throw new Error('nothing is sampled');
      },
      getCredentials: () => Promise.resolve(undefined),
      spacingMs: 30_000,
      resetWithinReachMs: 0,
      useEventStream: false,
    });
    const given: SessionRow[][] = [];
    const operatorMonitor = {
      rows: () => {
        const rows = monitor.rows();
        given.push(rows);
        return rows;
      },
      row: (key: string) => monitor.row(key),
      client: (key: string) => monitor.client(key),
      nudge: () => undefined,
      minSpacingMs: () => 50,
      onDidChange: (l: (c: MonitorChange) => void) => monitor.onDidChange(l),
    };
    const settings = {
      ...operatorDefaults(),
      'automatic.abortHung': true,
      'automatic.wakeIdle': true,
      'automatic.recoverQuotaWalls': true,
    };
    const operator = new Operator({ monitor: operatorMonitor, settings, log: () => undefined, inventory: () => [] });
    const started: string[] = [];
    operator.onDidStartAutomatic((action, row) => started.push(`${action} ${row.id}`));
    const config = parseDaemonConfigs([{ url, name: 'ops' }]).daemons[0];
    const fleet = new FleetUnion(monitor, (c, hooks) => {
      const d = new AttachedDaemon({
        config: c,
        token: () => Promise.resolve('sot_actor'),
        clock: systemClock,
        ...hooks,
      });
      daemons.push(d);
      return d;
    });
    try {
      sessions = [HUNG, session('ses_idle', { verdict: 'idle', headline: 'idle', state: 'idle', action: 'wake' })];
      fleet.setActive(true);
      fleet.setDaemons([config]);
      await waitFor('the attached rows', () => fleet.rows().length === 2, 10_000, 20);
      assert.deepEqual(
        fleet.rows().map((r) => r.action),
        ['abort-and-wake', 'wake'],
      );
      operator.considerAutomatic();
      await operator.flush();
      assert.ok(given.length > 0, 'the automatic runner read its rows');
      assert.ok(
        given.every((rows) => rows.length === 0),
        'never an attached row',
      );
      assert.deepEqual(started, []);
      assert.deepEqual(posts, [], 'nothing asked of the daemon');
      assert.equal(fleet.daemonOf(fleet.rows()[0].backendKey)?.config.key, config.key);
    } finally {
      fleet.dispose();
      operator.dispose();
      monitor.dispose();
    }
  });
});

describe('core/config/daemons (sessionOps.daemons)', () => {
  it('normalizes urls, names them, and refuses tokens, credentials and duplicates', () => {
    const { daemons, problems } = parseDaemonConfigs([
      { url: 'http://127.0.0.1:9464', name: 'ops' },
      { url: 'https://ops.example/watch' },
      { url: 'http://127.0.0.1:9464/' },
      { url: 'http://u:p@h/' },
      { url: 'http://h/', token: 'sot_x' },
      'x',
    ]);
    assert.deepEqual(
      daemons.map((d) => [d.key, d.name, d.insecure]),
      [
        ['http://127.0.0.1:9464/', 'ops', false],
        ['https://ops.example/watch/', 'ops.example', false],
      ],
    );
    assert.deepEqual(
      problems.map((p) => p.index),
      [2, 3, 4, 5],
    );
    assert.match(problems[2].message, /unknown key "token"/);
    assert.match(parseDaemonConfigs([{ url: 'http://ops.example/' }]).problems[0].message, /clear-text.*token/);
  });
});
