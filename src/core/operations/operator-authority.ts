// Whom an operator's prompts speak for (authority rules 1 and 2): the host's orchestrator and
// ticket for a session resolved against what the worker says, the worker's durable record (its
// dispatch record, else its first user message), and the verification of a claim before an
// automatic action. The host's `authority` callback is asked here only.
import { resolveAuthority, type Authority } from '../actions';
import { readAssigner, sourceText, type Assigner } from '../actions/assignment';
import { assignedBy } from '../actions/authority';
import type { SessionRow } from '../monitor/row';
import type { OperatorCore } from './operator-core';

export class OperatorAuthority {
  constructor(private readonly core: OperatorCore) {}

  /** What the host says a session's prompts speak for (its orchestrator and ticket). */
  given(row: SessionRow): { orchestrator: string | null; ticket: string | null } {
    return this.core.o.authority?.(row) ?? { orchestrator: null, ticket: null };
  }

  /** `holdsAuthority`: the person confirmed that the orchestrator the prompt speaks for holds the authority. */
  of(row: SessionRow, holdsAuthority = false): Authority {
    const given = this.given(row);
    return resolveAuthority({
      orchestrator: given.orchestrator,
      ticket: given.ticket,
      sessionTitle: row.title,
      newestUserText: row.evidence.latest.newestRole === 'user' ? row.newestText : null,
      holdsAuthority,
    });
  }

  /** The worker's durable record: who assigned it (read once, then remembered). */
  async assigner(row: Pick<SessionRow, 'backendKey' | 'directory' | 'id'>): Promise<Assigner> {
    const client = await this.core.client(row.backendKey);
    return readAssigner(
      { backend: client, directory: row.directory, clock: this.core.timers, assignments: this.core.assignments },
      row.id,
    );
  }

  /**
   * `of` with the worker's durable record read: what a person confirms before a fact baseline or
   * a dispatch (rule 1).
   */
  async recorded(row: SessionRow, holdsAuthority = false, shown?: Authority): Promise<Authority> {
    const speaks = shown ? { ...shown, held: holdsAuthority } : this.of(row, holdsAuthority);
    return assignedBy(speaks, null, await this.assigner(row));
  }

  /**
   * Authority rule 2: why the session is not in this operator's charge (null: verified), read from
   * the durable record now.
   */
  async verifyClaim(key: string): Promise<string | null> {
    const row = this.core.monitor.row(key);
    if (!row) return 'no longer listed';
    const speaks = this.core.o.authority?.(row).orchestrator ?? null;
    const required = this.core.o.requireOrchestrator;
    if (!speaks && required)
      return `no orchestrator session is configured (${required}): no automatic action is taken, since every prompt names the orchestrator its reports go to`;
    const assigner = await this.assigner(row);
    const here = speaks ?? 'none set here';
    if (assigner.orchestrator && assigner.orchestrator !== speaks)
      return `authority rule 2: ${sourceText(assigner.source)} names orchestrator ${assigner.orchestrator}, not the one this operator speaks for (${here})`;
    if (!assigner.orchestrator && required)
      return assigner.source === 'unread'
        ? `authority rule 2: its orchestrator could not be verified: ${assigner.detail}`
        : `authority rule 2: ${sourceText(assigner.source)} names no orchestrator, so it cannot be verified as ${here}'s`;
    return null;
  }
}

/** The host's input for a core request that takes it (`WakeRequest.authority`), from a resolved authority. */
export function authorityInput(
  authority: Authority,
  holdsAuthority: boolean,
): { orchestrator: string | null; ticket: string | null; holdsAuthority: boolean } {
  return {
    orchestrator: authority.orchestratorSource === 'flag' ? authority.orchestrator : null,
    ticket: authority.ticketSource === 'flag' ? authority.ticket : null,
    holdsAuthority,
  };
}
