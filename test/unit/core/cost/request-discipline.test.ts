// Request discipline of cost at 1,000 sessions (a fake with stock opencode 1.18's observed shapes:
// each listed session carries its own cost and tokens): a sampling round makes no request for
// cost at all. Per round: one session list, one status map, the pending permissions and
// questions, and one newest-message read per session, each with limit=1 (never a transcript,
// never a page of one); every session's figures arrive with the list. Where the list carries no
// totals, the message ledger sums each session's messages after the liveness reads: at most its
// page budget per round (1,000 new sessions are counted over rounds), then only the sessions that
// moved, one small page each (never a whole transcript per round).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BackendClient } from '../../../../src/core/backend/client';
import { MessageLedger } from '../../../../src/core/cost/message-ledger';
import { SpendLedger } from '../../../../src/core/cost/spend-ledger';
import { SampleHistory } from '../../../../src/core/health/sample-history';
import { sampleDirectoryOnce } from '../../../../src/core/health/sample-directory';
import { PagedTranscripts } from '../../../support/paged-transcripts';

const N = 1_000;
const id = (i: number) => `ses_${String(i).padStart(5, '0')}`;

describe('cost: request discipline at 1,000 sessions', () => {
  let server: http.Server;
  let url: string;
  const requests: Array<{ path: string; query: URLSearchParams; bytes: number }> = [];
  let usd = 0.001;

  before(async () => {
    server = http.createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const send = (body: unknown) => {
        const text = JSON.stringify(body);
        requests.push({ path: u.pathname, query: u.searchParams, bytes: Buffer.byteLength(text) });
        res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      };
      if (u.pathname === '/session')
        return send(
          Array.from({ length: N }, (_, i) => ({
            id: id(i),
            title: `t${i}`,
            time: { created: 1, updated: 2 },
            cost: usd * (i + 1),
            tokens: { input: 10 * (i + 1), output: 5 * (i + 1), reasoning: 0, cache: { read: 0, write: 0 } },
          })),
        );
      if (u.pathname === '/session/status') return send({});
      if (u.pathname === '/permission' || u.pathname === '/question') return send([]);
      const m = /^\/session\/(ses_\d+)\/message$/.exec(u.pathname);
      if (m)
        return send([
          {
            info: {
              id: 'msg_1',
              role: 'assistant',
              providerID: 'local',
              modelID: 'm1',
              time: { created: 1, completed: 2 },
              cost: 0.001,
              tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
            },
            parts: [{ type: 'text', text: 'done' }],
          },
        ]);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('a round reads no cost of its own: the list carries every figure; message reads stay limit=1', async () => {
    const client = new BackendClient({ baseUrl: url, connections: 8, timeoutMs: 10_000 });
    const history = new SampleHistory({ spacingMs: 45_000 });
    const ledger = new SpendLedger(() => 'day');
    try {
      for (const round of [1, 2]) {
        requests.length = 0;
        if (round === 2) usd *= 2; // every session spent more
        const sampled = await sampleDirectoryOnce(client, '/w', history);
        assert.ok(sampled);
        assert.equal(sampled.samples.length, N);
        const byPath = new Map<string, number>();
        for (const r of requests) {
          const key = r.path.startsWith('/session/ses_') ? '/session/{id}/message' : r.path;
          byPath.set(key, (byPath.get(key) ?? 0) + 1);
        }
        assert.deepEqual(Object.fromEntries([...byPath].sort()), {
          '/permission': 1,
          '/question': 1,
          '/session': 1,
          '/session/status': 1,
          '/session/{id}/message': N,
        });
        const messageReads = requests.filter((r) => r.path.endsWith('/message'));
        assert.ok(messageReads.every((r) => r.query.get('limit') === '1' && !r.query.has('before')));
        assert.ok(Math.max(...messageReads.map((r) => r.bytes)) < 1_000, 'one small message per read');
        const last = sampled.samples.find((s) => s.session.id === id(N - 1))!;
        assert.equal(last.session.cost?.usd, usd * N);
        assert.equal(last.session.cost?.tokens.input, 10 * N);
        const spent = ledger.observe({ directory: '/w', samples: sampled.samples, listed: null }, round);
        if (round === 1) assert.deepEqual(spent, [], 'the first round is the baseline');
        else assert.ok(Math.abs(spent[0].usd - (0.001 * N * (N + 1)) / 2) < 1e-6, JSON.stringify(spent));
      }
    } finally {
      await client.close();
    }
  });

  // 200 sessions are enough to need four rounds of the 64-page budget (1,000 took 16 rounds and
  // 14 s of the unit layer for the same property).
  describe('a list without totals: the message ledger (200 sessions, a 64-page budget per round)', () => {
    const N = 200;
    let server2: http.Server;
    let url2: string;
    const t = new PagedTranscripts();
    const ids = Array.from({ length: N }, (_, i) => id(i));
    for (const s of ids) for (let k = 0; k < 5; k++) t.turn(s, 1); // 10 messages, 5 assistant
    const log: Array<{ path: string; query: URLSearchParams; bytes: number }> = [];

    before(async () => {
      server2 = http.createServer((req, res) => {
        const u = new URL(req.url ?? '/', 'http://x');
        const send = (body: unknown) => {
          const text = JSON.stringify(body);
          log.push({ path: u.pathname, query: u.searchParams, bytes: Buffer.byteLength(text) });
          res.writeHead(200, { 'content-type': 'application/json' }).end(text);
        };
        if (u.pathname === '/session')
          return send(ids.map((s) => ({ id: s, title: s, time: { created: 1, updated: 2 } })));
        if (u.pathname === '/session/status') return send({});
        if (u.pathname === '/permission' || u.pathname === '/question') return send([]);
        // Anything else (an engine probe such as /api/...) is 404, as on a server without it: left
        // unanswered, the first round waited out the client's 10 s deadline.
        if (!t.handle(req, res, (bytes) => log.push({ path: u.pathname, query: u.searchParams, bytes })))
          res.writeHead(404).end();
      });
      await new Promise<void>((r) => server2.listen(0, '127.0.0.1', () => r()));
      url2 = `http://127.0.0.1:${(server2.address() as AddressInfo).port}/`;
    });
    after(async () => {
      server2.closeAllConnections();
      await new Promise<void>((r) => server2.close(() => r()));
    });

    it('first reads bounded per round (64 pages), then only the sessions that moved, one small page each', async function () {
      this.timeout(60_000); // 5 rounds of 200 liveness reads each
      const client = new BackendClient({ baseUrl: url2, connections: 8, timeoutMs: 10_000 });
      const history = new SampleHistory({ spacingMs: 45_000 });
      const ledger = new MessageLedger();
      const round = async () => {
        log.length = 0;
        const sampled = await sampleDirectoryOnce(client, '/w', history, { ledger });
        assert.ok(sampled);
        assert.equal(sampled.samples.length, N);
        const reads = log.filter((r) => r.path.endsWith('/message'));
        assert.ok(
          reads.every((r) => r.query.has('limit')),
          'never a message read without limit',
        );
        const liveness = reads.filter((r) => r.query.get('limit') === '1' && !r.query.has('before'));
        assert.equal(liveness.length, N, 'one limit=1 read per session, as always');
        return { sampled, pages: reads.filter((r) => !liveness.includes(r)) };
      };
      try {
        let rounds = 0;
        for (;;) {
          rounds++;
          const { sampled, pages } = await round();
          assert.ok(pages.length <= 64, `round ${rounds}: ${pages.length} pages`);
          assert.ok(pages.every((p) => Number(p.query.get('limit')) <= 20));
          for (const s of sampled.samples) {
            if (s.session.costPending) assert.equal(s.session.cost, null, 'not counted: no figure, never 0');
            else assert.equal(s.session.cost?.messages, 5);
          }
          if (sampled.samples.every((s) => !s.session.costPending)) break;
          assert.ok(rounds < 20);
        }
        assert.equal(rounds, Math.ceil(N / 64), 'one page per session (10 messages), 64 per round');
        const quiet = await round();
        assert.equal(quiet.pages.length, 0, 'nothing moved: no cost read at all');

        const movers = ids.slice(0, 10);
        for (const s of movers) t.turn(s, 1, 0.5);
        const moved = await round();
        assert.deepEqual(moved.pages.map((p) => p.path.split('/')[2]).sort(), movers);
        assert.ok(moved.pages.every((p) => p.query.get('limit') === '4' && !p.query.has('before')));
        const pageBytes = Math.max(...moved.pages.map((p) => p.bytes));
        const transcriptBytes = JSON.stringify(t.sessions.get(movers[0])).length;
        assert.ok(
          pageBytes < transcriptBytes / 2,
          `a page (${pageBytes} B) is not the transcript (${transcriptBytes} B)`,
        );
        for (const s of moved.sampled.samples.filter((x) => movers.includes(x.session.id))) {
          assert.equal(s.session.cost?.messages, 6);
          assert.ok(Math.abs(s.session.cost!.usd - t.sum(s.session.id).usd) < 1e-9);
        }
      } finally {
        await client.close();
      }
    });
  });
});
