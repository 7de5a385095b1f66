// /api/status of watch: each document carries the costs and marks the sessions whose cost reached
// budget.sessionUsd, like `status --budget-usd`.
import assert from 'node:assert/strict';
import { assessSession } from '../../../../src/core/health/assess';
import type { BackendState } from '../../../../src/core/monitor/sessionMonitor';
import { backendStatuses } from '../../../../src/core/watch/status';
import { sessionRow } from '../../../support/session-rows';
import { T0, sample } from '../health/fixtures';

function rowWithCost(id: string, usd: number, parentId: string | null = null) {
  const s = sample({ id, state: 'idle' });
  s.session.cost = { usd, tokens: { input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, messages: null };
  s.session.parentId = parentId;
  const assessment = assessSession([s], { providers: [], connected: [] }, { now: T0 });
  return sessionRow({ id, parentId, assessment });
}

describe('watch /api/status: cost and budget', () => {
  it('per session with its sub-agents, the total by provider, overBudget against budget.sessionUsd', () => {
    const state: BackendState = {
      config: { key: 'http://a/', name: 'a', baseUrl: 'http://a', directories: ['/w'], insecure: false },
      status: 'ok',
      error: null,
      dialect: 'opencode',
      directories: [
        {
          directory: '/w',
          rows: [rowWithCost('ses_p', 0.5), rowWithCost('ses_c', 0.75, 'ses_p'), rowWithCost('ses_x', 0.25)],
          error: null,
          partialErrors: [],
          truncated: null,
        },
      ],
      providers: null,
      providersError: null,
      allFreeAt: null,
      eventStream: null,
      lastRoundAt: T0,
    };
    const [doc] = backendStatuses([state], T0, 1)[0].documents;
    const by = new Map(doc.sessions.map((s) => [s.id, s]));
    assert.equal(by.get('ses_p')?.cost?.usd, 1.25);
    assert.deepEqual(
      doc.sessions.map((s) => [s.id, s.overBudget]),
      [
        ['ses_p', true],
        ['ses_c', false],
        ['ses_x', false],
      ],
    );
    assert.deepEqual(doc.cost, { usd: 1.5, byProvider: { anthropic: 1.5 } }, 'the provider of the newest message');
    assert.equal(backendStatuses([state], T0)[0].documents[0].sessions[0].overBudget, false);
  });
});
