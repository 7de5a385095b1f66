// `report format` (formatReport) refuses what is no valid report: reason=quota-exhausted with a
// status other than blocked, and a report without a summary.
import assert from 'node:assert/strict';
import { formatReport, reportProblem } from '../../../../src/core/report/format';
import type { CompletionReport } from '../../../../src/core/model';

const base: CompletionReport = { ticket: 'T-1', label: null, status: 'done', pr: null, summary: 'ok', reason: null };

describe('completion report: format refuses invalid reports', () => {
  it('reason=quota-exhausted needs status blocked', () => {
    for (const status of ['done', 'handoff'] as const) {
      const r = { ...base, status, reason: 'quota-exhausted' };
      assert.match(reportProblem(r) ?? '', /reason=quota-exhausted needs status=blocked/);
      assert.throws(() => formatReport(r), /reason=quota-exhausted needs status=blocked/);
    }
    assert.equal(reportProblem({ ...base, status: 'blocked', reason: 'quota-exhausted' }), null);
  });

  it('a summary is required', () => {
    for (const summary of [null, '', '   ']) {
      assert.match(reportProblem({ ...base, summary }) ?? '', /needs a summary/);
      assert.throws(() => formatReport({ ...base, summary }), /needs a summary/);
    }
  });
});
