// Which sessions a command may act on (the pick list when none was clicked), and when a person
// must confirm first. The host asks; the rules live here once.
import type { SessionRow } from '../monitor/row';

export type TargetedCommand = 'abort' | 'wake' | 'abortAndWake' | 'recover' | 'wakeWithPrompt' | 'dispatch';

export const QUALIFIES: Record<TargetedCommand, (row: SessionRow) => boolean> = {
  abort: (r) => r.state === 'generating',
  wake: (r) => r.state === 'idle',
  abortAndWake: (r) => r.verdict === 'hung',
  recover: (r) => r.quotaWall !== null,
  wakeWithPrompt: (r) => r.state === 'idle' || r.verdict === 'hung',
  dispatch: (r) => r.state === 'idle',
};

/** Why an abort needs a person's confirmation (it has no settled hung verdict), or null. */
export function abortNeedsConfirmation(row: SessionRow): string | null {
  if (row.verdict === 'hung') return null;
  const why = row.verdict === 'healthy' ? 'It reads healthy: it is still working.' : 'It has no settled hung verdict.';
  return `Abort "${row.title ?? row.id}"? ${why} Files it already wrote survive; prompts queued before the abort may never fire.`;
}

/** Why an abort-and-wake needs a person's confirmation, or null. */
export function abortAndWakeNeedsConfirmation(row: SessionRow): string | null {
  return row.verdict === 'hung'
    ? null
    : `"${row.title ?? row.id}" has no settled hung verdict. Abort it and wake it anyway?`;
}

/** Whom a prompt speaks for, as the log and a confirmation say it. */
export function speaksFor(orchestrator: string | null): string {
  return orchestrator ? `speaks for orchestrator ${orchestrator}` : 'names no orchestrator (the worker fills it in)';
}

/** Why a session must not be aborted at all (it waits for a person: answer it instead), or null. */
export function abortRefusal(row: SessionRow): string | null {
  return row.waiting || row.verdict === 'waiting'
    ? `"${row.title ?? row.id}" is waiting for a person: answer it instead (aborting would throw the question away)`
    : null;
}
