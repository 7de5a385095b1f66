// Namespaced `contextValue` strings for the tree items (GitLens' ContextValues idea): a kind
// (`sessionOps:session`, `sessionOps:backend`, ...) followed by `+flag` parts. Menus in
// package.json match them with anchored regexes, so no flag can match inside another:
//   kind:  viewItem =~ /^sessionOps:session(\+|$)/
//   flag:  viewItem =~ /^sessionOps:session\+.*\baction-wake(\+|$)/  (flags are `+`-separated)
// Pure: the views set these strings, and test/unit/core/monitor/menus.test.ts evaluates every
// `when` clause of package.json's menus against them.
import type { Action } from '../model';
import { needsAttention, type SessionRow } from './row';

export type ContextKind =
  | 'session'
  /** A session of a daemon attached with a `read` token: no act menu matches it (only Copy Session Id). */
  | 'readOnlySession'
  | 'backend'
  /** A backend shown from an attached daemon (Set Daemon Token..., Retry; no backend password). */
  | 'daemonBackend'
  | 'backendError'
  | 'directory'
  | 'message';

export const CONTEXT_PREFIX = 'sessionOps:';

/** camelCase form of an action name, for a flag (`abort-and-wake` -> `abortAndWake`). */
export function actionFlag(action: Action | string): string {
  return action.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

export function contextValueOf(kind: ContextKind, flags: Array<string | false | null | undefined>): string {
  const parts = flags.filter((f): f is string => typeof f === 'string' && f.length > 0);
  for (const p of parts) if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(p)) throw new Error(`invalid context flag "${p}"`);
  return [`${CONTEXT_PREFIX}${kind}`, ...parts].join('+');
}

export interface SessionContextExtras {
  /** An action of this extension is running on the session (abort, wake ...). */
  busy?: boolean;
  /** A retry after a reset is scheduled for the session. */
  scheduled?: boolean;
  /** A completion report seen earlier is kept although a newer message arrived. */
  keptReport?: boolean;
  /** A row of a daemon attached with a `read` token: the kind `readOnlySession`, which no act menu matches. */
  readOnly?: boolean;
  /** A row of an attached daemon (its acts, Wake with Prompt... and Dispatch... included, are the daemon's POST endpoints). */
  attached?: boolean;
}

/**
 * Flags of a session row:
 *   verdict-<healthy|idle|hung|waiting|unknown> · state-<generating|idle> · action-<camelCase action>
 *   quotaWall · report · attention · waiting-<permission|question> · busy · scheduled · attached
 */
export function sessionContextValue(row: SessionRow, extras: SessionContextExtras = {}): string {
  const waiting = row.waiting ?? null;
  return contextValueOf(extras.readOnly ? 'readOnlySession' : 'session', [
    `verdict-${row.verdict ?? 'unknown'}`,
    `state-${row.state}`,
    row.action ? `action-${actionFlag(row.action)}` : null,
    row.quotaWall ? 'quotaWall' : null,
    row.report || extras.keptReport ? 'report' : null,
    needsAttention(row) ? 'attention' : null,
    waiting ? `waiting-${waiting.kind}` : null,
    extras.busy ? 'busy' : null,
    extras.scheduled ? 'scheduled' : null,
    extras.attached ? 'attached' : null,
  ]);
}

export function backendContextValue(state: { error: boolean; insecure: boolean; attached?: boolean }): string {
  return contextValueOf(state.attached ? 'daemonBackend' : 'backend', [
    state.error ? 'error' : null,
    state.insecure ? 'insecure' : null,
  ]);
}

/** Splits a context value back into its kind and flags (tests, logs). */
export function parseContextValue(value: string): { kind: string; flags: string[] } | null {
  if (!value.startsWith(CONTEXT_PREFIX)) return null;
  const [kind, ...flags] = value.slice(CONTEXT_PREFIX.length).split('+');
  return { kind, flags };
}
