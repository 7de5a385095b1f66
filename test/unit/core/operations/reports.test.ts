import assert from 'node:assert/strict';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { ReportBook } from '../../../../src/core/operations/reports';
import { sessionRow } from '../../../support/session-rows';

const REPORT = { ticket: 'PROJ-7', label: null, status: 'done' as const, pr: null, summary: 'ported', reason: null };

const row = (id: string, over: Partial<SessionRow> = {}): SessionRow =>
  sessionRow({
    id,
    badge: 'report-done',
    action: 'harvest',
    report: REPORT,
    newestText: 'status=done ticket=PROJ-7',
    evidence: {
      earlier: null,
      latest: { at: 0, state: 'idle', stepCount: null, lastStepAt: null, newestId: 'msg_9', newestRole: 'assistant' },
    },
    ...over,
  } as Partial<SessionRow>);

describe('core/operations/reports: which reports were seen is operator state', () => {
  it('a harvested report no longer needs attention; a new report of the same session does', () => {
    const book = new ReportBook();
    const r = row('ses_1');
    assert.equal(book.needsAttention(r), true);
    assert.equal(book.markSeen(r), true);
    assert.equal(book.markSeen(r), false, 'seen once');
    assert.equal(book.seenCount, 1);
    assert.equal(book.needsAttention(r), false);
    const next = row('ses_1', { evidence: { ...r.evidence, latest: { ...r.evidence.latest, newestId: 'msg_12' } } });
    assert.equal(book.needsAttention(next), true, 'a report in a newer message is a new report');
  });

  it("keeps a session's last report after a newer message, and drops it when the session is gone", () => {
    const book = new ReportBook();
    const r = row('ses_2');
    book.sync(
      [r],
      () => [r],
      () => true,
    );
    const later = row('ses_2', { report: null, badge: 'idle', newestText: 'working again' });
    assert.deepEqual(book.reportOf(later), { report: REPORT, text: 'status=done ticket=PROJ-7' });
    assert.equal(book.hasKept(r.key), true);
    const rows: SessionRow[] = [];
    book.sync(
      null,
      () => rows,
      () => false,
    );
    assert.equal(book.hasKept(r.key), false);
    assert.equal(book.reportOf(later), undefined);
  });
});
