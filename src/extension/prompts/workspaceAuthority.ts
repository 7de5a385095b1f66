// Whom prompts speak for, remembered per workspace: the orchestrator session id (Set
// Orchestrator...) and the ticket of each session a task was dispatched to. The operator asks
// through `of(row)`.
import type * as vscode from 'vscode';
import type { SessionRow } from '../../core/monitor/row';

const ORCHESTRATOR_KEY = 'sessionOps.orchestratorSessionId';
const TICKETS_KEY = 'sessionOps.tickets';

export class WorkspaceAuthority {
  constructor(private readonly state: vscode.Memento) {}

  orchestrator(): string | null {
    return this.state.get<string>(ORCHESTRATOR_KEY) ?? null;
  }

  async setOrchestrator(id: string | null): Promise<void> {
    await this.state.update(ORCHESTRATOR_KEY, id ?? undefined);
  }

  ticket(rowKey: string): string | null {
    return this.state.get<Record<string, string>>(TICKETS_KEY, {})[rowKey] ?? null;
  }

  async setTicket(rowKey: string, ticket: string): Promise<void> {
    await this.state.update(TICKETS_KEY, {
      ...this.state.get<Record<string, string>>(TICKETS_KEY, {}),
      [rowKey]: ticket,
    });
  }

  of(row: SessionRow): { orchestrator: string | null; ticket: string | null } {
    return { orchestrator: this.orchestrator(), ticket: this.ticket(row.key) };
  }
}
