// The session monitor at scale (issue 15): event nudges re-sample only the sessions they name,
// a slow backend never overlaps its own rounds, and dispose/setBackends leave no timer, stream or
// client open.
import { strict as assert } from 'node:assert';
import { clockReading } from '../../../support/manual-clock';
import { BackendClient, type SampleRound } from '../../../../src/core/backend';
import type { BackendConfig } from '../../../../src/core/config/backends';
import { parseBackendConfigs } from '../../../../src/core/config/backends';
import type { SessionSnapshot } from '../../../../src/core/model';
import { SessionMonitor } from '../../../../src/core/monitor/sessionMonitor';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const DIR = '/work/repo';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const configs = (urls: string[], directories = [DIR]): BackendConfig[] =>
  parseBackendConfigs(
    urls.map((baseUrl) => ({ baseUrl, directories })),
    [],
  ).backends;

describe('core/monitor/sessionMonitor at scale (issue 15)', () => {
  describe('nudges re-sample only the sessions an event names', () => {
    let server: SpecServer;
    let monitor: SessionMonitor;
    let clock: number;

    beforeEach(async () => {
      server = await startSpecServer();
      clock = Date.UTC(2026, 10, 22, 10, 0, 0);
    });
    afterEach(async () => {
      monitor?.dispose();
      await server.stop();
    });

    function make(): SessionMonitor {
      monitor = new SessionMonitor({
        createClient: (config) =>
          new BackendClient({ baseUrl: config.baseUrl, clock: clockReading(() => clock), timeoutMs: 2_000 }),
        getCredentials: async () => undefined,
        spacingMs: 45_000,
        resetWithinReachMs: 2 * 3600_000,
        useEventStream: false,
        nudgeDelayMs: 5,
        clock: clockReading(() => clock),
      });
      monitor.setBackends(configs([server.url]));
      return monitor;
    }

    const messageReads = () =>
      server.requests.filter((r) => r.method === 'GET' && /\/message$/.test(r.path)).map((r) => r.path.split('/')[2]);
    const settle = async (m: SessionMonitor) => {
      for (let i = 0; i < 100 && (m.stats().timers > 1 || m.stats().samples + m.stats().partialSamples === 0); i++)
        await sleep(5);
      await sleep(50);
    };

    it('an event naming a known session reads the list and that session only, and updates its row', async () => {
      const d = server.directory(DIR);
      const ids = Array.from({ length: 10 }, (_, i) =>
        d.addSession({ state: 'generating', progress: { stepCount: i, lastStepAt: clock }, title: `s${i}` }),
      );
      for (const id of ids) d.addMessage(id, { role: 'assistant', text: 'working' });
      const m = make();
      m.setActive(true);
      await m.refresh();
      assert.equal(m.rows().length, 10);
      server.requests.length = 0;
      const before = m.rows().find((r) => r.id === ids[3])!;
      d.step(ids[3], 5, clock);
      const key = m.backends()[0].config.key;
      m.nudge(key, DIR, ids[3]);
      m.nudge(key, DIR, ids[4]); // coalesced into the same re-sample
      await settle(m);
      assert.deepEqual(messageReads().sort(), [ids[3], ids[4]].sort());
      assert.equal(server.requests.filter((r) => r.path === '/session').length, 1, 'the list is read once');
      const after = m.rows().find((r) => r.id === ids[3])!;
      assert.equal(after.stepCount, (before.stepCount ?? 0) + 5);
      assert.equal(m.rows().length, 10, 'the other rows stay');
      assert.equal(m.stats().partialSamples, 1);
      assert.equal(m.stats().overlaps, 0);
    });

    it('an event without a session, or naming a session not listed yet, samples the whole directory', async () => {
      const d = server.directory(DIR);
      const a = d.addSession({ state: 'idle', title: 'a' });
      const b = d.addSession({ state: 'idle', title: 'b' });
      const m = make();
      m.setActive(true);
      await m.refresh();
      const key = m.backends()[0].config.key;
      server.requests.length = 0;
      m.nudge(key, DIR);
      await settle(m);
      assert.deepEqual(messageReads().sort(), [a, b].sort());
      server.requests.length = 0;
      const c = d.addSession({ state: 'idle', title: 'c' });
      m.nudge(key, DIR, c);
      await settle(m);
      assert.deepEqual(messageReads().sort(), [a, b, c].sort());
      assert.equal(m.rows().length, 3);
    });

    it('a session that appeared since the last whole sample, seen by a partial one, brings a whole sample', async () => {
      const d = server.directory(DIR);
      const a = d.addSession({ state: 'idle', title: 'a' });
      const m = make();
      m.setActive(true);
      await m.refresh();
      const key = m.backends()[0].config.key;
      const c = d.addSession({ state: 'idle', title: 'c' });
      m.nudge(key, DIR, a);
      await settle(m);
      await sleep(50);
      assert.deepEqual(
        m
          .rows()
          .map((r) => r.id)
          .sort(),
        [a, c].sort(),
      );
    });
  });

  describe('rounds, timers and clients', () => {
    /** A client that answers after `delayMs` and counts what it does. */
    class FakeClient {
      static open = 0;
      static created = 0;
      running = 0;
      maxRunning = 0;
      calls: number[] = [];
      ends: number[] = [];
      capabilities = { events: false, sessionStatus: false, quotaObjects: true, progress: true };
      constructor(private readonly delayMs: number) {
        FakeClient.open++;
        FakeClient.created++;
      }
      async sampleRound(directory: string): Promise<SampleRound> {
        this.running++;
        this.maxRunning = Math.max(this.maxRunning, this.running);
        this.calls.push(performance.now());
        await sleep(this.delayMs);
        this.running--;
        this.ends.push(performance.now());
        const session: SessionSnapshot = {
          id: 'ses_1',
          title: 't',
          state: 'idle',
          createdAt: 0,
          updatedAt: 0,
          progress: null,
        } as unknown as SessionSnapshot;
        return {
          directory,
          at: Date.now(),
          dialect: 'spec',
          samples: [{ at: Date.now(), session, newest: null }],
          vanished: [],
          errors: [],
          unreadable: [],
          warnings: [],
          listed: ['ses_1'],
          partial: false,
        };
      }
      async listProviders() {
        return { providers: [], connected: [] };
      }
      async close() {
        FakeClient.open--;
      }
    }

    let monitor: SessionMonitor | undefined;
    afterEach(() => monitor?.dispose());

    function make(delayMs: number, spacingMs: number) {
      const clients: FakeClient[] = [];
      monitor = new SessionMonitor({
        createClient: () => {
          const c = new FakeClient(delayMs);
          clients.push(c);
          return c as unknown as BackendClient;
        },
        getCredentials: async () => undefined,
        spacingMs,
        resetWithinReachMs: 3600_000,
        useEventStream: false,
      });
      return { m: monitor, clients };
    }

    it('a backend slower than the spacing never overlaps its own rounds; the next starts a spacing after the end', async () => {
      const { m, clients } = make(120, 30);
      m.setBackends(configs(['http://127.0.0.1:1/'], [DIR, '/work/other']));
      m.setActive(true);
      // Refresh calls and nudges while rounds run join or queue; they never run beside one.
      const key = m.backends()[0].config.key;
      for (let i = 0; i < 10; i++) {
        void m.refresh();
        m.nudge(key, DIR);
        await sleep(70);
      }
      m.setActive(false);
      await sleep(300);
      const [c] = clients;
      assert.equal(clients.length, 1);
      // Two directories sampled in parallel at most; never the same one twice.
      assert.ok(c.maxRunning <= 2, `at most one sample per directory at a time, ${c.maxRunning} ran together`);
      assert.equal(m.stats().overlaps, 0);
      assert.ok(m.stats().rounds >= 3, `${m.stats().rounds} rounds`);
    });

    it('scheduled rounds start a spacing after the previous one ended', async () => {
      const { m, clients } = make(100, 40);
      m.setBackends(configs(['http://127.0.0.1:1/']));
      m.setActive(true);
      await sleep(800);
      m.setActive(false);
      await sleep(150);
      const [c] = clients;
      assert.ok(c.calls.length >= 3, `${c.calls.length} rounds`);
      assert.equal(c.maxRunning, 1);
      for (let i = 1; i < c.calls.length; i++)
        assert.ok(
          c.calls[i] - c.ends[i - 1] >= 35,
          `round ${i} started ${(c.calls[i] - c.ends[i - 1]).toFixed(0)} ms after the previous ended`,
        );
    });

    it('a slow backend does not delay the schedule of a fast one', async () => {
      const clients: FakeClient[] = [];
      monitor = new SessionMonitor({
        createClient: (config) => {
          const c = new FakeClient(new URL(config.baseUrl).port === '1' ? 400 : 5);
          clients.push(c);
          return c as unknown as BackendClient;
        },
        getCredentials: async () => undefined,
        spacingMs: 40,
        resetWithinReachMs: 3600_000,
        useEventStream: false,
      });
      monitor.setBackends(configs(['http://127.0.0.1:1/', 'http://127.0.0.1:2/']));
      monitor.setActive(true);
      await sleep(500);
      monitor.setActive(false);
      const slow = clients.find((c) => c.calls.length <= 2)!;
      const fast = clients.find((c) => c !== slow)!;
      assert.ok(
        fast.calls.length >= 5,
        `the fast backend sampled ${fast.calls.length} times while the slow one took ${slow.calls.length}`,
      );
    });

    it('dispose and setBackends close every client and clear every timer', async () => {
      FakeClient.open = 0;
      FakeClient.created = 0;
      const { m } = make(20, 30);
      m.setBackends(configs(['http://127.0.0.1:1/', 'http://127.0.0.1:2/', 'http://127.0.0.1:3/']));
      m.setActive(true);
      await sleep(100);
      const key = m.backends()[0].config.key;
      m.nudge(key, DIR);
      assert.ok(m.stats().timers > 0);
      // Replace two backends, keep one: the replaced ones are closed.
      m.setBackends(configs(['http://127.0.0.1:1/', 'http://127.0.0.1:4/']));
      await sleep(250);
      assert.equal(FakeClient.open, m.stats().clients, 'open clients are exactly those the monitor holds');
      assert.ok(
        m.stats().timers <= 2,
        `${m.stats().timers} timers for 2 backends (one schedule each, the nudge fired)`,
      );
      m.dispose();
      await sleep(100);
      assert.equal(FakeClient.open, 0, `${FakeClient.open} of ${FakeClient.created} clients never closed`);
      assert.deepEqual(
        { timers: m.stats().timers, clients: m.stats().clients, streams: m.stats().streams },
        { timers: 0, clients: 0, streams: 0 },
      );
    });
  });
});
