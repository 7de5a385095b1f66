// How cost reads in the views: on a session row (its cost with its sub-agents', and the budget
// level), in its tooltip (cost and tokens, or "not reported by this backend"), and as the total of
// a directory or a backend (each session once). Pure text.
import type { CostedRow } from './costed-row';
import type { ProviderSpend } from './spend-ledger';
import { COST_NOT_REPORTED, COST_PENDING, formatTokens, formatUsd } from './rollup';

/** "$0.0123", "$1.20 (80 % of budget)", "$2.00 (over budget)"; "counting" while not summed yet; '' when the backend reports none. */
export function rowCostText(row: CostedRow): string {
  if (!row.cost) return row.assessment?.costPending ? 'counting' : '';
  const level = row.budgetLevel === 100 ? ' (over budget)' : row.budgetLevel === 80 ? ' (80 % of budget)' : '';
  return `${formatUsd(row.cost.usd)}${level}`;
}

/** The tooltip's cost line (markdown-safe: numbers and fixed words only). */
export function costTooltipLine(row: CostedRow): string {
  if (!row.cost) return `Cost: ${row.assessment?.costPending ? COST_PENDING : COST_NOT_REPORTED}`;
  const own = row.assessment?.cost;
  const sub = own && own.usd !== row.cost.usd ? ` (its own ${formatUsd(own.usd)}, the rest its sub-agents')` : '';
  const budget = row.budgetLevel === 100 ? ' · **over budget**' : row.budgetLevel === 80 ? ' · 80 % of its budget' : '';
  return `Cost: ${formatUsd(row.cost.usd)}${sub}${budget} · tokens: ${formatTokens(row.cost.tokens)}`;
}

/** "$1.23 spent" for a directory or backend row (each session's own cost once); '' when no session reports a cost. */
export function totalCostText(rows: readonly CostedRow[]): string {
  // Summed in place: the Sessions view asks this for the parents of changed rows.
  let usd = 0;
  let any = false;
  for (const r of rows) {
    const cost = r.assessment?.cost;
    if (!cost) continue;
    any = true;
    usd += cost.usd;
  }
  return any ? `${formatUsd(usd)} spent` : '';
}

/** "$0.12 today, $0.40 since watching began" for the Providers view; '' when nothing was spent on it. */
export function providerSpendText(spend: readonly ProviderSpend[] | undefined, providerId: string): string {
  const s = spend?.find((x) => x.provider === providerId);
  return s ? `${formatUsd(s.today)} today, ${formatUsd(s.sinceStart)} since watching began` : '';
}
