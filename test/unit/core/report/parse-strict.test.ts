// Completion reports read the way a worker writes them: keys in any order, code ignored, a key
// already set is summary text, one bad quote does not lose the report, and a line meant as a
// report that does not parse is a malformed report (a person reads it; never woken over).
import assert from 'node:assert/strict';
import { findReport, readReport } from '../../../../src/core/report/parse';

describe('completion report: parse as written', () => {
  it('keys in any order', () => {
    const r = findReport('status=done ticket=T-1 pr=#5 summary=all green');
    assert.deepEqual(r, { ticket: 'T-1', label: null, status: 'done', pr: '#5', summary: 'all green', reason: null });
  });

  it('a report quoted in a fenced code block is not the report', () => {
    const text = [
      'I will report like this when I am done:',
      '```',
      'ticket=T-1 status=done summary="finished"',
      '```',
      'Still working on step 3.',
    ].join('\n');
    assert.equal(readReport(text), null);
    const tilde = ['~~~text', 'ticket=T-1 status=done summary=x', '~~~', 'working'].join('\n');
    assert.equal(readReport(tilde), null);
  });

  it('a report in inline code is not the report', () => {
    assert.equal(readReport('The protocol line is `ticket=T-1 status=done summary=x`; still working.'), null);
    assert.equal(readReport('`ticket=T-2 status=done summary=x`'), null);
  });

  it('a report after a closed code block counts', () => {
    const text = [
      '```',
      'ticket=T-1 status=blocked summary=example',
      '```',
      'ticket=T-1 status=done summary=real',
    ].join('\n');
    assert.equal(findReport(text)?.summary, 'real');
  });

  it('a key already set is text of the summary, and the keys after it still count', () => {
    const r = findReport('ticket=T-1 status=done summary=fixed the status=blocked bug pr=#5');
    assert.equal(r?.summary, 'fixed the status=blocked bug');
    assert.equal(r?.status, 'done');
    assert.equal(r?.pr, '#5');
  });

  it('one unterminated quote does not reject the report', () => {
    const r = findReport('ticket=T-1 status=done summary="fixed the parser');
    assert.equal(r?.status, 'done');
    assert.equal(r?.summary, 'fixed the parser');
    const p = findReport('ticket=T-1 status=done summary="half quoted pr=#7');
    assert.equal(p?.pr, '#7');
  });

  it('a line meant as a report that does not parse is a malformed report', () => {
    const bad = readReport('Done.\nticket=T-1 status=finished summary=all green');
    assert.ok(bad && 'malformed' in bad && bad.malformed);
    assert.equal(bad.raw, 'ticket=T-1 status=finished summary=all green');
    assert.match(bad.problem, /status "finished" is not done, blocked or handoff/);
    assert.equal(bad.ticket, 'T-1');
    const noTicket = readReport('status=done summary=x');
    assert.ok(noTicket && 'malformed' in noTicket);
    assert.match(noTicket.problem, /no ticket/);
    assert.equal(findReport('status=done summary=x'), null, 'a malformed report is no report');
  });

  it('the newest report-like line decides: malformed after a good one is malformed', () => {
    const r = readReport('ticket=T-1 status=blocked summary=first\nticket=T-1 status=complete summary=second');
    assert.ok(r && 'malformed' in r);
  });

  it('prose and template lines are no report at all', () => {
    assert.equal(readReport('I set status=done in the config file.'), null);
    assert.equal(readReport('summary=only one key'), null);
    assert.equal(readReport('ticket=<ticket> status=<done|blocked|handoff> summary=<one line>'), null);
    assert.equal(readReport('  report line: ticket=T-1 status=<done|blocked|handoff> summary=<one line>'), null);
  });
});
