// Every wake prompt carries the anti-re-hang clause (spec Endpoints rule 3) and the completion-
// report protocol: appended unchanged when missing (with a notice saying so), kept when present.
import assert from 'node:assert/strict';
import {
  ANTI_RE_HANG_CLAUSE,
  completionReportBlock,
  QUOTA_SELF_REPORT_CLAUSE,
} from '../../../../src/core/prompt/clauses';
import { factBaselineDocumentProblem, guaranteeWakeRules } from '../../../../src/core/prompt/wake-rules';

const report = { ticket: 'PROJ-12', orchestratorSessionId: 'ses_orch' };

describe('wake rules: the clauses every wake prompt carries', () => {
  it('a bare prompt gets both appended unchanged, and says so', () => {
    const g = guaranteeWakeRules('Please continue with step 3.', report);
    assert.ok(g.text.startsWith('Please continue with step 3.'));
    assert.ok(g.text.includes(ANTI_RE_HANG_CLAUSE));
    assert.ok(g.text.includes(completionReportBlock(report)));
    assert.deepEqual(g.appended, ['anti-re-hang clause', 'completion-report protocol']);
    assert.match(g.notice ?? '', /appended the anti-re-hang clause and the completion-report protocol/);
  });

  it('a prompt that carries both is kept as it is, without a notice', () => {
    const text = `Continue.\n\n${ANTI_RE_HANG_CLAUSE}\n\n${completionReportBlock(report)}`;
    const g = guaranteeWakeRules(text, report);
    assert.equal(g.text, text);
    assert.deepEqual(g.appended, []);
    assert.equal(g.notice, null);
  });

  it('whitespace and line breaks inside a kept clause do not count as missing', () => {
    const wrapped = ANTI_RE_HANG_CLAUSE.replace('. ', '.\n');
    const text = `Go on.\n${wrapped}\n${completionReportBlock({ ticket: 'OTHER-1' })}`;
    const g = guaranteeWakeRules(text, report);
    assert.equal(g.text, text);
  });

  it('only the missing one is appended', () => {
    const g = guaranteeWakeRules(`Go on.\n${ANTI_RE_HANG_CLAUSE}`, report);
    assert.deepEqual(g.appended, ['completion-report protocol']);
    assert.equal(g.text.split(ANTI_RE_HANG_CLAUSE).length, 2, 'the clause is not doubled');
    assert.ok(g.text.includes(QUOTA_SELF_REPORT_CLAUSE));
  });
});

describe('wake rules: a fact-baseline document keeps its four parts', () => {
  const doc = [
    '1. You were woken: your worldview is stale. Event: e. Current time: 2026-01-05T12:00:00.000Z.',
    '2. Authoritative facts:\n   1. s (source: l; as of 2026-01-05T11:00:00Z)\n   Standing assumptions now invalid: none.',
    '3. Assignment: rebase',
    '4. Evidence rule: verify each fact at its cited source before acting on it.',
  ].join('\n\n');

  it('a complete document has no problem', () => {
    assert.equal(factBaselineDocumentProblem(doc), null);
  });

  it('a document with a part deleted is refused naming it', () => {
    assert.match(factBaselineDocumentProblem(doc.replace(/3\. Assignment: rebase/, '')) ?? '', /part 3/);
    assert.match(factBaselineDocumentProblem(doc.replace(/^1\. .*$/m, 'Hello')) ?? '', /part 1/);
    assert.match(factBaselineDocumentProblem(doc.replace(/4\. Evidence rule.*$/m, '')) ?? '', /part 4/);
  });
});
