// The session monitor against the spec-dialect test server (real HTTP, the real client), with a
// controlled clock so that "two samples 30 s apart" takes no wall time.
import { strict as assert } from 'node:assert';
import { clockReading } from '../../../support/manual-clock';
import { BackendClient, QuotaMarkBook } from '../../../../src/core/backend';
import type { BackendConfig } from '../../../../src/core/config/backends';
import { parseBackendConfigs } from '../../../../src/core/config/backends';
import { ROWS_PER_SLICE, SessionMonitor, type Transition } from '../../../../src/core/monitor/sessionMonitor';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

describe('core/monitor/sessionMonitor (spec-dialect server)', () => {
  let server: SpecServer;
  let clock: number;
  let monitor: SessionMonitor;
  const DIR = '/work/repo';

  beforeEach(async () => {
    server = await startSpecServer();
    clock = Date.UTC(2026, 10, 22, 10, 0, 0);
    server.setProviders([{ id: 'anthropic' }, { id: 'openai' }], ['anthropic', 'openai']);
  });

  afterEach(async () => {
    monitor?.dispose();
    await server.stop();
  });

  function makeMonitor(
    urls: string[],
    client: { maxSessionsPerRound?: number } = {},
    nextTurn?: () => Promise<void>,
  ): SessionMonitor {
    const { backends } = parseBackendConfigs(
      urls.map((baseUrl) => ({ baseUrl, directories: [DIR] })),
      [],
    );
    monitor = new SessionMonitor({
      createClient: (config) =>
        new BackendClient({ baseUrl: config.baseUrl, clock: clockReading(() => clock), timeoutMs: 2_000, ...client }),
      getCredentials: async () => undefined,
      spacingMs: 45_000,
      resetWithinReachMs: 2 * 3600_000,
      useEventStream: false,
      clock: clockReading(() => clock),
      nextTurn,
    });
    monitor.setBackends(backends);
    return monitor;
  }

  it('says on the directory when more sessions are listed than sampled per round, and clears it when they fit again', async () => {
    const d = server.directory(DIR);
    const ids = [1, 2, 3, 4, 5].map((i) => d.addSession({ state: 'idle', title: `s${i}` }));
    makeMonitor([server.url], { maxSessionsPerRound: 3 });
    const changes: Array<{ structural: string[] }> = [];
    monitor.onDidChange((c) => changes.push(c));
    await monitor.refresh();
    const dir = () => monitor.backends()[0].directories[0];
    assert.deepEqual(dir().truncated, { listed: 5, kept: 3 });
    assert.equal(dir().rows.length, 3);
    d.removeSession(ids[0]);
    d.removeSession(ids[1]);
    changes.length = 0;
    clock += 45_000;
    await monitor.refresh();
    assert.equal(dir().truncated, null);
    assert.equal(dir().rows.length, 3);
    assert.ok(
      changes.some((c) => c.structural.length > 0),
      'the directory re-renders when its truncation clears',
    );
  });

  it('builds the rows of a large directory over several turns of the event loop, with the same rows, order and transitions', async () => {
    const d = server.directory(DIR);
    const n = 2 * ROWS_PER_SLICE + 20;
    const ids = Array.from({ length: n }, (_, i) => {
      const id = d.addSession({
        state: 'generating',
        progress: { stepCount: 10, lastStepAt: clock - 1000 },
        title: `s${i}`,
      });
      d.addMessage(id, { role: 'assistant', text: `working ${i}` });
      return id;
    });
    let turns = 0;
    const m = makeMonitor([server.url], {}, () => {
      turns++;
      return new Promise((resolve) => setImmediate(resolve));
    });
    const transitions: Transition[] = [];
    m.onTransition((t) => transitions.push(t));
    const changes: number[] = [];
    m.onDidChange((c) => changes.push(c.rows.length));
    await m.refresh();
    turns = 0;
    clock += 45_000;
    for (const id of ids.filter((_, i) => i % 2 === 0)) d.step(id, 1, clock);
    changes.length = 0;
    await m.refresh();
    assert.equal(turns, 2, 'three slices of rows, a turn apart');
    const rows = m.rows();
    assert.deepEqual(
      rows.map((r) => r.id),
      ids,
      'list order',
    );
    assert.deepEqual(
      rows.map((r) => r.badge),
      ids.map((_, i) => (i % 2 === 0 ? 'healthy' : 'hung')),
    );
    assert.equal(transitions.filter((t) => t.kind === 'hung').length, n / 2, 'each hung session told once');
    assert.deepEqual(changes, [n], 'one change for the directory, with every row');
  });

  it('gives no verdict on one sample, then healthy when steps grow 45 s later', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 3, lastStepAt: clock }, title: 'worker' });
    d.addMessage(id, { role: 'assistant', text: 'working' });
    const m = makeMonitor([server.url]);
    await m.refresh();
    let [row] = m.rows();
    assert.equal(row.badge, 'unknown');
    assert.equal(row.verdict, null);
    assert.match(row.pending ?? '', /one sample/);
    clock += 45_000;
    d.step(id, 4, clock);
    await m.refresh();
    [row] = m.rows();
    assert.equal(row.badge, 'healthy');
    assert.equal(row.action, 'leave-alone');
    assert.equal(row.stepCount, 7);
    assert.equal(row.evidence.earlier?.stepCount, 3);
    assert.equal(row.title, 'worker');
  });

  it('each row says when the read behind its latest sample began (readFrom), also on a row kept from the round before', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'resting' });
    d.addMessage(id, { role: 'assistant', text: 'done for now' });
    const m = makeMonitor([server.url]);
    const reads: number[] = [];
    for (let round = 0; round < 3; round++) {
      clock += 45_000;
      reads.push(clock);
      await m.refresh();
    }
    const [row] = m.rows();
    assert.equal(row.id, id);
    assert.equal(row.evidence.latest.readFrom, reads[2], "the third round's read, stamped on the kept row");
    assert.equal(row.evidence.earlier?.readFrom, reads[1]);
  });

  it('calls a frozen generating session hung only on the second sample, and signals the transition once', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 9, lastStepAt: clock - 1000 } });
    d.addMessage(id, { role: 'assistant', text: 'thinking' });
    const m = makeMonitor([server.url]);
    const transitions: Transition[] = [];
    m.onTransition((t) => transitions.push(t));
    await m.refresh();
    assert.equal(m.rows()[0].badge, 'unknown');
    clock += 10_000; // a nudge-like early sample: still no verdict (under 30 s)
    await m.refresh();
    assert.equal(m.rows()[0].badge, 'unknown');
    clock += 35_000;
    await m.refresh();
    assert.equal(m.rows()[0].badge, 'hung');
    assert.equal(m.rows()[0].action, 'abort-and-wake');
    clock += 45_000;
    await m.refresh();
    assert.deepEqual(
      transitions.map((t) => t.kind),
      ['hung'],
    );
    assert.equal(server.aborts.length, 0, 'the monitor never aborts on its own');
  });

  it('shows a completion report and a quota wall from the first sample, with the providers', async () => {
    const d = server.directory(DIR);
    const a = d.addSession({ state: 'idle' });
    d.addMessage(a, { role: 'assistant', text: 'ticket=T-7 status=done pr=#12 summary="parser fixed"' });
    const b = d.addSession({ state: 'idle' });
    d.addMessage(b, {
      role: 'assistant',
      finish: 'error',
      error: { text: 'weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    server.setQuota('anthropic', { markedAt: clock - 60_000, resetAt: clock + 3600_000 });
    const m = makeMonitor([server.url]);
    await m.refresh();
    const rows = new Map(m.rows().map((r) => [r.id, r]));
    assert.equal(rows.get(a)!.badge, 'report-done');
    assert.equal(rows.get(a)!.report?.ticket, 'T-7');
    assert.equal(rows.get(b)!.badge, 'quota-wall');
    assert.equal(rows.get(b)!.quotaWall?.provider, 'anthropic');
    assert.equal(rows.get(b)!.failureText, 'weekly usage limit reached');
    const backend = m.backends()[0];
    assert.equal(backend.status, 'ok');
    assert.equal(backend.dialect, 'spec');
    assert.deepEqual(backend.providers?.connected, ['anthropic', 'openai']);
    assert.equal(backend.allFreeAt, clock + 3600_000);
  });

  it('keeps working backends when another cannot be read', async () => {
    const d = server.directory(DIR);
    d.addSession({ state: 'idle' });
    const m = makeMonitor([server.url, 'http://127.0.0.1:9']);
    await m.refresh();
    const [ok, bad] = m.backends();
    assert.equal(ok.status, 'ok');
    assert.equal(ok.directories[0].rows.length, 1);
    assert.equal(bad.status, 'error');
    assert.match(bad.error ?? '', /refused|connect/i);
  });

  it('reads the newest message with limit=1 and sends directory on every request', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { role: 'user', text: 'hello' });
    const m = makeMonitor([server.url]);
    await m.refresh();
    assert.ok(server.requests.length >= 3);
    for (const r of server.requests) assert.equal(r.query.directory, DIR, `${r.method} ${r.path}`);
    const messageReads = server.requests.filter((r) => r.path.endsWith('/message'));
    assert.ok(messageReads.length > 0);
    for (const r of messageReads) assert.equal(r.query.limit, '1');
  });

  describe('lifetime and history (issue 9)', () => {
    const configs = (urls: string[]): BackendConfig[] =>
      parseBackendConfigs(
        urls.map((baseUrl) => ({ baseUrl, directories: [DIR] })),
        [],
      ).backends;

    /** A monitor whose clients are tracked, with credentials that resolve when the test says. */
    function tracked() {
      const created: BackendClient[] = [];
      const closed = new Set<BackendClient>();
      const marksSeen: QuotaMarkBook[] = [];
      let release: () => void = () => undefined;
      let gate: Promise<void> = Promise.resolve();
      const hold = () => (gate = new Promise<void>((r) => (release = r)));
      const m = new SessionMonitor({
        createClient: (config, _credentials, marks) => {
          marksSeen.push(marks);
          const c = new BackendClient({
            baseUrl: config.baseUrl,
            clock: clockReading(() => clock),
            timeoutMs: 2_000,
            marks,
          });
          const close = c.close.bind(c);
          c.close = async () => {
            closed.add(c);
            await close();
          };
          created.push(c);
          return c;
        },
        getCredentials: async () => {
          await gate;
          return undefined;
        },
        spacingMs: 45_000,
        resetWithinReachMs: 2 * 3600_000,
        useEventStream: false,
        nudgeDelayMs: 0,
        clock: clockReading(() => clock),
      });
      monitor = m;
      return { m, created, closed, marksSeen, hold, release: () => release() };
    }

    it('a sample still reading credentials when setBackends replaces its backend creates no client', async () => {
      server.directory(DIR).addSession({ state: 'idle' });
      const t = tracked();
      t.hold();
      t.m.setBackends(configs([server.url]));
      const round = t.m.refresh();
      t.m.setBackends(configs([`${server.url}other/`]));
      t.release();
      await round;
      await t.m.refresh();
      t.m.dispose();
      assert.ok(
        t.created.every((c) => t.closed.has(c)),
        `${t.created.length - t.closed.size} client(s) never closed`,
      );
      assert.ok(
        t.created.every((c) => c.baseUrl.endsWith('/other/')),
        'no client for the replaced backend',
      );
    });

    it('a nudge re-sample queued behind an in-flight sample does not revive a runtime replaced by resetClient', async () => {
      const d = server.directory(DIR);
      d.addSession({ state: 'idle' });
      const t = tracked();
      t.m.setBackends(configs([server.url]));
      t.m.setActive(true);
      await t.m.refresh();
      const key = t.m.backends()[0].config.key;
      server.fault({ path: /\/message$/, delayMs: 150, times: 1 });
      const inFlight = t.m.refresh();
      t.m.nudge(key, DIR);
      await new Promise((r) => setTimeout(r, 20)); // the nudge fires and queues behind the sample
      t.m.resetClient(key);
      await inFlight;
      await new Promise((r) => setTimeout(r, 200));
      t.m.dispose();
      assert.ok(
        t.created.every((c) => t.closed.has(c)),
        `${t.created.length - t.closed.size} client(s) never closed`,
      );
    });

    it('quota marks survive a credentials change: the new client gets the same mark book', async () => {
      server.directory(DIR).addSession({ state: 'idle' });
      const t = tracked();
      t.m.setBackends(configs([server.url]));
      await t.m.refresh();
      t.marksSeen[0].record('local', { at: clock, resetAt: null, category: 'usage-limit' });
      t.m.resetClient(t.m.backends()[0].config.key);
      await t.m.refresh();
      assert.equal(t.created.length, 2);
      assert.equal(t.marksSeen[1], t.marksSeen[0]);
      assert.equal(t.created[1].marks.get('local')?.category, 'usage-limit');
    });

    it('after an hour without sampling (views hidden) the next verdict waits for a fresh pair', async () => {
      const d = server.directory(DIR);
      const id = d.addSession({ state: 'generating', progress: { stepCount: 1, lastStepAt: clock } });
      d.addMessage(id, { text: 'working' });
      const m = makeMonitor([server.url]);
      await m.refresh();
      clock += 3600_000;
      d.step(id, 1, clock);
      await m.refresh();
      assert.equal(m.rows()[0].badge, 'unknown', 'never compared with an hour-old sample');
      assert.match(m.rows()[0].pending ?? '', /one sample/);
      clock += 45_000;
      d.step(id, 1, clock);
      await m.refresh();
      assert.equal(m.rows()[0].badge, 'healthy');
    });

    it('issue 10 finding 8: a session whose newest message cannot be read is an unknown row with the reason', async () => {
      const d = server.directory(DIR);
      const ok = d.addSession({ state: 'idle' });
      const bad = d.addSession({ state: 'generating' });
      d.addMessage(bad, { text: 'working' });
      server.fault({ path: new RegExp(`^/session/${bad}/message$`), status: 500, body: 'boom', times: Infinity });
      const m = makeMonitor([server.url]);
      await m.refresh();
      clock += 45_000;
      await m.refresh();
      const rows = new Map(m.rows().map((r) => [r.id, r]));
      assert.equal(rows.get(ok)?.badge, 'idle');
      const row = rows.get(bad)!;
      assert.ok(row, 'the unreadable session has a row');
      assert.deepEqual([row.badge, row.verdict, row.action], ['unknown', null, null]);
      assert.match(row.unreadable ?? '', /500|server/i);
      assert.match(row.pending ?? '', /could not be read/);
    });
  });
});
