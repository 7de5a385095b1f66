// Whom a prompt speaks for, and which ticket its completion-report block names (spec Authority
// rules). Orchestrator: the flag, else SESSION_OPS_ORCHESTRATOR. Ticket: the flag, else a ticket
// named by the session's title or its newest user message. Missing values never refuse: the
// block then says they are unknown to Session Ops (never a placeholder) for the worker to take
// from its assignment. A warning is raised when the worker's newest user
// message names another orchestrator; for a fact baseline or a dispatch (re-tasking the worker)
// that mismatch is a refusal unless the person confirms they hold the orchestrating authority
// (authority rule 1: `retaskRefusal`). The same holds whatever the newest message is: the
// orchestrator of the worker's durable record (assignment.ts: its dispatch record, else its first
// user message) is compared too, and without an orchestrator of its own a prompt's report goes to
// that recorded one rather than to a placeholder.
import type { ReportProtocol } from '../prompt/clauses';
import type { Assigner } from './assignment-book';

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
  /** Who assigned the worker, from the durable record (assignment.ts readAssigner); absent: not read. */
  assigned?: Assigner | null;
}

export interface Authority {
  report: ReportProtocol;
  /** The orchestrator session id the prompt speaks for (null: the worker fills it). */
  orchestrator: string | null;
  ticket: string | null;
  ticketSource: 'flag' | 'title' | 'message' | 'record' | null;
  orchestratorSource: 'flag' | 'env' | null;
  /** The orchestrator the worker's newest assignment names, if any. */
  named: string | null;
  /** Who assigned the worker per the durable record (its dispatch record, else its first user message); null: not read. */
  recorded: Assigner | null;
  /** The worker's assignment (newest, or recorded) names another orchestrator than the one this prompt speaks for. */
  mismatch: boolean;
  /** The person confirmed holding the orchestrating authority (editor dialog, --i-hold-authority). */
  held: boolean;
  warnings: string[];
}

/**
 * Placeholders a person fills in a document (never sent: the send guard refuses a prompt that
 * still carries one). A composed prompt says an unknown value is unknown instead (clauses.ts).
 */
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

/**
 * The orchestrator a prompt's completion-report block sends the reports to ("... to the
 * orchestrator session X through the asynchronous prompt endpoint"), or null when it has no block.
 */
export function reportTargetIn(text: string | null | undefined): string | null {
  if (!text) return null;
  const m = /\bto the orchestrator session (\S+) through the asynchronous prompt endpoint/.exec(text);
  return m && m[1] !== ORCHESTRATOR_PLACEHOLDER.split(' ')[0] && !m[1].startsWith('<') ? m[1] : null;
}

function mismatchOf(orchestrator: string | null, named: string | null, recorded: Assigner | null): boolean {
  const other = (o: string | null | undefined) => !!o && o !== orchestrator;
  return other(named) || other(recorded?.orchestrator);
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
  const recorded = input.assigned ?? null;
  const base: Authority = {
    report: {
      ticket,
      label: clean(input.label),
      orchestratorSessionId: orchestrator,
    },
    orchestrator,
    ticket,
    ticketSource,
    orchestratorSource,
    named,
    recorded: null,
    mismatch: mismatchOf(orchestrator, named, null),
    held: input.holdsAuthority === true,
    warnings,
  };
  return recorded ? withRecord(base, recorded) : base;
}

/** The authority with the worker's recorded assigner: compared, and the report's destination when the prompt names none. */
function withRecord(a: Authority, recorded: Assigner): Authority {
  const warnings = [...a.warnings];
  const o = recorded.orchestrator;
  if (o && o !== a.orchestrator && o !== a.named)
    warnings.push(
      a.orchestrator
        ? `${sourceOf(recorded)} names orchestrator ${o}, but this prompt speaks for ${a.orchestrator}: ` +
            'verify which session holds the orchestrating authority before sending'
        : `${sourceOf(recorded)} names orchestrator ${o}; this prompt names none, so its reports go to ${o}`,
    );
  const ticket = a.ticket ?? recorded.ticket;
  return {
    ...a,
    report: {
      ...a.report,
      ticket,
      orchestratorSessionId: a.orchestrator ?? o ?? null,
    },
    ticket,
    ticketSource: a.ticketSource ?? (recorded.ticket ? 'record' : null),
    recorded,
    mismatch: mismatchOf(a.orchestrator, a.named, recorded),
    warnings,
  };
}

function sourceOf(recorded: Assigner): string {
  switch (recorded.source) {
    case 'dispatch':
      return "the worker's dispatch record";
    case 'fact-baseline':
      return 'the record of the fact baseline that re-tasked the worker';
    default:
      return "the worker's first user message";
  }
}

/**
 * The authority with the orchestrator named by the worker's newest message (when it is a user
 * message) and, when given, the worker's recorded assigner (assignment.ts readAssigner).
 */
export function assignedBy(
  authority: Authority,
  newest: { role: string; text: string } | null,
  recorded?: Assigner | null,
): Authority {
  const named = authority.named ?? (newest?.role === 'user' ? orchestratorIn(newest.text) : null);
  const a = { ...authority, named, mismatch: mismatchOf(authority.orchestrator, named, authority.recorded) };
  return recorded ? withRecord(a, recorded) : a;
}

/**
 * Authority rule 1: only the session holding the orchestrating authority may inject a fact
 * baseline or re-task a worker. Refused (the reason) when the worker's assignment names another
 * orchestrator and the person did not confirm holding the authority; null when it may be sent.
 */
export function retaskRefusal(authority: Authority, template: 'fact-baseline' | 'dispatch'): string | null {
  const reason = retaskReason(authority, template);
  return reason === null ? null : `${reason} ${RETASK_CONFIRM_HINT}`;
}

/** How a person lifts a retask refusal (the CLI's flag; the editor asks in a modal instead). */
export const RETASK_CONFIRM_HINT = 'Confirm that it holds the authority to send (CLI: --i-hold-authority)';

/** `retaskRefusal` without how to confirm: what the editor's modal says before asking. */
export function retaskReason(authority: Authority, template: 'fact-baseline' | 'dispatch'): string | null {
  if (!authority.mismatch || authority.held) return null;
  const what = template === 'fact-baseline' ? 'inject a fact baseline into' : 're-task';
  const speaks = authority.orchestrator ? `this prompt speaks for ${authority.orchestrator}` : 'this prompt names none';
  const o = authority.orchestrator;
  const newest = authority.named && authority.named !== o;
  const names = newest
    ? `the worker's newest assignment names orchestrator ${authority.named}`
    : `the worker's assignment (${authority.recorded ? sourceOf(authority.recorded).replace(/^the worker's /, 'its ') : 'recorded'}) names orchestrator ${authority.recorded?.orchestrator}`;
  return (
    `authority rule 1: ${names}, but ${speaks}; ` +
    `only the session holding the orchestrating authority may ${what} the worker.`
  );
}
