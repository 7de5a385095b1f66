// `session-ops status` where the list carries no totals and the messages carry figures (stock
// opencode's shapes): the message ledger sums them within the run, at most its page budget per
// sample, so in a large directory some sessions are still counting: "costPending": true with cost
// null (never 0) and "counting" in the table; the summed ones carry usd, tokens and messages.
import { clockReading } from '../../support/manual-clock';
import assert from 'node:assert/strict';
import { runStatus } from '../../../src/cli/status';
import { EXIT } from '../../../src/cli/exit-codes';
import type { StatusDocument } from '../../../src/core/health/status-document';
import { PagedTranscripts, serveTranscripts, type TranscriptServer } from '../../support/paged-transcripts';

const DIR = '/work/cost';

describe('status: cost summed from the messages (the message ledger)', () => {
  let server: TranscriptServer;
  const t = new PagedTranscripts();
  let clock = 1_800_000_000_000;
  const run = async (...extra: string[]) => {
    const out = { stdout: '', stderr: '' };
    const code = await runStatus(['--base-url', server.url, '--directory', DIR, ...extra], {
      stdout: (x: string) => void (out.stdout += x),
      stderr: (x: string) => void (out.stderr += x),
      env: {},
      clock: { ...clockReading(() => clock), sleep: async (ms: number) => void (clock += ms) },
    });
    return { code, ...out };
  };

  before(async () => {
    // 200 sessions of one page each: more than two samples' budget (2 x 64 pages).
    for (let i = 0; i < 200; i++) for (let k = 0; k < 3; k++) t.turn(`ses_${String(i).padStart(3, '0')}`, 1, 0.01);
    server = await serveTranscripts(t);
  });
  after(async () => server.stop());

  it('--json: summed sessions carry usd, tokens and messages; the rest costPending with cost null', async () => {
    const r = await run('--json');
    assert.equal(r.code, EXIT.done, r.stderr);
    const doc = JSON.parse(r.stdout) as StatusDocument;
    assert.equal(doc.sessions.length, 200);
    const summed = doc.sessions.filter((s) => !s.costPending);
    const counting = doc.sessions.filter((s) => s.costPending);
    assert.equal(summed.length, 128, 'two samples of 64 pages');
    for (const s of counting) assert.equal(s.cost, null);
    for (const s of summed) {
      assert.ok(Math.abs(s.cost!.usd - 0.03) < 1e-9);
      assert.deepEqual(s.cost!.tokens, { input: 30, output: 15, reasoning: 0, cacheRead: 0, cacheWrite: 0 });
      assert.equal(s.cost!.messages, 3);
    }
    assert.ok(Math.abs(doc.cost!.usd - 128 * 0.03) < 1e-9, 'the total covers the summed sessions');
    const pages = server.log.filter((x) => x.path.endsWith('/message') && x.query.get('limit') !== '1');
    assert.equal(pages.length, 128);
  });

  it('the table says "counting" on a row not summed yet and how many are still counting', async () => {
    const r = await run();
    assert.equal(r.code, EXIT.done, r.stderr);
    assert.match(r.stdout, / counting\s*$/m);
    assert.match(r.stdout, /Cost {6}\$\d+\.\d+ \(local \$\d+\.\d+\); 72 sessions still counting/);
  });
});
