// answerRequest: the reply to a pending permission or question of a session waiting for a person
// goes through the same act-once path as every POST (reverify.ts): under the session's lock, the
// session is re-read and the request must still be pending (another window or a CLI run may have
// answered it); only then the reply is POSTed.
import { callOpts, failureOf, readSession, type ActionContext, type ActionFailure } from './executor-context';
import { actOnce, basisOf, type ActRefusal, type DecisionBasis } from './reverify';

export interface AnswerRequest {
  sessionId: string;
  requestID: string;
  /** The samples the decision rests on; absent: a read made right before. */
  basis?: DecisionBasis | null;
  /** POSTs the reply (replyPermission, replyQuestion or rejectQuestion of the backend client). */
  send: () => Promise<unknown>;
}

export type AnswerResult =
  | { outcome: 'answered' }
  | { outcome: 'refused'; refusal: ActRefusal; message: string }
  | { outcome: 'error'; error: ActionFailure; message: string };

export async function answerRequest(ctx: ActionContext, req: AnswerRequest): Promise<AnswerResult> {
  const id = req.sessionId;
  try {
    let basis = req.basis ?? null;
    if (!basis) {
      const [session, newest] = await Promise.all([
        readSession(ctx, id),
        ctx.backend.newestMessage(ctx.directory, id, callOpts(ctx)),
      ]);
      if (!session)
        return {
          outcome: 'refused',
          refusal: { code: 'stale', reason: `${id} is no longer listed` },
          message: `refused, nothing sent: session ${id} is no longer listed`,
        };
      basis = basisOf(session, newest);
    }
    const acted = await actOnce(ctx, id, basis, 'answer', async (): Promise<'sent' | 'gone'> => {
      if (ctx.backend.pendingRequests) {
        const pending = await ctx.backend.pendingRequests(ctx.directory, callOpts(ctx));
        if (![...pending.permissions, ...pending.questions].some((r) => r.requestID === req.requestID)) return 'gone';
      }
      await req.send();
      return 'sent';
    });
    if (!acted.acted)
      return { outcome: 'refused', refusal: acted.refusal, message: `refused, nothing sent: ${acted.refusal.reason}` };
    if (acted.value === 'gone') {
      const reason = `the session moved since the decision: request ${req.requestID} is no longer pending (answered elsewhere?)`;
      return { outcome: 'refused', refusal: { code: 'stale', reason }, message: `refused, nothing sent: ${reason}` };
    }
    return { outcome: 'answered' };
  } catch (err) {
    const error = failureOf(err);
    return { outcome: 'error', error, message: `answer not sent: ${error.message}` };
  }
}
