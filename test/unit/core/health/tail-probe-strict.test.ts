// The tail probe counts a usage-limit wall only when metadata.reason is one of the spec's four
// values (or the balance family); a balance failure, which the spec names only by its text, is
// read from the error part's text (issue 28). Stock opencode's structured APIError
// statusCode keeps deciding for that dialect.
import assert from 'node:assert/strict';
import { toMessageSnapshot } from '../../../../src/core/backend/wire/message';
import { categoryFromReason, classifyFailure } from '../../../../src/core/failure-category';
import { tailProbe } from '../../../../src/core/health/quota-wall';
import { sample } from './fixtures';

const specError = (text: string, metadata: Record<string, unknown>) =>
  toMessageSnapshot({
    info: { id: 'msg_2', role: 'assistant', finish: 'error' },
    parts: [{ type: 'text', text, metadata: { error: true, ...metadata } }],
  });

const probe = (text: string, metadata: Record<string, unknown>) =>
  tailProbe(sample({ state: 'idle', newest: specError(text, metadata) }));

describe('tail probe: reason in the spec values, free text never a wall', () => {
  it('the four spec reasons are walls', () => {
    for (const reason of ['account_rate_limit', 'free_tier_limit', 'account_usage_limit', 'rate_limit'])
      assert.equal(probe('limit', { reason, provider: 'anthropic' })?.reason, reason);
  });

  it('a reason that only contains a spec word is no wall (sandbox_freeze, weekly_usage_limit)', () => {
    for (const reason of ['sandbox_freeze', 'weekly_usage_limit', 'rate_limit_warning', 'free', 'tool_error'])
      assert.equal(probe('Weekly usage limit reached (HTTP 429)', { reason }), null, reason);
    assert.equal(categoryFromReason('sandbox_freeze'), null);
  });

  it('an error part with no reason is no usage-limit wall, whatever its text says', () => {
    assert.equal(probe('Rate limited (HTTP 429)', {}), null);
    assert.equal(probe('Weekly usage limit reached', { provider: 'anthropic' }), null);
    assert.equal(classifyFailure({ text: 'Free tier limit reached' }), null);
  });

  it('issue 28: a balance failure has no reason value in the spec: its text decides (HTTP 402 insufficient_quota)', () => {
    assert.equal(
      probe('generation failed with HTTP 402 insufficient_quota', { provider: 'openai' })?.category,
      'balance',
    );
    assert.equal(classifyFailure({ text: 'generation failed with HTTP 402 insufficient_quota' }), 'balance');
  });

  it('the balance family of reasons is a balance failure (HTTP 402)', () => {
    for (const reason of ['insufficient_quota', 'insufficient_balance', 'insufficient_credits'])
      assert.equal(probe('generation failed with HTTP 402', { reason, provider: 'openai' })?.category, 'balance');
  });

  it("stock opencode's structured APIError statusCode still decides in that dialect", () => {
    const stock = (statusCode: number, message: string) =>
      toMessageSnapshot({
        info: {
          id: 'msg_3',
          role: 'assistant',
          providerID: 'local',
          error: { name: 'APIError', data: { message, statusCode } },
        },
        parts: [],
      });
    assert.equal(stock(429, 'Too many requests').failure?.category, 'rate-limit');
    assert.equal(stock(402, 'Payment required').failure?.category, 'balance');
    assert.equal(stock(500, 'rate limit text in a 500').failure?.category, null);
  });
});
