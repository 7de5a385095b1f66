// Whom a prompt speaks for, and which ticket its completion-report block names (spec Authority
// rules). Orchestrator: the flag, else SESSION_OPS_ORCHESTRATOR. Ticket: the flag, else a ticket
// named by the session's title or its newest user message. Missing values never refuse: the
// block is then written for the worker to fill. A warning is raised when the worker's newest user
// message names another orchestrator.
import type { ReportProtocol } from '../prompt/clauses';

export interface AuthorityInput {
  ticket?: string | null;
  label?: string | null;
  orchestrator?: string | null;
  env?: Record<string, string | undefined>;
  sessionTitle?: string | null;
  /** Text of the worker's newest user message, when the newest message is one. */
  newestUserText?: string | null;
}

export interface Authority {
  report: ReportProtocol;
  /** The orchestrator session id the prompt speaks for (null: the worker fills it). */
  orchestrator: string | null;
  ticket: string | null;
  ticketSource: 'flag' | 'title' | 'message' | null;
  orchestratorSource: 'flag' | 'env' | null;
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
    warnings.push(
      orchestrator
        ? `the worker's newest user message names orchestrator ${named}, but this prompt speaks for ${orchestrator}: verify which session holds the orchestrating authority before sending`
        : `the worker's newest user message names orchestrator ${named}; this prompt names none (set --orchestrator or SESSION_OPS_ORCHESTRATOR)`,
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
    warnings,
  };
}
