// /api/status of watch: each session says why automatic mode leaves it alone (`automaticSkip`,
// the operator's), null when it is in its charge; the one-shot `status` (no operator) says null.
import assert from 'node:assert/strict';
import { assessSession } from '../../../../src/core/health/assess';
import type { SessionRow } from '../../../../src/core/monitor/row';
import type { BackendState } from '../../../../src/core/monitor/sessionMonitor';
import { backendStatuses } from '../../../../src/core/watch/status';
import { sessionRow } from '../../../support/session-rows';
import { T0, sample } from '../health/fixtures';

function rowOf(id: string, parentId: string | null = null): SessionRow {
  const s = sample({ id, state: 'idle' });
  s.session.parentId = parentId;
  const assessment = assessSession([s], { providers: [], connected: [] }, { now: T0 });
  return sessionRow({ id, parentId, assessment });
}

describe('watch /api/status: automaticSkip', () => {
  it("per session the operator's reason, null in its charge; without an operator null for all", () => {
    const state: BackendState = {
      config: { key: 'http://a/', name: 'a', baseUrl: 'http://a', directories: ['/w'], insecure: false },
      status: 'ok',
      error: null,
      dialect: 'opencode',
      directories: [
        {
          directory: '/w',
          rows: [rowOf('ses_p'), rowOf('ses_c', 'ses_p')],
          error: null,
          partialErrors: [],
          truncated: null,
        },
      ],
      providers: null,
      providersError: null,
      allFreeAt: null,
      eventStream: null,
      lastRoundAt: T0,
    };
    const skip = (r: SessionRow) => (r.parentId ? { reason: 'sub-agent', text: `sub-agent of ${r.parentId}` } : null);
    const [doc] = backendStatuses([state], T0, 0, skip)[0].documents;
    assert.deepEqual(
      doc.sessions.map((s) => [s.id, s.automaticSkip]),
      [
        ['ses_p', null],
        ['ses_c', { reason: 'sub-agent', text: 'sub-agent of ses_p' }],
      ],
    );
    const [plain] = backendStatuses([state], T0)[0].documents;
    assert.deepEqual(
      plain.sessions.map((s) => s.automaticSkip),
      [null, null],
    );
  });
});
