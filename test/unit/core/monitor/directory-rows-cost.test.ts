// Rows and cost: each row carries its cost with its sub-agents' and its budget level; 80 % and
// 100 % of budget.sessionUsd are told once each; a row over budget needs attention.
import assert from 'node:assert/strict';
import type { SampleRound } from '../../../../src/core/backend/client';
import { BudgetLevels } from '../../../../src/core/cost/budget';
import { SampleHistory } from '../../../../src/core/health/sample-history';
import { updateDirectoryRows } from '../../../../src/core/monitor/directory-rows';
import { needsAttention } from '../../../../src/core/monitor/row';
import type { DirectoryState, Transition } from '../../../../src/core/monitor/types';
import type { SessionSample } from '../../../../src/core/model';
import { T0, SEC, sample } from '../health/fixtures';

function withCost(s: SessionSample, usd: number, parentId: string | null = null): SessionSample {
  s.session.cost = { usd, tokens: { input: 10, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, messages: null };
  s.session.parentId = parentId;
  return s;
}

function round(at: number, samples: SessionSample[]): SampleRound {
  return { directory: '/w', at, dialect: 'opencode', samples, vanished: [], errors: [], unreadable: [], warnings: [] };
}

describe('monitor/directory-rows: cost and budget', () => {
  it('rows carry the cost with sub-agents; 80 % and 100 % are told once each; 100 % needs attention', () => {
    const dir: DirectoryState = { directory: '/w', rows: [], error: null, partialErrors: [], truncated: null };
    const history = new SampleHistory({ spacingMs: 45 * SEC });
    const told: Transition[] = [];
    const ctx = {
      backendKey: 'b',
      listing: { providers: [], connected: [] },
      assess: { now: T0 },
      badges: new Map(),
      budgetUsd: 1,
      budgets: new BudgetLevels(),
      todos: new Map(),
      readTodos: null,
      onTransition: (t: Transition) => told.push(t),
    };
    const sampled = (at: number, parent: number, child: number) => [
      withCost(sample({ id: 'ses_p', at }), parent),
      withCost(sample({ id: 'ses_c', at }), child, 'ses_p'),
    ];
    updateDirectoryRows(dir, round(T0, sampled(T0, 0.5, 0.1)), history, ctx);
    const row = (id: string) => dir.rows.find((r) => r.id === id)!;
    assert.equal(row('ses_p').cost?.usd, 0.6);
    assert.equal(row('ses_c').cost?.usd, 0.1);
    assert.equal(told.length, 0);

    updateDirectoryRows(dir, round(T0 + 45 * SEC, sampled(T0 + 45 * SEC, 0.5, 0.35)), history, ctx);
    assert.equal(row('ses_p').budgetLevel, 80);
    assert.deepEqual(
      told.map((t) => `${t.kind} ${t.row.id}`),
      ['budget-80 ses_p'],
    );
    updateDirectoryRows(dir, round(T0 + 90 * SEC, sampled(T0 + 90 * SEC, 0.55, 0.4)), history, ctx);
    updateDirectoryRows(dir, round(T0 + 135 * SEC, sampled(T0 + 135 * SEC, 0.7, 0.4)), history, ctx);
    assert.deepEqual(
      told.map((t) => `${t.kind} ${t.row.id}`),
      ['budget-80 ses_p', 'budget-100 ses_p'],
    );
    assert.equal(row('ses_p').budgetLevel, 100);
    assert.equal(needsAttention(row('ses_p')), true);
    assert.equal(row('ses_c').budgetLevel, 0);
  });
});
