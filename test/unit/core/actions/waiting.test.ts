// The check below abort-and-wake and recovery: a session with a pending permission or question is
// never aborted by wake --abort-first or by recover (refused, nothing posted); a plain abort order
// stays possible. The backend is a fake with the client's method shapes.
import assert from 'node:assert/strict';
import type { PendingRequests, SampleRound, SessionList } from '../../../../src/core/backend/client';
import { abortSession } from '../../../../src/core/actions/abort';
import type { ActionBackend, ActionContext } from '../../../../src/core/actions/executor-context';
import type { Clock } from '../../../../src/core/clock';
import { recoverSession } from '../../../../src/core/actions/recover';
import { wakeSession } from '../../../../src/core/actions/wake';
import type { SessionSnapshot, WaitingRequest } from '../../../../src/core/model';

const REQUEST: WaitingRequest = {
  kind: 'question',
  requestID: 'que_1',
  sessionID: 'ses_1',
  title: 'question: Colour',
  permission: null,
  questions: [],
};

function fake(pending: WaitingRequest[]) {
  const calls: string[] = [];
  let state: SessionSnapshot['state'] = 'generating';
  let t = 1_000_000;
  const session = (): SessionSnapshot => ({
    id: 'ses_1',
    title: null,
    state,
    retry: null,
    progress: null,
    updatedAt: null,
  });
  const backend: ActionBackend = {
    listSessions: async (): Promise<SessionList> => ({ dialect: 'opencode', sessions: [session()], warnings: [] }),
    newestMessage: async () => ({
      id: 'msg_1',
      role: 'assistant',
      finish: null,
      text: '',
      failure: null,
      providerID: 'local',
      modelID: 'm1',
      createdAt: null,
      completedAt: null,
    }),
    abort: async () => {
      calls.push('abort');
      state = 'idle';
    },
    promptAsync: async () => {
      calls.push('prompt');
    },
    listProviders: async () => ({
      providers: [{ id: 'local', name: null, connected: true, quota: null, models: ['m1'] }],
      connected: ['local'],
    }),
    sampleRound: async (directory: string): Promise<SampleRound> => {
      t += 45_000;
      const sample = {
        at: t,
        session: session(),
        newest: {
          id: 'msg_1',
          role: 'assistant',
          finish: null,
          text: '',
          failure: null,
          providerID: 'local',
          modelID: 'm1',
          createdAt: null,
          completedAt: null,
        },
        waiting: pending[0] ?? null,
      };
      return {
        directory,
        at: t,
        dialect: 'opencode',
        samples: [sample],
        vanished: [],
        errors: [],
        unreadable: [],
        warnings: [],
      };
    },
    vcsStatus: async () => null,
    pendingRequests: async (): Promise<PendingRequests> => ({ permissions: [], questions: pending, warnings: [] }),
  };
  const clock: Clock = {
    now: () => t,
    setTimeout: () => assert.fail('no timer in an action'),
    clearTimeout: () => undefined,
    sleep: async (ms) => void (t += ms),
  };
  const ctx: ActionContext = { backend, directory: '/w', clock };
  return { ctx, calls };
}

describe('actions: never abort a session that waits for a person', () => {
  it('wake --abort-first is refused with the reason; nothing is aborted or sent', async () => {
    const { ctx, calls } = fake([REQUEST]);
    const r = await wakeSession(ctx, {
      sessionId: 'ses_1',
      prompt: 'go on',
      model: { providerID: 'local', modelID: 'm1' },
      abortFirst: true,
    });
    assert.equal(r.outcome, 'refused');
    assert.equal(r.refusal?.code, 'waiting-for-person');
    assert.match(r.message, /waits for a person \(a pending question: question: Colour\)/);
    assert.deepEqual(calls, []);
  });

  it('recover is refused the same way (verdict waiting), nothing aborted or sent', async () => {
    const { ctx, calls } = fake([REQUEST]);
    const r = await recoverSession(ctx, {
      sessionId: 'ses_1',
      prompt: () => ({ text: 'x' }) as never,
      spacingMs: 45_000,
    });
    assert.equal(r.decision, 'refused');
    assert.equal(r.refusal?.code, 'waiting-for-person');
    assert.deepEqual(calls, []);
  });

  it('a plain abort order stays possible; without a pending request wake --abort-first aborts', async () => {
    const waiting = fake([REQUEST]);
    const aborted = await abortSession(waiting.ctx, 'ses_1', { pollMs: 1 });
    assert.equal(aborted.idle, true);
    assert.deepEqual(waiting.calls, ['abort']);
    const free = fake([]);
    const r = await wakeSession(free.ctx, {
      sessionId: 'ses_1',
      prompt: 'go on',
      model: { providerID: 'local', modelID: 'm1' },
      abortFirst: true,
      confirm: { withinMs: 1 },
    });
    assert.equal(r.aborted, true);
    assert.deepEqual(free.calls.slice(0, 2), ['abort', 'prompt']);
  });
});
