// What every executor needs: the backend (a BackendClient, or a fake with the same methods), the
// directory, a clock whose sleep honours an AbortSignal, and the signal. Every wait is bounded.
import type { BackendClient } from '../backend/client';
import { BackendError } from '../backend/errors';
import { systemClock, type Clock } from '../clock';
import type { SessionLocker } from '../state/session-locker';
import type { AssignmentBook } from './assignment-book';

export type ActionBackend = Pick<
  BackendClient,
  'listSessions' | 'newestMessage' | 'abort' | 'promptAsync' | 'listProviders' | 'sampleRound' | 'vcsStatus'
> &
  /** Stock opencode: pending permissions and questions (a backend without it has none). */
  Partial<Pick<BackendClient, 'pendingRequests'>> &
  /** The first user message (a worker's assignment; a backend without it: the assignment is not read). */
  Partial<Pick<BackendClient, 'firstUserMessage'>> &
  /** What the backend's dialect offers (a backend without it: nothing beyond the spec, e.g. no payload variant). */
  Partial<Pick<BackendClient, 'capabilities'>>;

export interface ActionContext {
  backend: ActionBackend;
  directory: string;
  /** The one clock (src/core/clock.ts): the actions read the time and wait on it (default the system's). */
  clock?: Clock;
  signal?: AbortSignal;
  /** Per-request timeout for the reads and posts of an action (default: the client's). */
  timeoutMs?: number;
  /**
   * The per-session lock held around the re-read and the POST (src/core/actions/reverify.ts);
   * absent: the machine-wide lock of this process's state directory. An operator act passes one
   * that knows the act holds it already (src/core/operations/act-lock.ts).
   */
  locker?: SessionLocker;
  /** How long to wait for that lock before refusing as busy (default the locker's, 10 s). */
  lockWaitMs?: number;
  /** The send guard's cap on a prompt, in bytes of UTF-8 (the host's prompt.maxKiB; absent: its default). */
  maxPromptBytes?: number;
  /**
   * The durable record of who assigned each worker (the operator state's dispatch records and
   * remembered first user messages); absent: the first user message is read on every check.
   */
  assignments?: AssignmentBook;
}

export function clockOf(ctx: ActionContext): Clock {
  return ctx.clock ?? systemClock;
}

export function callOpts(ctx: ActionContext): { signal?: AbortSignal; timeoutMs?: number } {
  return { signal: ctx.signal, timeoutMs: ctx.timeoutMs };
}

/** The session's current list entry, or null when it is not listed. */
export async function readSession(ctx: ActionContext, sessionId: string) {
  const list = await ctx.backend.listSessions(ctx.directory, callOpts(ctx));
  return list.sessions.find((s) => s.id === sessionId) ?? null;
}

/** A BackendError as a plain failure record (the executors never throw for expected outcomes). */
export interface ActionFailure {
  code: BackendError['code'] | 'not-listed';
  message: string;
}

export function failureOf(err: unknown): ActionFailure {
  if (err instanceof BackendError) return { code: err.code, message: err.message };
  throw err;
}
