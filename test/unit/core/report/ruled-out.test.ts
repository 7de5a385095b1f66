// Issue 28 item 7: the lines the spec rules out as completion reports are malformed reports (a
// person reads them; never harvested, never woken over): no summary, a reason on a status other
// than blocked, a key given twice before the summary (the first value used to win silently).
// `report format` refuses the same, so what it prints always parses back as a report.
import assert from 'node:assert/strict';
import { findReport, isMalformed, readReport } from '../../../../src/core/report/parse';
import { formatReport, reportProblem } from '../../../../src/core/report/format';
import type { CompletionReport } from '../../../../src/core/model';

function malformed(line: string) {
  const r = readReport(line);
  assert.ok(isMalformed(r), `${line} should be malformed, got ${JSON.stringify(r)}`);
  assert.equal(findReport(line), null, 'a malformed report is no report');
  return r;
}

describe('completion report: lines the spec rules out are malformed', () => {
  it('no summary (absent or empty)', () => {
    assert.equal(malformed('ticket=T-1 status=done pr=#5').problem, 'no summary');
    assert.equal(malformed('ticket=T-1 status=done summary=""').problem, 'no summary');
    assert.equal(malformed('ticket=T-1 status=blocked reason=quota-exhausted').problem, 'no summary');
  });

  it('a reason on a status other than blocked', () => {
    const done = malformed('ticket=T-1 status=done reason=quota-exhausted summary=finished');
    assert.match(done.problem, /reason=quota-exhausted on status done/);
    assert.equal(done.reason, 'quota-exhausted');
    assert.match(malformed('ticket=T-1 status=handoff reason=other summary=over to you').problem, /on status handoff/);
    assert.equal(
      findReport('ticket=T-1 status=blocked reason=quota-exhausted summary=out of quota')?.status,
      'blocked',
    );
  });

  it('a key repeated before the summary', () => {
    const twice = malformed('ticket=T-1 status=done status=blocked summary=x');
    assert.match(twice.problem, /status= given more than once/);
    assert.equal(twice.raw, 'ticket=T-1 status=done status=blocked summary=x');
    assert.match(malformed('ticket=T-1 ticket=T-2 status=done summary=x').problem, /ticket= given more than once/);
    assert.match(
      malformed('ticket=T-1 status=blocked reason=quota-exhausted status=done summary=x').problem,
      /status= given more than once/,
    );
    assert.match(malformed('ticket=T-1 status=done summary="x" status=blocked').problem, /status=/);
  });

  it('a key already set inside an unquoted summary stays summary text', () => {
    const r = findReport('ticket=T-1 status=done summary=fixed the status=blocked bug pr=#5');
    assert.equal(r?.summary, 'fixed the status=blocked bug');
    assert.equal(r?.pr, '#5');
  });

  it('report format refuses a reason on any status but blocked, and what it prints parses back', () => {
    const base: CompletionReport = {
      ticket: 'T-1',
      label: null,
      status: 'done',
      pr: null,
      summary: 'ok',
      reason: null,
    };
    for (const reason of ['quota-exhausted', 'other'])
      for (const status of ['done', 'handoff'] as const) {
        assert.match(reportProblem({ ...base, status, reason }) ?? '', /needs status=blocked/);
        assert.throws(() => formatReport({ ...base, status, reason }), /needs status=blocked/);
      }
    for (const r of [base, { ...base, status: 'blocked' as const, reason: 'quota-exhausted', pr: '#2' }])
      assert.deepEqual(findReport(formatReport(r)), r);
  });
});
