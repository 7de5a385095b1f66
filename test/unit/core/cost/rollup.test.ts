import assert from 'node:assert/strict';
import {
  addCosts,
  fleetCost,
  formatUsd,
  overBudget,
  rollUpCosts,
  type CostEntry,
} from '../../../../src/core/cost/rollup';
import type { SessionCost } from '../../../../src/core/model';

const cost = (usd: number, input = 10, output = 5, messages: number | null = null): SessionCost => ({
  usd,
  tokens: { input, output, reasoning: 1, cacheRead: 2, cacheWrite: 3 },
  messages,
});

describe('cost sums', () => {
  it('a sub-agent counts on its own row and toward every listed ancestor', () => {
    const entries: CostEntry[] = [
      { id: 'ses_p', parentId: null, cost: cost(1), provider: 'local' },
      { id: 'ses_c', parentId: 'ses_p', cost: cost(0.5), provider: 'local' },
      { id: 'ses_g', parentId: 'ses_c', cost: cost(0.25), provider: 'backup' },
      { id: 'ses_x', parentId: null, cost: cost(2), provider: null },
    ];
    const rolled = rollUpCosts(entries);
    assert.equal(rolled.get('ses_p')?.usd, 1.75);
    assert.equal(rolled.get('ses_c')?.usd, 0.75);
    assert.equal(rolled.get('ses_g')?.usd, 0.25);
    assert.equal(rolled.get('ses_x')?.usd, 2);
    assert.deepEqual(rolled.get('ses_p')?.tokens, { input: 30, output: 15, reasoning: 3, cacheRead: 6, cacheWrite: 9 });
    // The fleet counts each session once; a cost of unknown provider is put down to "unknown".
    assert.deepEqual(fleetCost(entries), { usd: 3.75, byProvider: { local: 1.5, backup: 0.25, unknown: 2 } });
  });

  it('a backend that reports no cost reads null (never 0); a parent without one still sums its sub-agents', () => {
    const none: CostEntry[] = [{ id: 'ses_a', parentId: null, cost: null, provider: 'local' }];
    assert.equal(rollUpCosts(none).get('ses_a'), null);
    assert.equal(fleetCost(none), null);
    const mixed: CostEntry[] = [
      { id: 'ses_p', parentId: null, cost: null, provider: null },
      { id: 'ses_c', parentId: 'ses_p', cost: cost(0.5), provider: 'local' },
    ];
    assert.equal(rollUpCosts(mixed).get('ses_p')?.usd, 0.5);
  });

  it('a parent chain that loops counts each session once', () => {
    const loop: CostEntry[] = [
      { id: 'ses_a', parentId: 'ses_b', cost: cost(1), provider: 'local' },
      { id: 'ses_b', parentId: 'ses_a', cost: cost(2), provider: 'local' },
    ];
    const rolled = rollUpCosts(loop);
    assert.equal(rolled.get('ses_a')?.usd, 3);
    assert.equal(rolled.get('ses_b')?.usd, 3);
  });

  it('message counts add when both are known, else null', () => {
    assert.equal(addCosts(cost(1, 1, 1, 2), cost(1, 1, 1, 3)).messages, 5);
    assert.equal(addCosts(cost(1, 1, 1, 2), cost(1)).messages, null);
  });

  it('budget: reached at 100 %, off at 0, never for an unreported cost', () => {
    assert.equal(overBudget(cost(1), 1), true);
    assert.equal(overBudget(cost(0.99), 1), false);
    assert.equal(overBudget(cost(5), 0), false);
    assert.equal(overBudget(null, 1), false);
    assert.equal(formatUsd(0.000105), '$0.0001');
    assert.equal(formatUsd(12.345), '$12.35');
  });
});
