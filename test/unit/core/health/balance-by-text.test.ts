// Issue 28 item 4: failures by what the spec names. metadata.reason decides the usage-limit
// categories; a balance failure (HTTP 402 insufficient_quota) has no reason value in the spec,
// only its text, so an error part's text decides that category. A 402 written as the spec's error
// text (no reason) used to read "not a quota wall: wake" and was woken on the unfunded provider;
// now it escalates and is never woken, and `recover` no longer answers "use wake".
import assert from 'node:assert/strict';
import { toMessageSnapshot } from '../../../../src/core/backend/wire/message';
import { classifyFailure, isBalanceText } from '../../../../src/core/failure-category';
import { assessSession } from '../../../../src/core/health/assess';
import { tailProbe } from '../../../../src/core/health/quota-wall';
import { toRow } from '../../../../src/core/monitor/to-row';
import { AutomaticPolicy } from '../../../../src/core/operations/automatic';
import { listing, pair, provider, T0 } from './fixtures';

const specError = (text: string, metadata: Record<string, unknown>) =>
  toMessageSnapshot({
    info: { id: 'msg_2', role: 'assistant', finish: 'error' },
    parts: [{ type: 'text', text, metadata: { error: true, ...metadata } }],
  });

const SPEC_402 = 'generation failed with HTTP 402 insufficient_quota';

describe('failures by what the spec names: a balance failure by its text', () => {
  it("the spec's 402 text with no reason is a balance failure", () => {
    assert.equal(classifyFailure({ text: SPEC_402 }), 'balance');
    const m = specError(SPEC_402, { provider: 'openai' });
    assert.equal(m.failure?.category, 'balance');
    const wall = tailProbe({
      at: T0,
      session: { id: 's', title: null, state: 'idle', retry: null, progress: null, updatedAt: null },
      newest: m,
    });
    assert.equal(wall?.category, 'balance');
    assert.equal(wall?.provider, 'openai');
    assert.equal(wall?.resetAt, null, 'a top-up cures it, not time');
  });

  it('the text names 402 or insufficient_quota in its usual forms; other numbers and words do not', () => {
    for (const t of [
      'HTTP 402 Payment Required',
      'status code: 402',
      'Request failed with status 402',
      '402 Payment Required',
      '{"error":{"code":"insufficient_quota"}}',
      'Your credit balance is too low to access the API',
    ])
      assert.equal(isBalanceText(t), true, t);
    for (const t of ['tool failed at line 402 of parser.ts', 'context window exceeded', 'Aborted'])
      assert.equal(isBalanceText(t), false, t);
  });

  it('a reason in the spec values still decides its category; an unknown reason with 402 text is balance', () => {
    assert.equal(classifyFailure({ reason: 'account_usage_limit', text: SPEC_402 }), 'usage-limit');
    assert.equal(classifyFailure({ reason: 'provider_error', text: SPEC_402 }), 'balance');
    assert.equal(classifyFailure({ reason: 'provider_error', text: 'Weekly usage limit reached' }), null);
  });

  it('the text never makes a usage-limit wall: the field decides those', () => {
    assert.equal(specError('Weekly usage limit reached', { provider: 'anthropic' }).failure?.category, null);
    assert.equal(specError('Rate limited (HTTP 429)', {}).failure?.category, null);
  });

  it('stock opencode: a failure whose message names insufficient_quota without a status is balance', () => {
    const m = toMessageSnapshot({
      info: {
        id: 'msg_3',
        role: 'assistant',
        providerID: 'openai',
        error: { name: 'UnknownError', data: { message: 'insufficient_quota: add credits to continue' } },
      },
      parts: [],
    });
    assert.equal(m.failure?.category, 'balance');
  });

  it('the decision escalates (balance), never wake, with a free provider at hand', () => {
    const newest = specError(SPEC_402, { provider: 'openai' });
    const [a, b] = pair({ state: 'idle', newest }, {});
    const free = listing([provider('openai'), provider('anthropic')]);
    const assessment = assessSession([a, b], free, { now: T0 + 60_000 });
    assert.equal(assessment.quotaWall?.category, 'balance');
    assert.equal(assessment.decision.action, 'escalate');
    assert.equal(assessment.decision.escalation?.reason, 'balance');
    assert.match(assessment.decision.basis, /top up/);
    const row = toRow({
      backendKey: 'b',
      directory: '/w',
      assessment,
      baseline: a,
      latest: b,
      history: [a, b],
      listing: free,
    });
    const everything = { abortHung: true, wakeIdle: true, recoverQuotaWalls: true, abortOverBudget: true };
    assert.equal(new AutomaticPolicy(() => T0).decide(row, everything, { trusted: true, busy: false }), null);
  });
});
