import assert from 'node:assert/strict';
import { costTooltipLine, providerSpendText, rowCostText, totalCostText } from '../../../../src/core/cost/present';
import { describeRow, tooltipMarkdown } from '../../../../src/core/monitor/present';
import type { SessionRow } from '../../../../src/core/monitor/row';
import type { SessionAssessment, SessionCost } from '../../../../src/core/model';
import { sessionRow } from '../../../support/session-rows';

const cost = (usd: number): SessionCost => ({
  usd,
  tokens: { input: 1200, output: 34, reasoning: 0, cacheRead: 5, cacheWrite: 0 },
  messages: null,
});
const assessment = (usd: number | null, provider = 'local') =>
  ({ cost: usd === null ? null : cost(usd), costProvider: provider }) as SessionAssessment;

describe('cost in the views', () => {
  it('a row: its cost with sub-agents and the budget level; hidden with showCost off; nothing when not reported', () => {
    const row = sessionRow({ id: 'ses_p', cost: cost(0.5), budgetLevel: 80, assessment: assessment(0.25) });
    assert.equal(rowCostText(row), '$0.5000 (80 % of budget)');
    assert.match(describeRow(row, 0), /\$0\.5000 \(80 % of budget\)$/);
    assert.doesNotMatch(describeRow(row, 0, { showCost: false }), /\$/);
    assert.equal(rowCostText({ ...row, cost: null }), '');
    assert.equal(rowCostText({ ...row, budgetLevel: 100 }), '$0.5000 (over budget)');
  });

  it('the tooltip: cost, the sub-agents share and tokens; "not reported by this backend" otherwise', () => {
    const row = sessionRow({ cost: cost(0.5), budgetLevel: 0, assessment: assessment(0.25) });
    assert.equal(
      costTooltipLine(row),
      "Cost: $0.5000 (its own $0.2500, the rest its sub-agents') · tokens: 1,200 in, 34 out, 0 reasoning, 5 cache read, 0 cache write",
    );
    assert.match(tooltipMarkdown(row, 0), /Cost: \$0\.5000/);
    assert.equal(costTooltipLine(sessionRow({ cost: null })), 'Cost: not reported by this backend');
  });

  it('directory and backend totals count each session once; the Providers view spend', () => {
    const rows: SessionRow[] = [
      sessionRow({ id: 'ses_p', cost: cost(0.75), assessment: assessment(0.5) }),
      sessionRow({ id: 'ses_c', parentId: 'ses_p', cost: cost(0.25), assessment: assessment(0.25) }),
    ];
    assert.equal(totalCostText(rows), '$0.7500 spent');
    assert.equal(totalCostText([sessionRow({ assessment: assessment(null) })]), '');
    assert.equal(
      providerSpendText([{ provider: 'local', today: 0.1, sinceStart: 0.4 }], 'local'),
      '$0.1000 today, $0.4000 since watching began',
    );
    assert.equal(providerSpendText(undefined, 'local'), '');
  });
});
