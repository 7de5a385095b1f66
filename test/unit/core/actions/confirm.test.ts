// A wake is confirmed by a newer assistant message, or by the session reading generating AND
// moving across two reads; one `generating` read is no proof.
import assert from 'node:assert/strict';
import { confirmStarted } from '../../../../src/core/actions/confirm';
import type { ActionContext } from '../../../../src/core/actions/executor-context';
import { ManualClock } from '../../../support/manual-clock';
import type { MessageSnapshot, Progress, SessionSnapshot } from '../../../../src/core/model';

const T0 = Date.UTC(2026, 0, 5, 12);

const userMsg: MessageSnapshot = {
  id: 'msg_2',
  role: 'user',
  finish: null,
  text: 'wake up',
  failure: null,
  providerID: null,
  modelID: null,
  createdAt: null,
  completedAt: null,
};

/** A backend whose session reads generating with the given progress per read, newest message fixed. */
function ctxReading(progressPerRead: Array<Progress | null>): ActionContext {
  let reads = 0;
  const session = (): SessionSnapshot => ({
    id: 'ses_1',
    title: null,
    state: 'generating',
    retry: null,
    progress: progressPerRead[Math.min(reads++, progressPerRead.length - 1)],
    updatedAt: null,
  });
  const backend = {
    listSessions: async () => ({ dialect: 'spec' as const, sessions: [session()], warnings: [] }),
    newestMessage: async () => userMsg,
  };
  return { backend: backend as unknown as ActionContext['backend'], directory: '/w', clock: new ManualClock(T0) };
}

describe('confirmStarted: one generating read is no proof', () => {
  it('generating with nothing moving across reads is not confirmed', async () => {
    const frozen = { stepCount: 3, lastStepAt: T0 - 60_000 };
    const c = await confirmStarted(ctxReading([frozen]), 'ses_1', 'msg_1', { withinMs: 5_000, pollMs: 500 });
    assert.equal(c.confirmed, false);
  });

  it('generating and moving across two reads is confirmed (by generating)', async () => {
    const c = await confirmStarted(
      ctxReading([
        { stepCount: 3, lastStepAt: T0 - 60_000 },
        { stepCount: 4, lastStepAt: T0 + 1_000 },
      ]),
      'ses_1',
      'msg_1',
      { withinMs: 5_000, pollMs: 500 },
    );
    assert.deepEqual([c.confirmed, c.by], [true, 'generating']);
  });

  it('generating without progress on either read (no signal) and the newest id frozen is not confirmed', async () => {
    const c = await confirmStarted(ctxReading([null]), 'ses_1', 'msg_1', { withinMs: 5_000, pollMs: 500 });
    assert.equal(c.confirmed, false);
  });
});
