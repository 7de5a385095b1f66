// A malformed completion report (a line meant as a report that does not parse) asks a person to
// read it: action read-report, its own badge and row text, `"report": {"malformed": true, ...}` in
// status --json, and automatic mode never wakes over it.
import assert from 'node:assert/strict';
import { assessSession } from '../../../../src/core/health/assess';
import { statusSession } from '../../../../src/core/health/status-document';
import { describeRow, tooltipMarkdown } from '../../../../src/core/monitor/present';
import { needsAttention } from '../../../../src/core/monitor/row';
import { toRow } from '../../../../src/core/monitor/to-row';
import { AutomaticPolicy } from '../../../../src/core/operations/automatic';
import { listing, msg, pair, provider, T0 } from './fixtures';

const LISTING = listing([provider('anthropic')]);

function idleWith(text: string) {
  const [a, b] = pair(
    { state: 'idle', progress: { stepCount: 3, lastStepAt: T0 - 600_000 }, newest: msg('msg_5', { text }) },
    {},
  );
  const assessment = assessSession([a, b], LISTING, { now: T0 + 60_000 });
  const row = toRow({
    backendKey: 'b',
    directory: '/w',
    assessment,
    baseline: a,
    latest: b,
    history: [a, b],
    listing: LISTING,
  });
  return { assessment, row };
}

describe('malformed completion report: a person reads it', () => {
  it('is never woken over: action read-report, not wake', () => {
    const { assessment } = idleWith('All done I think.\nticket=T-1 status=finished summary=all green');
    assert.equal(assessment.report, null);
    assert.equal(assessment.malformedReport?.problem, 'status "finished" is not done, blocked or handoff');
    assert.equal(assessment.decision.action, 'read-report');
    assert.match(assessment.decision.basis, /a person must read it/);
  });

  it('status --json: "report": {"malformed": true, "raw": ...}, headline malformed-report', () => {
    const s = statusSession(idleWith('status=done summary=fixed it').assessment);
    assert.equal(s.action, 'read-report');
    assert.equal(s.headline, 'malformed-report');
    assert.deepEqual(s.report, {
      malformed: true,
      raw: 'status=done summary=fixed it',
      problem: 'no ticket',
      ticket: null,
      label: null,
      status: 'done',
      pr: null,
      summary: 'fixed it',
      reason: null,
    });
  });

  it('the row asks a person to read it', () => {
    const { row } = idleWith('ticket=T-1 status=finished summary=all green');
    assert.equal(row.badge, 'malformed-report');
    assert.equal(row.action, 'read-report');
    assert.equal(needsAttention(row), true);
    assert.match(
      describeRow(row, T0 + 60_000),
      /malformed report \(status "finished" is not done, blocked or handoff\): read it/,
    );
    assert.match(tooltipMarkdown(row, T0 + 60_000), /Malformed completion report .*a person must read it/);
  });

  it('automatic mode never acts on it, whatever is switched on', () => {
    const { row } = idleWith('ticket=T-1 status=finished summary=all green');
    const policy = new AutomaticPolicy(() => T0);
    assert.equal(
      policy.decide(
        row,
        { abortHung: true, wakeIdle: true, recoverQuotaWalls: true, abortOverBudget: true },
        { trusted: true, busy: false },
      ),
      null,
    );
  });

  it('issue 28: no summary, a reason on done, a key given twice: read-report, never harvest or wake', () => {
    for (const text of [
      'ticket=T-1 status=done pr=#5',
      'ticket=T-1 status=done reason=quota-exhausted summary=finished',
      'ticket=T-1 status=done status=blocked summary=x',
    ]) {
      const { assessment, row } = idleWith(text);
      assert.equal(assessment.report, null, text);
      assert.equal(assessment.decision.action, 'read-report', text);
      assert.equal(statusSession(assessment).report && 'malformed' in statusSession(assessment).report!, true, text);
      const policy = new AutomaticPolicy(() => T0);
      assert.equal(
        policy.decide(
          row,
          { abortHung: true, wakeIdle: true, recoverQuotaWalls: true, abortOverBudget: true },
          { trusted: true, busy: false },
        ),
        null,
        text,
      );
    }
  });

  it('a report pasted in a code block while still working is not harvested', () => {
    const { assessment } = idleWith('Protocol:\n```\nticket=T-1 status=done summary=x\n```\nStill on step 2.');
    assert.equal(assessment.report, null);
    assert.equal(assessment.decision.action, 'wake');
  });
});
