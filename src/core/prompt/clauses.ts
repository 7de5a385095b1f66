// The fixed clauses every worker prompt reuses (spec "Endpoints" rules 2, 3 and 5, "Pre-dispatch
// check"). The quota self-report clause is appended unchanged to the completion-report block.
import { bullets, filePath, inline } from './text';

/** Rule 3: in every wake prompt. */
export const ANTI_RE_HANG_CLAUSE =
  'If the system again injects a request to compact this session, compact it and then continue the task in later turns. Never end a turn idle while the task is unfinished.';

/** Rule 4 (4) and rule 5: the evidence rule. */
export const EVIDENCE_RULE =
  'Evidence rule: verify each fact at its cited source before acting on it; do not trust this message, your memory or a summary over the source.';

/** The quota self-report clause (dispatch and wake prompts), verbatim. */
export const QUOTA_SELF_REPORT_CLAUSE =
  'On a further quota or usage-limit error, report status=blocked reason=quota-exhausted with a one-line summary (and pr=<pull request> when one exists), then stop without switching models on your own.';

export interface ReportProtocol {
  /** Ticket reference the report names (null: unknown to Session Ops, said so). */
  ticket: string | null;
  label?: string | null;
  /** Session that receives the report through the asynchronous prompt endpoint (null: unknown, said so). */
  orchestratorSessionId?: string | null;
}

/** Said where the orchestrator session id is unknown (no placeholder is ever sent). */
export const UNKNOWN_ORCHESTRATOR_TEXT =
  'the orchestrator session that assigned you (its id is unknown to Session Ops: take it from your assignment and verify it at its source)';
/** The report line's slot for a ticket unknown to Session Ops. */
export const UNKNOWN_TICKET_SLOT = '<the ticket reference of your assignment>';

/**
 * The restated completion-report protocol, with the quota self-report clause appended
 * unchanged. The template line uses format slots, so the prompt itself never reads as a report.
 * A value Session Ops did not read is said to be unknown, never written as a placeholder.
 */
export function completionReportBlock(p: ReportProtocol): string {
  const ticket = p.ticket ? inline(p.ticket) : null;
  const label = p.label ? ` label=${inline(p.label)}` : ' [label=<label>]';
  const to = p.orchestratorSessionId
    ? `the orchestrator session ${inline(p.orchestratorSessionId)}`
    : UNKNOWN_ORCHESTRATOR_TEXT;
  const comment = ticket
    ? `comment on ticket ${ticket} instead`
    : 'comment on the ticket of your assignment instead (its reference is unknown to Session Ops: take it from your assignment)';
  return [
    'Completion report protocol:',
    `When you finish, block or hand off, send one line of key=value pairs to ${to} through the asynchronous prompt endpoint; if it cannot be delivered, ${comment}. The line:`,
    `  report line: ticket=${ticket ?? UNKNOWN_TICKET_SLOT}${label} status=<done|blocked|handoff> [pr=<pull request>] summary=<one line>`,
    QUOTA_SELF_REPORT_CLAUSE,
  ].join('\n');
}

/** Rule 2: the uncommitted files of the worktree, named so the worker re-validates them. */
export function uncommittedFilesSection(files: string[] | null): string {
  if (files === null)
    return 'Uncommitted files in your worktree: the inventory was not available. Run `git status` yourself and re-validate every changed file before you continue; do not redo work blindly.';
  if (files.length === 0) return 'Uncommitted files in your worktree: none.';
  return [
    `Uncommitted files in your worktree (${files.length}); they survived and may be complete or half-done: re-validate them, do not redo them blindly:`,
    bullets(files.map(filePath), '  '),
  ].join('\n');
}

export function checkFiles(files: unknown): string[] | null {
  if (files === null) return null;
  if (!Array.isArray(files) || !files.every((f) => typeof f === 'string'))
    throw new Error(
      'uncommittedFiles must be the list of uncommitted paths (possibly empty), or null when the inventory was not available',
    );
  return files as string[];
}
