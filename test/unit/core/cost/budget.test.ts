import assert from 'node:assert/strict';
import { budgetLevel, BudgetLevels } from '../../../../src/core/cost/budget';
import type { SessionCost } from '../../../../src/core/model';

const cost = (usd: number): SessionCost => ({
  usd,
  tokens: { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
  messages: null,
});

describe('cost/budget', () => {
  it('levels: 80 % and 100 % of the budget; none without a budget or a reported cost', () => {
    assert.equal(budgetLevel(cost(0.79), 1), 0);
    assert.equal(budgetLevel(cost(0.8), 1), 80);
    assert.equal(budgetLevel(cost(1), 1), 100);
    assert.equal(budgetLevel(cost(5), 0), 0);
    assert.equal(budgetLevel(null, 1), 0);
  });

  it('each level is told once per session; a jump tells both; forgetting starts over', () => {
    const levels = new BudgetLevels();
    assert.deepEqual(levels.reach('a', 80), [80]);
    assert.deepEqual(levels.reach('a', 80), []);
    assert.deepEqual(levels.reach('a', 100), [100]);
    assert.deepEqual(levels.reach('a', 0), []);
    assert.deepEqual(levels.reach('a', 100), []);
    assert.deepEqual(levels.reach('b', 100), [80, 100]);
    levels.forget('b');
    assert.deepEqual(levels.reach('b', 80), [80]);
  });
});
