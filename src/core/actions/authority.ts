// Whom a prompt speaks for, and which ticket its completion-report block names (spec Authority
// rules). Orchestrator: the flag, else SESSION_OPS_ORCHESTRATOR. Ticket: the flag, else a ticket
// named by the session's title or its newest user message. Missing values never refuse: the
// block is then written for the worker to fill. A warning is raised when the worker's newest user
// message names another orchestrator; for a fact baseline or a dispatch (re-tasking the worker)
// that mismatch is a refusal unless the person confirms they hold the orchestrating authority
// (authority rule 1: `retaskRefusal`).
import type { ReportProtocol } from '../prompt/clauses';

export interface AuthorityInput {
  ticket?: string | null;
  label?: string | null;
  orchestrator?: string | null;
  env?: Record<string, string | undefined>;
  sessionTitle?: string | null;
  /** Text of the worker's newest user message, when the newest message is one. */
  newestUserText?: string | null;
  /** The person confirmed that the session this prompt speaks for holds the orchestrating authority. */
  holdsAuthority?: boolean;
}

export interface Authority {
  report: ReportProtocol;
  /** The orchestrator session id the prompt speaks for (null: the worker fills it). */
  orchestrator: string | null;
  ticket: string | null;
  ticketSource: 'flag' | 'title' | 'message' | null;
  orchestratorSource: 'flag' | 'env' | null;
  /** The orchestrator the worker's newest assignment names, if any. */
  named: string | null;
  /** The worker's assignment names another orchestrator than the one this prompt speaks for. */
  mismatch: boolean;
  /** The person confirmed holding the orchestrating authority (editor dialog, --i-hold-authority). */
  held: boolean;
  warnings: string[];
}

/** Placeholders the worker fills when the values are unknown. */
export const TICKET_PLACEHOLDER = '<ticket>';
export const ORCHESTRATOR_PLACEHOLDER = '<orchestrator session id>';

const TICKET_RE = /\bticket[=:]\s*([A-Za-z0-9][\w.-]*-\d+|#\d+)|\b([A-Z][A-Z0-9]+-\d+)\b/;
const ORCHESTRATOR_RE =
  /\borchestrator(?:\s+session)?(?:\s+id)?\s*[=:]?\s*(ses_[A-Za-z0-9]+|[A-Za-z0-9_-]*\d[A-Za-z0-9_-]*)/i;

export function ticketIn(text: string | null | undefined): string | null {
  if (!text) return null;
  const m = TICKET_RE.exec(text);
  return m ? (m[1] ?? m[2]) : null;
}

export function orchestratorIn(text: string | null | undefined): string | null {
  if (!text) return null;
  const m = ORCHESTRATOR_RE.exec(text);
  return m ? m[1] : null;
}

export function resolveAuthority(input: AuthorityInput): Authority {
  const clean = (v: string | null | undefined) => (v && v.trim() !== '' ? v.trim() : null);
  let orchestrator = clean(input.orchestrator);
  let orchestratorSource: Authority['orchestratorSource'] = orchestrator ? 'flag' : null;
  if (!orchestrator) {
    orchestrator = clean(input.env?.SESSION_OPS_ORCHESTRATOR);
    if (orchestrator) orchestratorSource = 'env';
  }
  let ticket = clean(input.ticket);
  let ticketSource: Authority['ticketSource'] = ticket ? 'flag' : null;
  if (!ticket) {
    ticket = ticketIn(input.sessionTitle);
    if (ticket) ticketSource = 'title';
  }
  if (!ticket) {
    ticket = ticketIn(input.newestUserText);
    if (ticket) ticketSource = 'message';
  }
  const warnings: string[] = [];
  const named = orchestratorIn(input.newestUserText);
  if (named && named !== orchestrator) {
    const names = `the worker's newest user message names orchestrator ${named}`;
    warnings.push(
      orchestrator
        ? `${names}, but this prompt speaks for ${orchestrator}: ` +
            'verify which session holds the orchestrating authority before sending'
        : `${names}; this prompt names none (set --orchestrator or SESSION_OPS_ORCHESTRATOR)`,
    );
  }
  return {
    report: {
      ticket: ticket ?? TICKET_PLACEHOLDER,
      label: clean(input.label),
      orchestratorSessionId: orchestrator ?? ORCHESTRATOR_PLACEHOLDER,
    },
    orchestrator,
    ticket,
    ticketSource,
    orchestratorSource,
    named,
    mismatch: named !== null && named !== orchestrator,
    held: input.holdsAuthority === true,
    warnings,
  };
}

/** The authority with the orchestrator named by the worker's newest message (when it is a user message). */
export function assignedBy(authority: Authority, newest: { role: string; text: string } | null): Authority {
  const named = authority.named ?? (newest?.role === 'user' ? orchestratorIn(newest.text) : null);
  return { ...authority, named, mismatch: named !== null && named !== authority.orchestrator };
}

/**
 * Authority rule 1: only the session holding the orchestrating authority may inject a fact
 * baseline or re-task a worker. Refused (the reason) when the worker's assignment names another
 * orchestrator and the person did not confirm holding the authority; null when it may be sent.
 */
export function retaskRefusal(authority: Authority, template: 'fact-baseline' | 'dispatch'): string | null {
  if (!authority.mismatch || authority.held) return null;
  const what = template === 'fact-baseline' ? 'inject a fact baseline into' : 're-task';
  const speaks = authority.orchestrator ? `this prompt speaks for ${authority.orchestrator}` : 'this prompt names none';
  return (
    `authority rule 1: the worker's newest assignment names orchestrator ${authority.named}, but ${speaks}; ` +
    `only the session holding the orchestrating authority may ${what} the worker. ` +
    'Confirm that it holds the authority to send (CLI: --i-hold-authority)'
  );
}
