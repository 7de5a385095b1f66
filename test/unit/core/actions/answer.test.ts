// The reply to a pending permission or question goes through the act-once path: sent only while
// the request is still pending and nothing moved; a request answered elsewhere is refused as stale.
import assert from 'node:assert/strict';
import { answerRequest } from '../../../../src/core/actions/answer';
import type { ActionBackend, ActionContext } from '../../../../src/core/actions/executor-context';
import { ProcessSessionLocker } from '../../../../src/core/state/session-locker';

function fakeBackend(pending: string[]): ActionBackend {
  const session = {
    id: 'ses_1',
    title: null,
    state: 'generating' as const,
    retry: null,
    progress: null,
    updatedAt: null,
  };
  const request = (requestID: string) => ({
    kind: 'permission' as const,
    requestID,
    sessionID: 'ses_1',
    title: 'permission: bash ls',
    permission: null,
  });
  return {
    listSessions: async () => ({ dialect: 'opencode', sessions: [session], warnings: [] }),
    newestMessage: async () => null,
    pendingRequests: async () => ({ permissions: pending.map(request) as never, questions: [], warnings: [] }),
  } as unknown as ActionBackend;
}

describe('answering a session waiting for a person (src/core/actions/answer.ts)', function () {
  it('sends the reply while the request is pending', async () => {
    const ctx: ActionContext = { backend: fakeBackend(['per_1']), directory: '/w', locker: new ProcessSessionLocker() };
    let sent = 0;
    const r = await answerRequest(ctx, { sessionId: 'ses_1', requestID: 'per_1', send: async () => sent++ });
    assert.deepEqual([r.outcome, sent], ['answered', 1]);
  });

  it('a request no longer pending (answered by another window) is refused as stale; nothing sent', async () => {
    const ctx: ActionContext = { backend: fakeBackend([]), directory: '/w', locker: new ProcessSessionLocker() };
    let sent = 0;
    const r = await answerRequest(ctx, { sessionId: 'ses_1', requestID: 'per_1', send: async () => sent++ });
    assert.equal(r.outcome, 'refused');
    if (r.outcome === 'refused') {
      assert.equal(r.refusal.code, 'stale');
      assert.match(r.message, /request per_1 is no longer pending/);
    }
    assert.equal(sent, 0);
  });

  it('a session that moved since the row the person saw is refused as stale', async () => {
    const ctx: ActionContext = { backend: fakeBackend(['per_1']), directory: '/w', locker: new ProcessSessionLocker() };
    let sent = 0;
    const r = await answerRequest(ctx, {
      sessionId: 'ses_1',
      requestID: 'per_1',
      basis: { state: 'generating', newestId: 'msg_9', newestRole: 'assistant' },
      send: async () => sent++,
    });
    assert.equal(r.outcome, 'refused');
    assert.equal(sent, 0);
  });
});
