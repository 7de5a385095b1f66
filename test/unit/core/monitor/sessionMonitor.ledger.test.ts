// The session monitor (the editor's views and `watch`) takes the message ledger's figures on the
// same path as status: against a fake with stock opencode's shapes whose list carries no totals,
// rows show the sum of each session's assistant messages (a sub-agent's toward its parent), say
// "counting" while a session is not summed yet, and follow a session that moved.
import { strict as assert } from 'node:assert';
import { clockReading } from '../../../support/manual-clock';
import { BackendClient } from '../../../../src/core/backend';
import { parseBackendConfigs } from '../../../../src/core/config/backends';
import { costTooltipLine, rowCostText } from '../../../../src/core/cost/present';
import { SessionMonitor } from '../../../../src/core/monitor/sessionMonitor';
import { PagedTranscripts, serveTranscripts, type TranscriptServer } from '../../../support/paged-transcripts';
import { waitFor } from '../../../support/wait-for';

const DIR = '/work/repo';

describe('core/monitor/sessionMonitor: cost from the message ledger', () => {
  const t = new PagedTranscripts();
  const parents = new Map<string, string>();
  let server: TranscriptServer;
  let monitor: SessionMonitor | null = null;

  before(async () => {
    server = await serveTranscripts(t, parents);
  });
  after(async () => {
    monitor?.dispose();
    await server.stop();
  });

  it('rows carry the sums, "counting" until summed, a sub-agent toward its parent, and follow a move', async () => {
    // 40 sessions of 60 messages (3 pages each, 120 pages): more than one round's 64 pages.
    for (let i = 0; i < 40; i++) for (let k = 0; k < 30; k++) t.turn(`ses_${String(i).padStart(2, '0')}`, 1, 0.01);
    t.turn('ses_child', 2, 0.1);
    parents.set('ses_child', 'ses_00');
    let clock = Date.UTC(2026, 10, 25, 10, 0, 0);
    monitor = new SessionMonitor({
      createClient: (config) =>
        new BackendClient({ baseUrl: config.baseUrl, clock: clockReading(() => clock), timeoutMs: 5_000 }),
      getCredentials: async () => undefined,
      spacingMs: 45_000,
      resetWithinReachMs: 2 * 3600_000,
      useEventStream: false,
      clock: clockReading(() => clock),
    });
    monitor.setBackends(parseBackendConfigs([{ baseUrl: server.url, directories: [DIR] }], []).backends);
    const m = monitor;
    const row = (id: string) => m.rows().find((r) => r.id === id)!;

    await m.refresh();
    assert.equal(m.rows().length, 41);
    const pending = m.rows().filter((r) => r.assessment?.costPending);
    assert.ok(pending.length > 0 && pending.length < 41, `${pending.length} rows still counting after one round`);
    for (const r of pending) {
      assert.equal(r.cost, null);
      assert.equal(rowCostText(r), 'counting');
      assert.match(costTooltipLine(r), /not counted yet/);
    }
    for (let i = 0; i < 3 && m.rows().some((r) => r.assessment?.costPending); i++) {
      clock += 45_000;
      await m.refresh();
    }
    assert.ok(m.rows().every((r) => !r.assessment?.costPending));
    const near = (a: number | undefined, b: number) => a !== undefined && Math.abs(a - b) < 1e-9;
    assert.ok(near(row('ses_01').cost?.usd, t.sum('ses_01').usd));
    assert.equal(row('ses_01').cost?.messages, 30);
    assert.ok(near(row('ses_00').cost?.usd, t.sum('ses_00').usd + t.sum('ses_child').usd), 'parent with its sub-agent');
    assert.equal(row('ses_00').cost?.messages, 32);
    assert.equal(rowCostText(row('ses_01')), '$0.3000');

    t.turn('ses_01', 1, 0.5);
    clock += 45_000;
    await m.refresh();
    assert.ok(near(row('ses_01').cost?.usd, t.sum('ses_01').usd));
    assert.equal(row('ses_01').cost?.messages, 31);
  });

  it('the list carries the totals and the event stream runs: moves are counted from it, no page read', async () => {
    const s = new PagedTranscripts();
    const ids = Array.from({ length: 20 }, (_, i) => `ses_${String(i).padStart(2, '0')}`);
    for (const id of ids) s.turn(id, 2);
    const stock = await serveTranscripts(s, new Map(), { listTotals: true });
    const m = new SessionMonitor({
      createClient: (config) => new BackendClient({ baseUrl: config.baseUrl, timeoutMs: 5_000 }),
      getCredentials: async () => undefined,
      spacingMs: 45_000,
      resetWithinReachMs: 2 * 3600_000,
      useEventStream: true,
      nudgeDelayMs: 3_600_000, // rounds here are the test's own refresh() calls
    });
    try {
      m.setBackends(parseBackendConfigs([{ baseUrl: stock.url, directories: [DIR] }], []).backends);
      m.setActive(true);
      const counted = () => ids.every((id) => m.rows().find((r) => r.id === id)?.cost?.messages === s.sum(id).messages);
      await waitFor('the first reads, and the stream open', async () => {
        await m.refresh();
        return counted() && m.backends()[0].eventStream === 'open' && stock.streams() === 1;
      });
      const pagesSince = (at: number) =>
        stock.log.slice(at).filter((r) => r.path.endsWith('/message') && r.query.get('limit') !== '1');
      // A session counted before the stream was open (the first round may be) is read once more.
      const before = stock.log.length;
      for (const id of ids) s.turn(id, 1);
      await m.refresh();
      assert.ok(counted());
      assert.ok(pagesSince(before).length <= ids.length);
      for (let k = 0; k < 2; k++) {
        const at = stock.log.length;
        for (const id of ids) s.turn(id, 1);
        await m.refresh();
        assert.ok(counted(), `move ${k + 1}: every count follows`);
        assert.deepEqual(pagesSince(at), [], `move ${k + 1}: no page read`);
      }
    } finally {
      m.dispose();
      await stock.stop();
    }
  });
});
