import { strict as assert } from 'node:assert';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { sameRow } from '../../../../src/core/monitor/same-row';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const row = (over: Partial<SessionRow> = {}): SessionRow => ({
  key: 'b|/w|ses_1',
  backendKey: 'b',
  directory: '/w',
  id: 'ses_1',
  title: 't',
  badge: 'healthy',
  verdict: 'healthy',
  action: 'leave-alone',
  pending: null,
  state: 'generating',
  stepCount: 4,
  lastMovedAt: NOW - 1000,
  model: 'p/m',
  quotaWall: null,
  report: null,
  failureText: null,
  newestText: 'x',
  evidence: {
    earlier: {
      at: NOW - 45_000,
      state: 'generating',
      stepCount: 2,
      lastStepAt: NOW - 50_000,
      newestId: 'm1',
      newestRole: 'assistant',
    },
    latest: {
      at: NOW,
      state: 'generating',
      stepCount: 4,
      lastStepAt: NOW - 1000,
      newestId: 'm2',
      newestRole: 'assistant',
    },
  },
  ...over,
});

describe('core/monitor/same-row', () => {
  it('ignores only the evidence sample times', () => {
    const a = row();
    const b = row({
      evidence: { earlier: { ...a.evidence.earlier!, at: NOW }, latest: { ...a.evidence.latest, at: NOW + 45_000 } },
    });
    assert.equal(sameRow(a, b), true);
    assert.equal(sameRow(a, row({ stepCount: 5 })), false);
    assert.equal(sameRow(a, row({ evidence: { earlier: null, latest: a.evidence.latest } })), false);
    assert.equal(
      sameRow(a, row({ evidence: { earlier: a.evidence.earlier, latest: { ...a.evidence.latest, newestId: 'm3' } } })),
      false,
    );
    assert.equal(
      sameRow(a, row({ quotaWall: { provider: 'p', reason: null, category: 'usage-limit', resetAt: null } })),
      false,
    );
    assert.equal(
      sameRow(
        row({ report: { ticket: 'T', label: null, status: 'done', pr: null, summary: 's', reason: null } }),
        row({ report: { ticket: 'T', label: null, status: 'done', pr: null, summary: 's', reason: null } }),
      ),
      true,
    );
    assert.equal(sameRow(a, row({ retrying: 'retrying (attempt 2)' })), false);
    assert.equal(sameRow(a, row({ retrying: undefined })), true, 'an absent optional field equals undefined');
  });
});
