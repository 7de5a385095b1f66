// An attached daemon's event-stream changes go out in batches (src/core/daemon/change-coalescer.ts):
// a daemon round's burst of `row` events is one change for the views, as a sampled round is. The
// second part runs a real AttachedDaemon against a fake daemon whose stream sends such a burst:
// before the coalescing the window handed on one change per event (40 for 40).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../../../../src/core/clock';
import { parseDaemonConfigs } from '../../../../src/core/config/daemons';
import { AttachedDaemon } from '../../../../src/core/daemon/attached-daemon';
import { ChangeCoalescer } from '../../../../src/core/daemon/change-coalescer';
import type { MonitorChange } from '../../../../src/core/monitor/types';
import { ManualClock } from '../../../support/manual-clock';
import { sessionRow } from '../../../support/session-rows';
import { BACKEND, fleet, HUNG, PROVIDERS, session, WAITING } from '../../../support/fake-daemon-fleet';
import { waitFor } from '../../../support/wait-for';

describe('core/daemon/change-coalescer (event-stream changes in batches)', () => {
  const setup = (ms: number) => {
    const clock = new ManualClock(0);
    const out: MonitorChange[] = [];
    return { clock, out, c: new ChangeCoalescer(clock, ms, (x) => out.push(x)) };
  };
  const row = (id: string, title: string) => ({ ...sessionRow({ id, backendKey: 'b' }), title });

  it('the changes of one interval go out as one: each row once, in its newest state, and the backends whose rows came or went', () => {
    const { clock, out, c } = setup(50);
    c.row(row('a', 'a1'));
    c.row(row('b', 'b1'));
    c.row(row('a', 'a2'));
    c.backend('b');
    clock.advance(49);
    assert.equal(out.length, 0);
    clock.advance(1);
    assert.equal(out.length, 1);
    assert.deepEqual(
      out[0].rows.map((r) => [r.id, r.title]),
      [
        ['a', 'a2'],
        ['b', 'b1'],
      ],
    );
    assert.deepEqual(out[0].structural, ['b']);
    assert.equal(out[0].providers, false);
    c.row(row('c', 'c1'));
    clock.advance(50);
    assert.equal(out.length, 2, 'a later change starts a new interval');
  });

  it('a removed row is not handed on (its backend is); drop() forgets what is pending; 0 hands on each change at once', () => {
    const { clock, out, c } = setup(50);
    const gone = row('a', 'a1');
    c.row(gone);
    c.removed('b', gone.directory, 'a');
    clock.advance(50);
    assert.deepEqual(
      out.map((x) => [x.rows.length, x.structural]),
      [[0, ['b']]],
    );
    c.row(row('x', 'x1'));
    c.drop();
    clock.advance(100);
    assert.equal(out.length, 1);
    const now = setup(0);
    now.c.row(row('a', 'a1'));
    now.c.row(row('a', 'a2'));
    assert.equal(now.out.length, 2);
  });
});

describe('an attached daemon hands a burst of row events on as one change', () => {
  let server: http.Server;
  let url: string;
  const streams: http.ServerResponse[] = [];
  const daemons: AttachedDaemon[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const json = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      };
      if (req.url === '/api/whoami') return json({ name: 'alice', scope: 'act' });
      if (req.url === '/api/fleet') return json(fleet([HUNG, WAITING]));
      if (req.url === '/api/providers') return json(PROVIDERS);
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
      res.write(': hello\n\n');
      streams.push(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  afterEach(() => {
    for (const d of daemons.splice(0)) d.stop();
    for (const s of streams.splice(0)) s.end();
  });

  const attach = (coalesceMs?: number) => {
    const changes: MonitorChange[] = [];
    const d = new AttachedDaemon({
      config: parseDaemonConfigs([{ url, name: 'ops' }]).daemons[0],
      token: () => Promise.resolve('sot_actor'),
      clock: systemClock,
      onChange: (c) => changes.push(c),
      ...(coalesceMs === undefined ? {} : { coalesceMs }),
    });
    daemons.push(d);
    d.start();
    return { d, changes };
  };
  const rows = (d: AttachedDaemon) => d.backends().flatMap((b) => b.directories.flatMap((x) => x.rows));
  /** A daemon round's burst: `count` row events in one write, alternating over the two sessions. */
  const burst = (count: number) => {
    let payload = '';
    for (let i = 0; i < count; i++) {
      const row =
        i % 2 === 0
          ? session('ses_hung', { verdict: 'idle', headline: 'idle', state: 'idle', action: 'wake', title: `t${i}` })
          : session('ses_wait', { title: `w${i}` });
      payload += `id: ${i + 10}\nevent: row\ndata: ${JSON.stringify({ backend: BACKEND, directory: '/srv/work', row })}\n\n`;
    }
    for (const s of streams) s.write(payload);
  };

  it('40 row events: at most two changes, with every changed row in its last state (one change per event before)', async () => {
    const { d, changes } = attach();
    await waitFor('attached', () => rows(d).length === 2 && streams.length === 1, 10_000, 20);
    const before = changes.length;
    burst(40);
    await waitFor('the burst applied', () => rows(d)[0].title === 't38', 10_000, 5);
    await waitFor('the change handed on', () => changes.length > before, 10_000, 5);
    await new Promise((r) => setTimeout(r, 150));
    const after = changes.slice(before);
    assert.ok(after.length <= 2, `${after.length} changes for one burst of 40 events`);
    const handed = new Map(after.flatMap((c) => c.rows.map((r) => [r.id, r.title] as const)));
    assert.deepEqual([...handed].sort(), [
      ['ses_hung', 't38'],
      ['ses_wait', 'w39'],
    ]);
    assert.ok(after.every((c) => c.structural.length === 0 && !c.providers));
  });

  it('coalesceMs 0: one change per event (the bench compares the two)', async () => {
    const { d, changes } = attach(0);
    await waitFor('attached', () => rows(d).length === 2 && streams.length === 1, 10_000, 20);
    const before = changes.length;
    burst(10);
    await waitFor('ten changes', () => changes.length - before === 10, 10_000, 5);
  });
});
