// A session's budget (budget.sessionUsd, 0 = none): the level its cost (with its sub-agents')
// reached, 80 % and 100 %, each told once per session (BudgetLevels remembers what was told).
import type { SessionCost } from '../model';

/** 0: under 80 % (or no budget, or no cost reported); 80: at 80 %; 100: reached. */
export type BudgetLevel = 0 | 80 | 100;

export const BUDGET_WARN_FRACTION = 0.8;

export function budgetLevel(cost: SessionCost | null | undefined, budgetUsd: number | null | undefined): BudgetLevel {
  if (!cost || !budgetUsd || budgetUsd <= 0) return 0;
  if (cost.usd >= budgetUsd) return 100;
  return cost.usd >= BUDGET_WARN_FRACTION * budgetUsd ? 80 : 0;
}

/** The budget levels told so far, per session key. */
export class BudgetLevels {
  private readonly told = new Map<string, BudgetLevel>();

  /** The levels `level` newly reaches for `key` (80, then 100; both at once when it jumps), and remembers them. */
  reach(key: string, level: BudgetLevel): Array<80 | 100> {
    const before = this.told.get(key) ?? 0;
    if (level <= before) return [];
    this.told.set(key, level);
    const out: Array<80 | 100> = [];
    if (before < 80 && level >= 80) out.push(80);
    if (level === 100) out.push(100);
    return out;
  }

  forget(key: string): void {
    this.told.delete(key);
  }
}
