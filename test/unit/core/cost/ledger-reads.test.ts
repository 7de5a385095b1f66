// The message ledger's reads per round at 1,000 moving sessions on a backend whose list carries
// each session's cost and tokens (stock opencode 1.18): there the ledger exists only to count
// assistant messages. A session is read once, when first seen; afterwards its new messages are
// counted from the event stream the monitor reads anyway (`message.updated` announces each one),
// so a round in which every session moved makes no page read at all. Whenever the stream was not
// open the whole time since a session was counted (it broke off, it never ran), the ledger reads
// that session's newer pages as before. Measured by the server: every request it answered.
import assert from 'node:assert/strict';
import { ActivityCounter } from '../../../../src/core/backend/activity';
import { BackendClient } from '../../../../src/core/backend/client';
import { readEventStream, type EventStreamState } from '../../../../src/core/backend/events';
import { MessageLedger } from '../../../../src/core/cost/message-ledger';
import { SampleHistory } from '../../../../src/core/health/sample-history';
import { sampleDirectoryOnce } from '../../../../src/core/health/sample-directory';
import { PagedTranscripts, serveTranscripts, type TranscriptServer } from '../../../support/paged-transcripts';
import { waitFor } from '../../../support/wait-for';

const N = 1_000;
const id = (i: number) => `ses_${String(i).padStart(5, '0')}`;

describe('cost/message-ledger: reads per round at 1,000 moving sessions (list totals)', function () {
  this.timeout(60_000);
  const t = new PagedTranscripts();
  const ids = Array.from({ length: N }, (_, i) => id(i));
  for (const s of ids) t.turn(s, 1);
  let server: TranscriptServer;
  let client: BackendClient;
  let stream: AbortController;
  const counter = new ActivityCounter();
  let announced = 0;
  let state: EventStreamState = 'connecting';
  // No page budget in the way: what the ledger must read is what it reads (the default budget of
  // 64 pages per round only spreads the same reads over more rounds).
  const ledger = new MessageLedger({ pagesPerRound: 2 * N, concurrency: 8 });
  const history = new SampleHistory({ spacingMs: 45_000 });

  before(async () => {
    server = await serveTranscripts(t, new Map(), { listTotals: true });
    client = new BackendClient({ baseUrl: server.url, connections: 8, timeoutMs: 10_000 });
    stream = new AbortController();
    void readEventStream(client.transport, {
      directory: '/w',
      signal: stream.signal,
      minBackoffMs: 50,
      onEvent: (e) => {
        counter.onEvent(e);
        if (e.type === 'message.updated') announced++;
      },
      onState: (s) => {
        state = s;
        counter.onStreamState(s);
      },
    });
    await waitFor('the event stream open', () => state === 'open' && server.streams() === 1, 10_000);
  });
  after(async () => {
    stream?.abort();
    await client?.close();
    await server?.stop();
  });

  /** One sampling round with the ledger: the pages it read (every message read but the limit=1 ones). */
  async function round(): Promise<{ pages: number; requests: number; counts: Map<string, number | null> }> {
    server.log.length = 0;
    const sampled = await sampleDirectoryOnce(client, '/w', history, { ledger, activity: counter });
    assert.ok(sampled);
    assert.equal(sampled.samples.length, N);
    const reads = server.log.filter((r) => r.path.endsWith('/message'));
    const liveness = reads.filter((r) => r.query.get('limit') === '1' && !r.query.has('before'));
    assert.equal(liveness.length, N, 'one limit=1 read per session, as always');
    const counts = new Map(sampled.samples.map((s) => [s.session.id, s.session.cost?.messages ?? null]));
    for (const s of sampled.samples) {
      assert.ok(s.session.cost, 'the list carries every figure');
      assert.ok(Math.abs(s.session.cost.usd - t.sum(s.session.id).usd) < 1e-9);
    }
    const requests = server.log.filter((r) => r.path !== '/event').length;
    return { pages: reads.length - liveness.length, requests, counts };
  }

  /** Every session takes a turn (one user, one assistant message); resolves once the stream announced them. */
  async function everyoneMoves(): Promise<void> {
    const want = announced + 2 * N;
    for (const s of ids) t.turn(s, 1);
    await waitFor('the turns announced', () => announced >= want, 10_000);
  }

  const assertCounted = (counts: Map<string, number | null>) => {
    const wrong = ids.filter((s) => counts.get(s) !== t.sum(s).messages);
    assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} sessions miscounted`);
  };

  it('first sight: each session read once (one page each)', async () => {
    const first = await round();
    assert.equal(first.pages, N);
    assertCounted(first.counts);
  });

  it('every session moved, the stream open throughout: no page read; every count right', async () => {
    for (let k = 0; k < 2; k++) {
      await everyoneMoves();
      const moved = await round();
      assert.equal(moved.pages, 0, `round ${k + 1}: ${moved.pages} pages read to count messages the stream announced`);
      // The list, the status map, the pending permissions and questions, one limit=1 read per session.
      assert.equal(moved.requests, N + 4);
      assertCounted(moved.counts);
    }
  });

  it('the stream broke off meanwhile: the moved sessions are read again (one small page each), then events count again', async () => {
    server.breakStreams();
    await waitFor('the stream reopened', () => state === 'open' && server.streams() === 1, 10_000);
    await everyoneMoves();
    const after = await round();
    assert.equal(after.pages, N, 'what happened while the stream was down is read');
    assert.equal(after.requests, 2 * N + 4);
    assertCounted(after.counts);
    await everyoneMoves();
    const next = await round();
    assert.equal(next.pages, 0, 'counted from events again');
    assertCounted(next.counts);
  });
});
