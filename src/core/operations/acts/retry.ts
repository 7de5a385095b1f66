// Retry an outcome's prompt that did not go out: the same text to the same worker (a confirmation
// of the authority given for it is carried), or recovery again.
import type { ActionOutcome, RetryOf } from '../action-outcome';
import type { Acted, RecoverResult, WakeResult } from '../requests';
import type { ActRooms } from './rooms';
import { recoverAct } from './recover';
import { sendAct } from './wake';

export async function retryAct(rooms: ActRooms, outcome: ActionOutcome): Promise<Acted<WakeResult | RecoverResult>> {
  const row = rooms.core.monitor.row(outcome.rowKey);
  const retry: RetryOf | undefined = outcome.undelivered?.retry;
  if (!row) throw new Error(`session ${outcome.sessionId} is no longer listed`);
  if (!retry) throw new Error('nothing to retry');
  if (retry.via === 'recover') return recoverAct(rooms, { target: row });
  return sendAct(rooms, {
    target: row,
    text: retry.text,
    model: retry.model,
    abortFirst: retry.abortFirst,
    promptOrigin: retry.promptOrigin,
    holdsAuthority: retry.holdsAuthority === true,
  });
}
