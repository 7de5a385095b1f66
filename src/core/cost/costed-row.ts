// The part of a session row that the cost texts read. The row itself (src/core/monitor/row.ts) is
// built by the monitor, above cost (the monitor imports cost, never the reverse): a SessionRow is
// a CostedRow.
import type { SessionAssessment, SessionCost } from '../model';
import type { BudgetLevel } from './budget';

export interface CostedRow {
  backendKey: string;
  directory: string;
  /** The session's cost with its sub-agents'; absent/null: not reported by this backend. */
  cost?: SessionCost | null;
  budgetLevel?: BudgetLevel;
  /** The session's own cost, and whether it is still being counted. */
  assessment?: Pick<SessionAssessment, 'cost' | 'costPending'>;
}
