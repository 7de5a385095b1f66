// abortSession: POST abort (holding the session's lock, only when nothing moved since the
// decision's samples: reverify.ts), then read the session list until the session reads idle (spec
// Endpoints rule 1). Idle is confirmed only by a read; polling is gentle (backing off) and
// bounded by `waitMs`. Never throws for expected outcomes: a backend failure is in the result.
import { callOpts, clockOf, failureOf, readSession, type ActionContext, type ActionFailure } from './executor-context';
import { actOnce, basisOf, type ActRefusal, type DecisionBasis } from './reverify';
import { BackendError } from '../backend/errors';
import { deliveryOfFailure, type Delivery } from './send';
import { queuedPromptOf, type QueuedPrompt } from '../prompt/queued';

/** What a plain abort says of the prompt queued before it: its text, for a person to re-send; or null when none was seen. */
export function queuedNote(q: QueuedPrompt | null): string | null {
  if (!q) return null;
  if (q.text === null)
    return `a prompt was queued before the abort (message ${q.messageId}) and never ran, but its text could not be read (${q.why}): re-send it`;
  return `a prompt queued before the abort (message ${q.messageId}) never ran: re-send it; its text: ${JSON.stringify(q.text)}`;
}

export interface AbortOptions {
  /** How long to read for idle after the POST (default 60 s). */
  waitMs?: number;
  /** First pause between reads (default 250 ms); it grows to at most maxPollMs. */
  pollMs?: number;
  maxPollMs?: number;
  /** The samples the decision to abort rests on; absent: a read made right before (an explicit order). */
  basis?: DecisionBasis;
}

export type AbortOutcome = 'idle' | 'not-idle' | 'not-listed' | 'refused' | 'error';

export interface AbortResult {
  session: string;
  /** True only once a read of the session list showed it idle after the POST. */
  idle: boolean;
  outcome: AbortOutcome;
  /** Session-list reads made after the POST. */
  reads: number;
  error: ActionFailure | null;
  /** Why nothing was sent (outcome refused): the session moved since the decision, or another actor held it. */
  refusal: ActRefusal | null;
  /** Whether the abort POST reached the backend: "unknown" when it was made and its answer never came. */
  sent: Delivery;
  /**
   * A prompt queued before the abort, as the read right before it showed (the newest message, a
   * user message): a plain abort does not re-send it, so the result names it for a person to.
   * Null when none was seen, or when the caller brought its own basis (a wake re-sends it).
   */
  queued: QueuedPrompt | null;
  /** Readable summary (names prompts queued before the abort as possibly lost). */
  message: string;
}

export const QUEUED_PROMPTS_NOTE = 'prompts queued before the abort may never fire: re-send them';

export async function abortSession(
  ctx: ActionContext,
  sessionId: string,
  options: AbortOptions = {},
): Promise<AbortResult> {
  const clock = clockOf(ctx);
  const waitMs = options.waitMs ?? 60_000;
  let pause = options.pollMs ?? 250;
  const maxPause = options.maxPollMs ?? 2_000;
  let reads = 0;
  const posted: { sent: Delivery } = { sent: false };
  let queued: QueuedPrompt | null = null;
  const result = (outcome: AbortOutcome, message: string, error: ActionFailure | null = null): AbortResult => ({
    session: sessionId,
    idle: outcome === 'idle',
    outcome,
    reads,
    error,
    refusal: null,
    sent: posted.sent,
    queued,
    message,
  });
  try {
    let basis = options.basis;
    if (!basis) {
      const [s, newest] = await Promise.all([
        readSession(ctx, sessionId),
        ctx.backend.newestMessage(ctx.directory, sessionId, callOpts(ctx)),
      ]);
      if (!s) return result('not-listed', `session ${sessionId} is not listed in this directory; nothing sent`);
      basis = basisOf(s, newest);
      queued = queuedPromptOf(newest);
    }
    const acted = await actOnce(ctx, sessionId, basis, 'abort', async () => {
      try {
        await ctx.backend.abort(ctx.directory, sessionId, callOpts(ctx));
        posted.sent = true;
      } catch (err) {
        if (err instanceof BackendError) posted.sent = deliveryOfFailure(err);
        throw err;
      }
    });
    if (!acted.acted)
      return {
        ...result('refused', `refused, nothing sent: ${acted.refusal.reason}`),
        refusal: acted.refusal,
      };
    const deadline = clock.now() + waitMs;
    for (;;) {
      const s = await readSession(ctx, sessionId);
      reads++;
      if (!s) return result('not-listed', `aborted ${sessionId}, but it is no longer listed: idle cannot be confirmed`);
      if (s.state === 'idle')
        return result('idle', `aborted ${sessionId}; it reads idle (${queuedNote(queued) ?? QUEUED_PROMPTS_NOTE})`);
      const left = deadline - clock.now();
      if (left <= 0)
        return result(
          'not-idle',
          `aborted ${sessionId}, but it still reads ${s.state} after ${Math.round(waitMs / 1000)} s`,
        );
      await clock.sleep(Math.min(pause, left), ctx.signal);
      pause = Math.min(maxPause, Math.round(pause * 1.5));
    }
  } catch (err) {
    const f = failureOf(err);
    const sent = posted.sent;
    const said =
      sent === 'unknown'
        ? `the abort of ${sessionId} was sent but its answer never came (${f.message}): whether it was taken is unknown`
        : sent
          ? `aborted ${sessionId}, but reading it afterwards failed: ${f.message}`
          : `abort of ${sessionId} failed: ${f.message}`;
    return result('error', said, f);
  }
}
