import assert from 'node:assert/strict';
import { findReport, parsePairs, parseReportLine } from '../../../../src/core/report/parse';
import { formatReport, quotaBlockedReport } from '../../../../src/core/report/format';
import type { CompletionReport } from '../../../../src/core/model';

describe('completion report: parse', () => {
  it('parses all fields, quoted summary', () => {
    assert.deepEqual(
      parseReportLine('ticket=PROJ-12 label=Kind/Bug status=done pr=#34 summary="Parser accepts CRLF"'),
      {
        ticket: 'PROJ-12',
        label: 'Kind/Bug',
        status: 'done',
        pr: '#34',
        summary: 'Parser accepts CRLF',
        reason: null,
      },
    );
  });

  it('label and pr are optional', () => {
    assert.deepEqual(parseReportLine('ticket=T-1 status=handoff summary=over to you'), {
      ticket: 'T-1',
      label: null,
      status: 'handoff',
      pr: null,
      summary: 'over to you',
      reason: null,
    });
  });

  it('a quota block: status=blocked reason=quota-exhausted, unquoted summary runs to the next key', () => {
    assert.deepEqual(
      parseReportLine('ticket=T-9 status=blocked summary=quota exhausted on anthropic reason=quota-exhausted'),
      {
        ticket: 'T-9',
        label: null,
        status: 'blocked',
        pr: null,
        summary: 'quota exhausted on anthropic',
        reason: 'quota-exhausted',
      },
    );
  });

  it('a bad status, a missing ticket, a placeholder ticket are no proper report', () => {
    assert.equal(parseReportLine('ticket=T-1 status=finished'), null);
    assert.equal(parseReportLine('status=done summary=x'), null);
    assert.equal(parseReportLine('ticket=<ticket> status=done'), null);
    assert.equal(parseReportLine('ticket=T-1 status=<done|blocked|handoff>'), null);
    assert.equal(parseReportLine('the ticket=T-1 status=done'), null);
  });

  it('accepts list markers and quote markers around the line; inline code is an example', () => {
    assert.equal(parseReportLine('- ticket=T-2 status=done summary=ok')?.ticket, 'T-2');
    assert.equal(parseReportLine('- `ticket=T-2 status=done summary=ok`'), null);
    assert.equal(parseReportLine('> ticket=T-3 status=blocked summary=stuck')?.status, 'blocked');
  });

  it('escaped quotes inside a quoted value', () => {
    assert.equal(parseReportLine('ticket=T-1 status=done summary="said \\"hi\\" = ok"')?.summary, 'said "hi" = ok');
    assert.deepEqual(parsePairs('a="unterminated'), new Map([['a', 'unterminated']]));
  });

  it('findReport takes the last report line of a message', () => {
    const text =
      'Work log\nticket=T-1 status=blocked summary=first\nmore text\nticket=T-1 status=done pr=#9 summary=second\nBye.';
    assert.equal(findReport(text)?.summary, 'second');
    assert.equal(findReport('no report here'), null);
    assert.equal(findReport(''), null);
    assert.equal(findReport(null), null);
  });
});

describe('completion report: format', () => {
  it('formats one line, in order, quoting where needed', () => {
    const r: CompletionReport = {
      ticket: 'PROJ-12',
      label: 'Kind/Bug',
      status: 'done',
      pr: '#34',
      summary: 'Parser accepts CRLF',
      reason: null,
    };
    assert.equal(formatReport(r), 'ticket=PROJ-12 label=Kind/Bug status=done pr=#34 summary="Parser accepts CRLF"');
  });

  it('folds a multi-line summary onto one line', () => {
    const line = formatReport({
      ticket: 'T',
      label: null,
      status: 'handoff',
      pr: null,
      summary: 'a\nb\r\nc',
      reason: null,
    });
    assert.equal(line, 'ticket=T status=handoff summary="a b c"');
    assert.ok(!line.includes('\n'));
  });

  it('quota block report', () => {
    assert.equal(
      formatReport(quotaBlockedReport('T-4', 'quota exhausted', { pr: '#2' })),
      'ticket=T-4 status=blocked pr=#2 reason=quota-exhausted summary="quota exhausted"',
    );
  });

  it('round-trips through the parser, including awkward values', () => {
    const reports: CompletionReport[] = [
      {
        ticket: 'owner/repo#12',
        label: 'Kind/Feature',
        status: 'done',
        pr: 'https://git.example/pr/3',
        summary: 'x = "y" \\ z status=done',
        reason: null,
      },
      { ticket: 'T 1', label: null, status: 'blocked', pr: null, summary: 'out of quota', reason: 'quota-exhausted' },
    ];
    for (const r of reports) assert.deepEqual(parseReportLine(formatReport(r)), r);
  });

  it('needs a ticket', () => {
    assert.throws(() =>
      formatReport({ ticket: ' ', label: null, status: 'done', pr: null, summary: null, reason: null }),
    );
  });
});
