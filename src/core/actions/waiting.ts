// The check below abort-and-wake and recovery: a session that waits for a person (a pending
// permission or question on stock opencode) is never aborted as part of a wake or a recovery,
// since the abort would throw the request away. A plain, explicit abort order stays possible
// (abortSession does not ask). A backend without pending requests has none to protect.
import type { WaitingRequest } from '../model';
import { callOpts, type ActionContext } from './executor-context';

/** The pending request of the session, read now (null when none or the backend has no such list). */
export async function pendingRequestOf(ctx: ActionContext, sessionId: string): Promise<WaitingRequest | null> {
  if (!ctx.backend.pendingRequests) return null;
  const pending = await ctx.backend.pendingRequests(ctx.directory, callOpts(ctx));
  return [...pending.permissions, ...pending.questions].find((r) => r.sessionID === sessionId) ?? null;
}

/** Why an abort that is part of `what` (wake, recovery) is refused, or null when it may go ahead. */
export function waitingReason(sessionId: string, request: WaitingRequest, what: string): string {
  return (
    `session ${sessionId} waits for a person (a pending ${request.kind}: ${request.title}): ` +
    `${what} does not abort it, because the abort would throw the ${request.kind} away; ` +
    'answer it instead (or order a plain abort)'
  );
}
