import assert from 'node:assert/strict';
import { DIALECTS } from '../../../../src/core/backend/dialects';
import { readCost } from '../../../../src/core/backend/wire/cost';

// A session of stock opencode 1.18.33's list, as observed (model m1 priced 3/15 per million tokens).
const OBSERVED = {
  id: 'ses_dec69487effe1yBLs0n2gRJje3',
  cost: 0.000105,
  tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
  title: 't1',
  time: { created: 1795624974209, updated: 1795624976886 },
};

describe('wire: cost and tokens', () => {
  it('stock opencode: a listed session carries its own cost and tokens', () => {
    const [s] = DIALECTS.opencode.toSessions([OBSERVED], new Map());
    assert.deepEqual(s.cost, {
      usd: 0.000105,
      tokens: { input: 10, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
      messages: null,
    });
    assert.equal(DIALECTS.opencode.capabilities.sessionCost, true);
  });

  it('the spec dialect reports none', () => {
    const [s] = DIALECTS.spec.toSessions(
      [{ id: 'ses_1', state: 'idle', cost: 1, tokens: { input: 1, output: 1 } }],
      null,
    );
    assert.equal(s.cost ?? null, null);
    assert.equal(DIALECTS.spec.capabilities.sessionCost, false);
  });

  it('missing, negative or non-numeric figures read as not reported, never 0', () => {
    assert.equal(readCost({ tokens: OBSERVED.tokens }), null);
    assert.equal(readCost({ cost: 0.1 }), null);
    assert.equal(readCost({ cost: -1, tokens: OBSERVED.tokens }), null);
    assert.equal(readCost({ cost: '0.1', tokens: OBSERVED.tokens }), null);
    assert.equal(readCost({ cost: 0.1, tokens: { input: 'x', output: 1 } }), null);
    assert.deepEqual(readCost({ cost: 0, tokens: { input: 0, output: 0 } }, 2), {
      usd: 0,
      tokens: { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
      messages: 2,
    });
  });
});
