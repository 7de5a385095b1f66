// The WatchDaemon's own wiring (no backend answers here: the one configured refuses): stored
// quota marks reach the monitor's book and what it holds is saved back at stop; action outcome labels.
import { clockReading } from '../../../support/manual-clock';
import { strict as assert } from 'node:assert';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { QuotaMarkBook } from '../../../../src/core/backend/quota-marks';
import { parseWatchConfig } from '../../../../src/core/watch/config';
import { actionOutcomeLabel, WatchDaemon } from '../../../../src/core/watch/daemon';
import { fleet } from '../../../../src/core/watch/api/read';
import type { ActionOutcome } from '../../../../src/core/operations/action-outcome';

function daemonWith(
  openMarks: (
    baseUrl: string,
  ) => Promise<{ book: QuotaMarkBook; warning: string | null; save: () => Promise<string | null> }>,
) {
  const parsed = parseWatchConfig(
    'backends:\n  - { name: a, baseUrl: "http://127.0.0.1:1", directories: [/w] }\nsampleSpacingSeconds: 30\n',
  );
  const lines: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  const daemon = new WatchDaemon({
    loaded: { config: parsed.config!, credentials: new Map(), warnings: [] },
    log: (_level, event, fields) => lines.push({ event, fields }),
    allowShortSpacing: false,
    processMetrics: false,
    env: { SESSION_OPS_STATE_DIR: '' },
    openMarks,
  });
  return { daemon, lines };
}

/** Polls `check` until it holds (a refused loopback connection answers within milliseconds). */
async function waitUntil(check: () => Promise<boolean>, withinMs = 5_000): Promise<void> {
  const until = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('the condition did not hold in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('core/watch/daemon', () => {
  it('stored quota marks are merged into the monitor and saved back at stop', async () => {
    const stored = new QuotaMarkBook();
    stored.record('anthropic', { at: Date.now() - 1_000, resetAt: Date.now() + 3_600_000, category: 'usage-limit' });
    const opened: string[] = [];
    let saves = 0;
    const { daemon, lines } = daemonWith(async (baseUrl) => {
      opened.push(baseUrl);
      return { book: stored, warning: 'old file unreadable', save: async () => (saves++, null) };
    });
    await daemon.start();
    const client = await daemon.monitor.client('http://127.0.0.1:1/');
    assert.deepEqual(
      client.marks.list().map((m) => m.provider),
      ['anthropic'],
    );
    client.marks.record('openai', { at: Date.now(), resetAt: null, category: 'rate-limit' });
    await daemon.stop(0);
    assert.deepEqual(opened, ['http://127.0.0.1:1']);
    assert.equal(saves, 1);
    assert.deepEqual(
      stored
        .list()
        .map((m) => m.provider)
        .sort(),
      ['anthropic', 'openai'],
    );
    assert.ok(lines.some((l) => l.event === 'quota-marks' && l.fields?.message === 'old file unreadable'));
    assert.equal(daemon.health().ok, false, 'a stopped daemon is not healthy');
  });

  it('/api/status and /api/fleet bytes: the documents as JSON, built once per round (the same bytes until a round commits)', async () => {
    const { daemon } = daemonWith(async () => ({
      book: new QuotaMarkBook(),
      warning: null,
      save: async () => null,
    }));
    await daemon.start();
    try {
      await waitUntil(async () => daemon.monitor.backends()[0]?.status === 'error');
      const view = daemon.fleetView();
      const status = daemon.statusBytes();
      const fleetBytes = view.fleetBytes!();
      assert.equal(status.toString('utf8'), `${JSON.stringify(daemon.status())}\n`);
      assert.equal(fleetBytes.toString('utf8'), `${JSON.stringify(fleet(view))}\n`);
      assert.equal(daemon.statusBytes(), status, 'no round committed: the same bytes');
      assert.equal(view.fleetBytes!(), fleetBytes);
      // A round commits (its time moves): the next request is built anew.
      daemon.monitor.backends()[0].lastRoundAt = 1_234_567;
      assert.notEqual(daemon.statusBytes(), status);
      assert.match(daemon.statusBytes().toString(), /"lastRoundAt":1234567/);
      assert.match(view.fleetBytes!().toString(), /"lastRoundAt":1234567/);
    } finally {
      await daemon.stop(0);
    }
  });

  it('/healthz turns 503 when no sampling round started for longer than a round can take', () => {
    let now = 1_000_000;
    const parsed = parseWatchConfig('backends:\n  - { name: a, baseUrl: "http://127.0.0.1:1", directories: [/w] }\n');
    const daemon = new WatchDaemon({
      loaded: { config: parsed.config!, credentials: new Map(), warnings: [] },
      log: () => undefined,
      allowShortSpacing: false,
      processMetrics: false,
      env: { SESSION_OPS_STATE_DIR: '' },
      clock: clockReading(() => now),
    });
    assert.deepEqual(daemon.health(), { ok: true, detail: 'ok' });
    assert.equal(daemon.stuckAfterMs(), 2 * 45_000 + 2 * 15_000 + 5_000);
    now += daemon.stuckAfterMs() + 1_000;
    const h = daemon.health();
    assert.equal(h.ok, false);
    assert.match(h.detail, /^stuck: no sampling round started for 126 s$/);
  });

  it('a reload that removes a backend removes its series from /metrics; its request settling late is not counted', async () => {
    // "gone" accepts connections and never answers: its request is in flight when the reload comes.
    const sockets: Socket[] = [];
    let closed = 0;
    const hanging = http.createServer(() => undefined);
    hanging.on('connection', (s) => (sockets.push(s), s.on('close', () => closed++)));
    await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
    const gone = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
    const config = (more: string) =>
      parseWatchConfig(
        `backends:\n  - { name: a, baseUrl: "http://127.0.0.1:1", directories: [/w] }\n${more}sampleSpacingSeconds: 30\n`,
      ).config!;
    const daemon = new WatchDaemon({
      loaded: {
        config: config(`  - { name: gone, baseUrl: "${gone}", directories: [/w] }\n`),
        credentials: new Map(),
        warnings: [],
      },
      log: () => undefined,
      allowShortSpacing: false,
      processMetrics: false,
      env: { SESSION_OPS_STATE_DIR: '' },
    });
    await daemon.start();
    try {
      const scrape = async () => (await daemon.metrics.render(false)).body;
      const refusedA = /session_ops_requests_total\{backend="a",[^}]*outcome="refused"\} [1-9]/;
      await waitUntil(async () => refusedA.test(await scrape()) && sockets.length > 0);
      const before = await scrape();
      assert.match(
        before,
        /session_ops_actions_total\{backend="gone",action="abort",outcome="failed",trigger="automatic"\} 0/,
      );
      assert.match(before, /session_ops_backend_up\{backend="gone"\} 0/);
      await daemon.reload({ config: config(''), credentials: new Map(), warnings: [] });
      // The in-flight request of "gone" is abandoned (its connection closed) and settles as failed.
      await waitUntil(async () => closed === sockets.length);
      await new Promise((r) => setTimeout(r, 50));
      const after = await scrape();
      assert.doesNotMatch(after, /backend="gone"/);
      assert.match(after, refusedA);
      assert.match(
        after,
        /session_ops_actions_total\{backend="a",action="abort",outcome="failed",trigger="automatic"\} 0/,
      );
    } finally {
      await daemon.stop(0);
      hanging.closeAllConnections();
      await new Promise((r) => hanging.close(r));
    }
  });

  it('action outcomes map onto the metric labels done / refused / failed / scheduled / escalated / stale', () => {
    const o = (outcome: ActionOutcome['outcome'], message = '', code: ActionOutcome['code'] = null) =>
      ({ outcome, message, code }) as ActionOutcome;
    assert.equal(actionOutcomeLabel(o('confirmed')), 'done');
    assert.equal(actionOutcomeLabel(o('idle')), 'done');
    assert.equal(actionOutcomeLabel(o('not-confirmed')), 'failed');
    assert.equal(actionOutcomeLabel(o('failed')), 'failed');
    assert.equal(actionOutcomeLabel(o('scheduled')), 'scheduled');
    assert.equal(actionOutcomeLabel(o('escalated')), 'escalated');
    assert.equal(actionOutcomeLabel(o('refused', 'not idle', 'not-idle')), 'refused');
    assert.equal(actionOutcomeLabel(o('refused', 'the session moved since the decision: x', 'stale')), 'stale');
    assert.equal(actionOutcomeLabel(o('busy', 'not started: wake is already running', 'busy')), 'refused');
  });

  it('the label comes from the refusal code, not its text: a reworded refusal keeps its label', () => {
    const o = (message: string, code: ActionOutcome['code']) =>
      ({ outcome: 'refused', message, code }) as ActionOutcome;
    assert.equal(actionOutcomeLabel(o('refused, nothing sent: someone else spoke first', 'stale')), 'stale');
    assert.equal(actionOutcomeLabel(o('', 'stale')), 'stale');
    // Text that reads like a stale refusal but is another one (a fact baseline's lost part names a stale worldview).
    assert.equal(
      actionOutcomeLabel(o('the worldview is stale: the session moved since the decision', 'compose-failed')),
      'refused',
    );
    assert.equal(actionOutcomeLabel(o('stale', null)), 'refused');
  });
});
