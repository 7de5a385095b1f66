// Who assigned a worker (authority rules 1 and 2), read from where the assignment is: the dispatch
// record in the operator state (written when Session Ops dispatched a task or sent a fact baseline
// to the worker), else the worker's first user message, read once (the whole transcript, never a
// liveness read) and remembered in the operator state so it is not read again. A read that fails
// is said (`source: 'unread'`) and not remembered; only a cancelled action (aborted) throws.
import { orchestratorIn, ticketIn } from './authority';
import { BackendError } from '../backend/errors';
import { describeError } from '../error-message';
import { callOpts, clockOf, type ActionContext } from './executor-context';

export type { Assigner, AssignmentBook, AssignmentRecord, AssignmentSource } from './assignment-book';
import type { Assigner, AssignmentRecord } from './assignment-book';

/** How a source reads in a message ("its dispatch record", "its first user message"). */
export function sourceText(source: Assigner['source']): string {
  switch (source) {
    case 'dispatch':
      return 'its dispatch record';
    case 'fact-baseline':
      return 'the record of the fact baseline that re-tasked it';
    case 'first-message':
      return 'its first user message';
    default:
      return 'its assignment (not read)';
  }
}

/** The key a record is kept under (session ids are opaque; with the directory they name one session). */
export function assignmentKey(directory: string, sessionId: string): string {
  return JSON.stringify([directory, sessionId]);
}

/**
 * The worker's assigner: the durable record, else its first user message (then remembered).
 * Never throws: a failed read is source 'unread'.
 */
export async function readAssigner(ctx: ActionContext, sessionId: string): Promise<Assigner> {
  const book = ctx.assignments;
  try {
    const kept = book ? await book.get(ctx.directory, sessionId) : null;
    if (kept)
      return {
        orchestrator: kept.orchestrator,
        ticket: kept.ticket,
        source: kept.source,
        detail: sourceText(kept.source),
      };
  } catch (err) {
    return { orchestrator: null, ticket: null, source: 'unread', detail: `the operator state: ${describeError(err)}` };
  }
  const read = ctx.backend.firstUserMessage?.bind(ctx.backend);
  if (!read)
    return { orchestrator: null, ticket: null, source: 'unread', detail: 'the backend does not list the transcript' };
  let text: string | null;
  try {
    text = (await read(ctx.directory, sessionId, callOpts(ctx)))?.text ?? null;
  } catch (err) {
    if (err instanceof BackendError && err.code === 'aborted') throw err;
    return {
      orchestrator: null,
      ticket: null,
      source: 'unread',
      detail: `its first user message could not be read (${describeError(err)})`,
    };
  }
  // No user message at all: nothing assigned it (remembered too: the transcript is read once; a
  // dispatch Session Ops makes later is recorded over it, and the newest user message is still compared).
  const entry: AssignmentRecord = {
    directory: ctx.directory,
    sessionId,
    orchestrator: text === null ? null : orchestratorIn(text),
    ticket: text === null ? null : ticketIn(text),
    source: 'first-message',
    at: clockOf(ctx).now(),
  };
  await book?.record(entry).catch(() => undefined);
  return {
    orchestrator: entry.orchestrator,
    ticket: entry.ticket,
    source: 'first-message',
    detail: sourceText('first-message'),
  };
}

/**
 * Records that `orchestrator` assigned the worker now (a dispatch, or a fact baseline that
 * re-tasked it), unless the record already says so. A failure to write is returned, never thrown.
 */
export async function recordAssignment(
  ctx: ActionContext,
  sessionId: string,
  source: 'dispatch' | 'fact-baseline',
  orchestrator: string | null,
  ticket: string | null,
  before: Assigner | null,
): Promise<string | null> {
  const book = ctx.assignments;
  if (!book || !orchestrator) return null;
  if (before && before.source !== 'unread' && before.source !== 'first-message' && before.orchestrator === orchestrator)
    return null;
  try {
    await book.record({ directory: ctx.directory, sessionId, orchestrator, ticket, source, at: clockOf(ctx).now() });
    return null;
  } catch (err) {
    return `the assignment was not recorded: ${describeError(err)}`;
  }
}
