import assert from 'node:assert/strict';
import {
  categoryFromReason,
  categoryFromText,
  classifyFailure,
  QUOTA_REASONS,
  reasonForCategory,
} from '../../../../src/core/health/failure-category';

describe('failure categories (spec Errors table)', () => {
  it('maps the four metadata.reason values', () => {
    assert.deepEqual(
      QUOTA_REASONS.map((r) => classifyFailure({ reason: r })),
      ['rate-limit', 'free-tier', 'usage-limit', 'rate-limit'],
    );
  });

  it('a reason counts only when it is one of the four values or the balance family', () => {
    assert.equal(categoryFromReason('weekly_usage_limit'), null);
    assert.equal(categoryFromReason('plan-usage-limit'), null);
    assert.equal(categoryFromReason('free_quota_exhausted'), null);
    assert.equal(categoryFromReason('context_overflow'), null);
    assert.equal(categoryFromReason('insufficient_balance'), 'balance');
  });

  it('an unknown reason is not a quota wall, even with alarming text', () => {
    assert.equal(classifyFailure({ reason: 'tool_error', text: 'rate limit of the linter exceeded' }), null);
  });

  it('balance: HTTP 402 or insufficient_quota, and it wins over a 429 status; the failure text names it (issue 28)', () => {
    assert.equal(classifyFailure({ statusCode: 402, text: 'Payment required' }), 'balance');
    assert.equal(classifyFailure({ statusCode: 429, text: '{"error":{"code":"insufficient_quota"}}' }), 'balance');
    assert.equal(classifyFailure({ text: 'generation failed with HTTP 402 insufficient_quota' }), 'balance');
    assert.equal(classifyFailure({ reason: 'insufficient_quota' }), 'balance');
  });

  it('HTTP 429 is a rate limit unless the text says usage or free limit', () => {
    assert.equal(classifyFailure({ statusCode: 429, text: 'Too many requests' }), 'rate-limit');
    assert.equal(
      classifyFailure({ statusCode: 429, text: 'Weekly usage limit reached, resets Monday' }),
      'usage-limit',
    );
    assert.equal(classifyFailure({ statusCode: 429, text: 'Free tier limit reached' }), 'free-tier');
  });

  it('text alone counts only when asked (e.g. a retry status message)', () => {
    assert.equal(classifyFailure({ text: 'Rate limit reached' }), null);
    assert.equal(classifyFailure({ text: 'Rate limit reached' }, { textAlone: true }), 'rate-limit');
    assert.equal(categoryFromText('Provider is overloaded'), null);
    assert.equal(categoryFromText('account usage limit reached; try again after 5pm'), 'usage-limit');
  });

  it('other failures are no quota wall: a 500, an aborted turn, a tool error', () => {
    assert.equal(classifyFailure({ statusCode: 500, text: 'Internal server error' }), null);
    assert.equal(classifyFailure({ text: 'Aborted' }), null);
  });

  it('reasonForCategory gives the spec value per category', () => {
    assert.equal(reasonForCategory('balance'), 'insufficient_quota');
    assert.equal(reasonForCategory('rate-limit'), 'rate_limit');
  });
});
