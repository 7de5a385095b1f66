// Reads the cost and token figures of stock opencode 1.18: a Session in the list and each assistant
// message carry `cost` (USD) and `tokens` {input, output, reasoning, cache: {read, write}}. A
// figure that is missing, negative or not a finite number makes the whole record unreported
// (null), never 0.
import type { SessionCost, TokenCounts } from '../../model';
import { isObj, type Obj } from './shape';

function count(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;
}

/** `tokens` of a session or a message; null when absent or malformed. */
export function readTokens(raw: unknown): TokenCounts | null {
  if (!isObj(raw)) return null;
  const cache = isObj(raw.cache) ? raw.cache : {};
  const input = count(raw.input);
  const output = count(raw.output);
  if (input === null || output === null) return null;
  return {
    input,
    output,
    reasoning: count(raw.reasoning) ?? 0,
    cacheRead: count(cache.read) ?? 0,
    cacheWrite: count(cache.write) ?? 0,
  };
}

/** A record's own `cost` and `tokens` (a Session, or an assistant message's info); null when not reported. */
export function readCost(record: Obj, messages: number | null = null): SessionCost | null {
  const usd = count(record.cost);
  const tokens = readTokens(record.tokens);
  if (usd === null || tokens === null) return null;
  return { usd, tokens, messages };
}
