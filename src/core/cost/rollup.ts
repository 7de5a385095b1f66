// Sums of session costs. A sub-agent session (parentId) counts on its own row and toward every
// listed ancestor; the fleet total and the per-provider split count each session once (its own
// cost), so nothing is counted twice. A session whose backend reports no cost adds nothing and
// reads "not reported" (null), never 0.
import type { SessionCost, TokenCounts } from '../model';

/** One session as the sums see it. */
export interface CostEntry {
  id: string;
  parentId: string | null;
  /** The session's own cost; null: not reported by this backend. */
  cost: SessionCost | null;
  /** The provider its cost is put down to (that of its newest message); null: unknown. */
  provider: string | null;
}

/** Spend per provider and in all. */
export interface FleetCost {
  usd: number;
  byProvider: Record<string, number>;
}

/** The provider key of a cost whose provider is not known. */
export const UNKNOWN_PROVIDER = 'unknown';

export function addCosts(a: SessionCost, b: SessionCost): SessionCost {
  return {
    usd: a.usd + b.usd,
    tokens: {
      input: a.tokens.input + b.tokens.input,
      output: a.tokens.output + b.tokens.output,
      reasoning: a.tokens.reasoning + b.tokens.reasoning,
      cacheRead: a.tokens.cacheRead + b.tokens.cacheRead,
      cacheWrite: a.tokens.cacheWrite + b.tokens.cacheWrite,
    },
    messages: a.messages === null || b.messages === null ? null : a.messages + b.messages,
  };
}

/**
 * Each session's cost with its sub-agents' (every listed descendant) added; null for a session
 * that reports none and has no descendant that does. A parent chain that loops counts each
 * session once.
 */
export function rollUpCosts(entries: readonly CostEntry[]): Map<string, SessionCost | null> {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const out = new Map<string, SessionCost | null>(entries.map((e) => [e.id, e.cost]));
  for (const e of entries) {
    if (!e.cost) continue;
    const seen = new Set([e.id]);
    for (let p = e.parentId; p !== null && byId.has(p) && !seen.has(p); p = byId.get(p)!.parentId) {
      seen.add(p);
      const sum = out.get(p);
      out.set(p, sum ? addCosts(sum, e.cost) : e.cost);
    }
  }
  return out;
}

/** The spend of every session that reports a cost, in all and per provider; null when none does. */
export function fleetCost(entries: readonly CostEntry[]): FleetCost | null {
  let any = false;
  let usd = 0;
  const byProvider: Record<string, number> = {};
  for (const e of entries) {
    if (!e.cost) continue;
    any = true;
    usd += e.cost.usd;
    const key = e.provider ?? UNKNOWN_PROVIDER;
    byProvider[key] = (byProvider[key] ?? 0) + e.cost.usd;
  }
  return any ? { usd, byProvider } : null;
}

/** A cost at or past a budget (a budget of 0 or less is off). */
export function overBudget(cost: SessionCost | null | undefined, budgetUsd: number | null | undefined): boolean {
  return !!cost && !!budgetUsd && budgetUsd > 0 && cost.usd >= budgetUsd;
}

/** "$0.0123" (four decimals under a dollar, two above). */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}

/** What a view shows for a session whose backend reports no cost. */
export const COST_NOT_REPORTED = 'not reported by this backend';

/** What a view shows for a session whose messages are not summed yet (the message ledger). */
export const COST_PENDING = 'not counted yet (its messages are read over the next rounds)';

/** "1,234 in, 56 out, 0 reasoning, 0 cache read, 0 cache write". */
export function formatTokens(t: TokenCounts): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `${n(t.input)} in, ${n(t.output)} out, ${n(t.reasoning)} reasoning, ${n(t.cacheRead)} cache read, ${n(t.cacheWrite)} cache write`;
}
