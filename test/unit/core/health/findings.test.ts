// Issue 10, findings 1-6: each test failed on the tree before its fix (see the commit message).
import assert from 'node:assert/strict';
import { QuotaMarkBook } from '../../../../src/core/backend/quota-marks';
import { assessSession } from '../../../../src/core/health/assess';
import { detectQuotaWall } from '../../../../src/core/health/quota-wall';
import { judgeVerdict } from '../../../../src/core/health/verdict';
import { badgeOf } from '../../../../src/core/monitor/sessionMonitor';
import { failure, listing, MIN, msg, pair, provider, sample, SEC, T0 } from './fixtures';

describe('issue 10 findings (decisions a person can trust)', () => {
  it('finding 1: a wall older than a success already seen never marks, whatever the session order', () => {
    let now = 10_000;
    const book = new QuotaMarkBook(() => now);
    // Session B (read first) shows the provider working at 9 000; session A still shows the old wall of 5 000.
    book.observeSuccess('local', 9_000);
    book.record('local', { at: 5_000, resetAt: null, category: 'usage-limit' });
    assert.equal(book.get('local'), null);
    // A newer wall still marks, dated by its message.
    book.record('local', { at: 9_500, resetAt: null, category: 'usage-limit' });
    assert.equal(book.get('local')?.markedAt, 9_500);
    now += 1;
  });

  it('finding 2: a short rate-limit retry is the backend retrying, not a quota wall; the row reads healthy "retrying"', () => {
    const retry = { attempt: 2, message: 'Rate limit reached for requests', next: T0 + 45 * SEC + 5 * SEC };
    const [a, b] = pair({ state: 'generating', newest: msg('m1') }, { retry });
    const v = judgeVerdict(a, b);
    assert.equal(v.verdict, 'healthy');
    assert.match(v.basis, /retrying \(attempt 2, next in 5 s\)/);
    assert.equal(detectQuotaWall(b, v, listing([provider('anthropic')])), null);
    // A long wait is a wall, and so is a retry that names a usage limit.
    const long = sample({ at: T0, retry: { ...retry, next: T0 + 10 * MIN } });
    assert.equal(detectQuotaWall(long, null, null)?.category, 'rate-limit');
    const usage = sample({ at: T0, retry: { ...retry, message: 'Weekly usage limit reached', next: T0 + 3 * SEC } });
    assert.equal(detectQuotaWall(usage, null, null)?.category, 'usage-limit');
  });

  it('finding 3: a mark without a reset time ages out after the configured time', () => {
    let now = 1_000;
    const book = new QuotaMarkBook(() => now, { maxAgeMs: 60 * MIN });
    book.record('p', { at: 1_000, resetAt: null, category: 'usage-limit' });
    now += 59 * MIN;
    assert.ok(book.get('p'));
    now += 2 * MIN;
    assert.equal(book.get('p'), null);
  });

  it('finding 4: a tool running past the ceiling with nothing else moving is hung, unless it waits for a person', () => {
    const tool = { name: 'bash', since: T0 - 46 * MIN };
    const [a, b] = pair({ state: 'generating', newest: msg('m1', { runningTool: tool }) }, {});
    const v = judgeVerdict(a, b, { toolCeilingMs: 30 * MIN });
    assert.equal(v.verdict, 'hung');
    assert.match(v.basis, /tool `bash` running for 47 min, nothing else moved/);
    const short = judgeVerdict(a, b, { toolCeilingMs: 60 * MIN });
    assert.equal(short.verdict, 'healthy');
    const [c, d] = pair(
      { state: 'generating', newest: msg('m1', { runningTool: { ...tool, waitingFor: 'permission' } }) },
      {},
    );
    assert.equal(judgeVerdict(c, d, { toolCeilingMs: 30 * MIN }).verdict, 'healthy');
  });

  it('finding 5: badge and action agree when a session shows both a quota wall and a report', () => {
    const newest = msg('m1', { finish: 'error', failure: failure(), text: 'ticket=T-1 status=done summary="x"' });
    const [a, b] = pair({ state: 'idle', newest }, {});
    const r = assessSession([a, b], listing([provider('anthropic'), provider('openai')]), { now: T0 + MIN });
    assert.equal(r.decision.action, 'recover');
    assert.equal(badgeOf(r), 'quota-wall');
  });

  it('finding 6: a user prompt quoting a report line is no report (only assistant messages carry one)', () => {
    const [a, b] = pair(
      {
        state: 'idle',
        newest: msg('m1', { role: 'user', text: 'like this:\nticket=T-9 status=done summary="quoted"' }),
      },
      {},
    );
    const r = assessSession([a, b], listing([provider('anthropic')]), { now: T0 + MIN });
    assert.equal(r.report, null);
    assert.equal(r.decision.action, 'wake');
  });
});
