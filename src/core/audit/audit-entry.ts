// One audit entry built from an operator action's outcome (./audit-log.ts): who, what, on which
// session, the verdict and the evidence the act rested on (the row as the operator saw it), the
// model, the prompt as a SHA-256 and its first line (never the whole text), and the outcome.
import { createHash } from 'node:crypto';
import type { ActionOutcome } from '../operations/action-outcome';
import { modelName } from '../operations/action-outcome';
import type { SessionRow } from '../monitor/row';
import type { AuditEntry, AuditWhoKind } from './audit-log';

/** The longest first line of a prompt kept. */
export const PROMPT_FIRST_LINE_CHARS = 200;

export function promptDigest(text: string | null | undefined): AuditEntry['prompt'] {
  if (text === null || text === undefined || text === '') return null;
  const first = text.split(/\r?\n/, 1)[0];
  return {
    sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
    firstLine: first.length > PROMPT_FIRST_LINE_CHARS ? `${first.slice(0, PROMPT_FIRST_LINE_CHARS)}…` : first,
  };
}

/** The evidence a row carries: the two samples and the basis of its verdict. */
export function rowEvidence(row: Pick<SessionRow, 'evidence' | 'pending' | 'badge'> & Partial<SessionRow>): unknown {
  return {
    badge: row.badge,
    basis: row.assessment?.verdictBasis ?? row.pending ?? null,
    earlier: row.evidence.earlier,
    latest: row.evidence.latest,
  };
}

export interface EntryInput {
  at: number;
  who: { kind: AuditWhoKind; name: string };
  /** The backend's name (the config's) or base URL. */
  backend: string;
  directory: string;
  outcome: ActionOutcome;
  /** The row the act rested on (null: the session was named by id, as by the CLI). */
  row: SessionRow | null;
  /** The prompt sent (or meant to be), when the action had one. */
  prompt?: string | null;
  /** The action's name when it is not the outcome's (a permission or question answer). */
  action?: string;
}

export function auditEntry(i: EntryInput): AuditEntry {
  const o = i.outcome;
  return {
    at: new Date(i.at).toISOString(),
    who: i.who,
    action: i.action ?? o.action,
    backend: i.backend,
    directory: i.directory,
    sessionId: o.sessionId,
    verdict: i.row ? (i.row.verdict ?? i.row.badge) : null,
    evidence: i.row ? rowEvidence(i.row) : null,
    model: modelName(o.model),
    prompt: promptDigest(i.prompt ?? o.undelivered?.prompt ?? null),
    outcome: { code: o.outcome, message: o.message, sent: o.sent },
  };
}
