// The event stream: events reach every client with monotonic ids, nothing is serialised without a
// client, a client that does not read is dropped once its buffer passes the bound (memory stays
// bounded), at most maxClients streams, keep-alive comments; a client reconnecting with
// Last-Event-ID gets the events it missed from the bounded ring, or one `reset` when they are not
// all kept (older than the ring, another run, a change built for nobody).
import { strict as assert } from 'node:assert';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { EventHub } from '../../../../../src/core/watch/api/events';
import { ManualClock } from '../../../../support/manual-clock';

describe('core/watch/api/events', () => {
  let hub: EventHub;
  let server: http.Server;
  let port: number;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock(1_000_000);
    hub = new EventHub({
      maxClients: 3,
      maxBufferedBytes: 64 * 1024,
      keepAliveMs: 50,
      firstId: 1,
      replayEvents: 4,
      replayMs: 60_000,
      clock,
    });
    server = http.createServer((req, res) => hub.attach(req, res, 'test'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    hub.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  async function reader(lastEventId?: string): Promise<{ text: () => string; close: () => void }> {
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      headers: lastEventId ? { 'last-event-id': lastEventId } : {},
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    let text = '';
    const r = res.body!.getReader();
    const ctl = new AbortController();
    void (async () => {
      for (;;) {
        const { value, done } = await r.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        text += Buffer.from(value!).toString();
        if (ctl.signal.aborted) return;
      }
    })();
    return { text: () => text, close: () => (ctl.abort(), void r.cancel().catch(() => undefined)) };
  }

  const until = async (check: () => boolean) => {
    const end = Date.now() + 3_000;
    while (!check()) {
      if (Date.now() > end) throw new Error('not in time');
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it('publishes to every client, ids monotonic, one write per batch; keep-alive comments', async () => {
    const a = await reader();
    const b = await reader();
    await until(() => hub.size === 2);
    hub.publish([
      { event: 'row', data: { n: 1 } },
      { event: 'alert', data: { kind: 'hung' } },
    ]);
    for (const c of [a, b]) await until(() => c.text().includes('event: alert'));
    assert.match(a.text(), /id: 1\nevent: row\ndata: \{"n":1\}\n\nid: 2\nevent: alert\ndata: \{"kind":"hung"\}\n\n/);
    clock.advance(50);
    await until(() => a.text().includes(': keep-alive'));
    a.close();
    b.close();
    await until(() => hub.size === 0);
  });

  it('a client that does not read is dropped when its buffer passes the bound; the others go on', async () => {
    const fast = await reader();
    // A raw socket that sends the request and never reads.
    const slow = net.connect(port, '127.0.0.1');
    slow.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    slow.pause();
    await until(() => hub.size === 2);
    const big = 'x'.repeat(16 * 1024);
    for (let i = 0; i < 400 && hub.dropped === 0; i++) {
      hub.publish([{ event: 'row', data: big }]);
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(hub.dropped, 1, 'the slow client was dropped');
    await until(() => hub.size === 1);
    hub.publish([{ event: 'outcome', data: 'after' }]);
    await until(() => fast.text().includes('"after"'));
    fast.close();
    slow.destroy();
  });

  it('at most maxClients streams: the next is 503', async () => {
    const rs = [await reader(), await reader(), await reader()];
    await until(() => hub.size === 3);
    const res = await fetch(`http://127.0.0.1:${port}/`);
    assert.equal(res.status, 503);
    for (const r of rs) r.close();
  });

  it('each batch is serialised and encoded once: every client is written the same Buffer', async () => {
    const written: unknown[] = [];
    server.removeAllListeners('request');
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const write = res.write.bind(res) as (chunk: unknown) => boolean;
      (res as unknown as { write: (chunk: unknown) => boolean }).write = (chunk: unknown) => {
        if (Buffer.isBuffer(chunk) && chunk.includes('event: row')) written.push(chunk);
        return write(chunk);
      };
      hub.attach(req, res, 'test');
    });
    const readers = [await reader(), await reader(), await reader()];
    await until(() => hub.size === 3);
    const stringify = JSON.stringify;
    let calls = 0;
    JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => (
      calls++,
      stringify(...args)
    )) as typeof JSON.stringify;
    try {
      hub.publish([{ event: 'row', data: { n: 1 } }]);
    } finally {
      JSON.stringify = stringify;
    }
    assert.equal(calls, 1);
    assert.equal(written.length, 3);
    assert.ok(written.every((w) => w === written[0]));
    await until(() => readers.every((r) => r.text().includes('data: {"n":1}')));
    readers.forEach((r) => r.close());
  });

  it('nothing is serialised without a client', () => {
    let called = false;
    hub.publish([{ event: 'row', data: { toJSON: () => ((called = true), 1) } }]);
    assert.equal(called, false);
  });

  const ids = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

  it('Last-Event-ID: the events after it are replayed at once, in order; the newest id: nothing', async () => {
    const a = await reader();
    await until(() => hub.size === 1);
    hub.publish([1, 2, 3].map((n) => ({ event: 'row' as const, data: { n } })));
    await until(() => a.text().includes('"n":3'));
    const b = await reader('1');
    await until(() => b.text().includes('"n":3'));
    assert.deepEqual(ids(b.text()), [2, 3]);
    assert.match(b.text(), /id: 2\nevent: row\ndata: \{"n":2\}\n\nid: 3\nevent: row/);
    const c = await reader('3');
    hub.publish([{ event: 'alert', data: { kind: 'stuck' } }]);
    await until(() => c.text().includes('stuck'));
    assert.deepEqual(ids(c.text()), [4], 'nothing replayed: it had seen the newest');
    assert.ok(!c.text().includes('event: reset'));
    for (const r of [a, b, c]) r.close();
  });

  it('a reset when the events after Last-Event-ID are not all kept: older than the ring, another run, a change built for nobody', async () => {
    const a = await reader();
    await until(() => hub.size === 1);
    hub.publish([1, 2, 3, 4, 5, 6].map((n) => ({ event: 'row' as const, data: { n } })));
    // The ring keeps the last 4 (3..6): from 2 on is whole, from 1 on is not.
    const whole = await reader('2');
    await until(() => whole.text().includes('"n":6'));
    assert.deepEqual(ids(whole.text()), [3, 4, 5, 6]);
    const old = await reader('1');
    await until(() => old.text().includes('event: reset'));
    assert.match(old.text(), /id: 6\nevent: reset\ndata: \{"reason":"the events after it are no longer kept"\}/);
    old.close();
    whole.close();
    const future = await reader('999999');
    await until(() => future.text().includes('event: reset'));
    assert.match(future.text(), /not of this run/);
    future.close();
    a.close();
    await until(() => hub.size === 0);
    // Within the replay window after the last client left, events are still built and kept ...
    assert.equal(hub.wanted, true);
    hub.publish([{ event: 'row', data: { n: 7 } }]);
    const back = await reader('6');
    await until(() => back.text().includes('"n":7'));
    assert.deepEqual(ids(back.text()), [7]);
    back.close();
    await until(() => hub.size === 0);
    // ... after it nothing is built: a client that comes back is told to read the fleet again.
    clock.advance(60_001);
    assert.equal(hub.wanted, false);
    let built = false;
    hub.publish([{ event: 'row', data: { toJSON: () => ((built = true), 1) } }]);
    assert.equal(built, false);
    const late = await reader('7');
    await until(() => late.text().includes('event: reset'));
    assert.match(
      late.text(),
      /id: 7\nevent: reset\ndata: \{"reason":"changes were not kept while no client was connected"\}/,
    );
    late.close();
  });

  it('the ring is bounded by age too', async () => {
    const a = await reader();
    await until(() => hub.size === 1);
    hub.publish([{ event: 'row', data: { n: 1 } }]);
    clock.advance(30_000);
    hub.publish([{ event: 'row', data: { n: 2 } }]);
    clock.advance(30_001);
    const b = await reader('1');
    await until(() => b.text().includes('"n":2'));
    assert.deepEqual(ids(b.text()), [2]);
    const c = await reader('0');
    await until(() => c.text().includes('event: reset'));
    for (const r of [a, b, c]) r.close();
  });

  it('the default first id is the start time in ms times 1000 (monotonic across restarts)', () => {
    const h = new EventHub({ clock: new ManualClock(1_764_290_000_000) });
    try {
      assert.equal((h as unknown as { nextId: number }).nextId, 1_764_290_000_000_000);
      assert.ok(Number.isSafeInteger((h as unknown as { nextId: number }).nextId * 2));
    } finally {
      h.close();
    }
  });
});
