// Act once, only on what is still true. Every POST of an action (abort, prompt_async, the replies
// to a permission or a question) goes through `actOnce`: it takes the session's lock (one actor
// at a time per session on this machine), re-reads the session's state and its newest message
// (limit=1) and compares them with the samples the decision rests on. When either moved (a newer
// message of any role, another state, the session gone) it refuses as stale and sends nothing;
// otherwise it POSTs while still holding the lock, so the next actor's re-read sees the result.
// An operator act holds that lock for the whole act (src/core/operations/act-lock.ts) and hands
// the action a locker that knows it: actOnce then runs under it without taking it again.
import type { MessageSnapshot, SessionSnapshot, SessionState } from '../model';
import { sessionLockerFor, type SessionLocker } from '../state/session-locker';
import { stateDir } from '../state/state-dir';
import { callOpts, readSession, type ActionContext } from './executor-context';

/** The samples a decision rests on: the session's state and newest message when it was taken. */
export interface DecisionBasis {
  state: SessionState;
  newestId: string | null;
  newestRole: string | null;
}

export type ActRefusalCode = 'stale' | 'busy';

export interface ActRefusal {
  code: ActRefusalCode;
  /** Readable: what moved ("newest message now msg_…, by user") or who holds the lock. */
  reason: string;
}

/** What the re-read under the lock found (the POST may use it as its own facts). */
export interface FreshRead {
  session: SessionSnapshot;
  newest: MessageSnapshot | null;
}

export type ActOutcome<T> = { acted: true; value: T; fresh: FreshRead } | { acted: false; refusal: ActRefusal };

export function basisOf(session: Pick<SessionSnapshot, 'state'>, newest: MessageSnapshot | null): DecisionBasis {
  return { state: session.state, newestId: newest?.id ?? null, newestRole: newest?.role ?? null };
}

/** Why the fresh read no longer supports the decision, or null when nothing moved. */
export function movedSince(basis: DecisionBasis, fresh: FreshRead): string | null {
  const newestId = fresh.newest?.id ?? null;
  const parts: string[] = [];
  if (newestId !== basis.newestId)
    parts.push(
      newestId
        ? `newest message now ${newestId}, by ${fresh.newest?.role ?? 'unknown'} (was ${basis.newestId ?? 'none'})`
        : `it has no newest message now (was ${basis.newestId})`,
    );
  if (fresh.session.state !== basis.state) parts.push(`state now ${fresh.session.state} (was ${basis.state})`);
  return parts.length ? `the session moved since the decision: ${parts.join('; ')}` : null;
}

const processLockers = new Map<string, SessionLocker>();

/**
 * The context's locker, else the machine-wide one of this process's state directory
 * (SESSION_OPS_STATE_DIR, XDG_STATE_HOME, HOME), so that a caller that names none still takes turns.
 */
export function lockerOf(ctx: ActionContext): SessionLocker {
  return machineLocker(ctx.locker);
}

/** `locker`, else the machine-wide locker of this process's state directory. */
export function machineLocker(given?: SessionLocker): SessionLocker {
  if (given) return given;
  const dir = stateDir(process.env) ?? '';
  let locker = processLockers.get(dir);
  if (!locker) {
    locker = sessionLockerFor(dir === '' ? null : dir);
    processLockers.set(dir, locker);
  }
  return locker;
}

/**
 * Holds the session's lock, re-reads it, and runs `post` only when nothing moved since `basis`.
 * `purpose` names the action for a waiting actor. Backend errors of the re-read propagate.
 */
export async function actOnce<T>(
  ctx: ActionContext,
  sessionId: string,
  basis: DecisionBasis,
  purpose: string,
  post: (fresh: FreshRead) => Promise<T>,
): Promise<ActOutcome<T>> {
  const locked = await lockerOf(ctx).withSessionLock(
    sessionId,
    { purpose, waitMs: ctx.lockWaitMs, signal: ctx.signal },
    async (): Promise<ActOutcome<T>> => {
      const [session, newest] = await Promise.all([
        readSession(ctx, sessionId),
        ctx.backend.newestMessage(ctx.directory, sessionId, callOpts(ctx)),
      ]);
      if (!session)
        return {
          acted: false,
          refusal: { code: 'stale', reason: `the session moved since the decision: ${sessionId} is no longer listed` },
        };
      const fresh = { session, newest };
      const moved = movedSince(basis, fresh);
      if (moved) return { acted: false, refusal: { code: 'stale', reason: moved } };
      return { acted: true, value: await post(fresh), fresh };
    },
  );
  return locked.acquired ? locked.value : { acted: false, refusal: { code: 'busy', reason: locked.reason } };
}
