// Rows of a directory across rounds: a session whose row shows nothing new keeps its row object
// (sample times and assessment brought up to date), and is not among the changed rows; a session
// that moved gets a new row.
import assert from 'node:assert/strict';
import type { SampleRound } from '../../../../src/core/backend/client';
import { BudgetLevels } from '../../../../src/core/cost/budget';
import { SampleHistory } from '../../../../src/core/health/sample-history';
import { updateDirectoryRows, type DirectoryRowsContext } from '../../../../src/core/monitor/directory-rows';
import { toRow } from '../../../../src/core/monitor/to-row';
import { assessSession } from '../../../../src/core/health';
import type { DirectoryState } from '../../../../src/core/monitor/types';
import type { SessionSample } from '../../../../src/core/model';
import { T0, SEC, sample } from '../health/fixtures';

function round(at: number, samples: SessionSample[]): SampleRound {
  return { directory: '/w', at, dialect: 'opencode', samples, vanished: [], errors: [], unreadable: [], warnings: [] };
}

describe('monitor/directory-rows: rows across rounds', () => {
  it("keeps an unchanged session its row object, with this round's sample times and assessment", () => {
    const dir: DirectoryState = { directory: '/w', rows: [], error: null, partialErrors: [], truncated: null };
    const history = new SampleHistory({ spacingMs: 45 * SEC });
    const ctx = (now: number): DirectoryRowsContext => ({
      backendKey: 'b',
      listing: { providers: [], connected: [] },
      assess: { now },
      badges: new Map(),
      budgetUsd: 0,
      budgets: new BudgetLevels(),
      todos: new Map(),
      readTodos: null,
      onTransition: () => undefined,
    });
    const at = (i: number) => T0 + i * 45 * SEC;
    const sampled = (i: number) => {
      const samples = [
        sample({ id: 'ses_idle', at: at(i), state: 'idle' }),
        sample({ id: 'ses_busy', at: at(i), progress: { stepCount: 10 + i, lastStepAt: at(i) } }),
      ];
      history.add(...samples);
      return round(at(i), samples);
    };
    const row = (id: string) => dir.rows.find((r) => r.id === id)!;
    updateDirectoryRows(dir, sampled(0), history, ctx(at(0)));
    updateDirectoryRows(dir, sampled(1), history, ctx(at(1)));
    const idle = row('ses_idle');
    const busy = row('ses_busy');
    assert.equal(idle.badge, 'idle');
    assert.equal(busy.badge, 'healthy');

    const update = updateDirectoryRows(dir, sampled(2), history, ctx(at(2)));
    assert.equal(row('ses_idle'), idle, 'the same row object');
    assert.deepEqual(
      update.changedRows.map((r) => r.id),
      ['ses_busy'],
    );
    assert.notEqual(row('ses_busy'), busy);
    assert.equal(row('ses_busy').stepCount, 12);
    assert.equal(idle.evidence.latest.at, at(2), "this round's sample time");
    assert.equal(idle.evidence.earlier?.at, at(1));

    // The kept row equals one built afresh from this round's samples (the assessment included).
    const latest = history.latest('ses_idle')!;
    const baseline = history.baseline(latest);
    const assessment = assessSession([baseline!, latest], { providers: [], connected: [] }, { now: at(2) });
    const fresh = toRow({
      key: idle.key,
      backendKey: 'b',
      directory: '/w',
      assessment,
      baseline,
      latest,
      history: history.samples('ses_idle'),
      listing: { providers: [], connected: [] },
    });
    fresh.cost = null;
    fresh.budgetLevel = 0;
    assert.deepEqual(idle, fresh);
  });
});
