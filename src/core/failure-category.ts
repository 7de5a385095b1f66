// Shared by the backend layer (classifying failures on read) and the health layer; lives below both.
// Which failure category of the spec's Errors table a recorded failure belongs to, or null when
// it is no quota wall at all (an aborted turn, a tool error, a context overflow ...).
//
//   usage limit  (account_usage_limit or similar)       re-wake on another provider
//   free tier    (free_tier_limit)                       re-wake on another provider
//   rate limit   (rate_limit, account_rate_limit, 429)   re-wake on another provider
//   balance      (HTTP 402 insufficient_quota)           top-up by a human; switching is no cure
import type { FailureCategory } from './model';

/** The four metadata.reason values the spec names for usage-limit failures. */
export const QUOTA_REASONS = ['account_rate_limit', 'free_tier_limit', 'account_usage_limit', 'rate_limit'] as const;

export interface FailureFacts {
  /** Spec metadata.reason, when the failure carries one. */
  reason?: string | null;
  /** HTTP status of the failed model call (stock opencode APIError), when known. */
  statusCode?: number | null;
  /** Failure text (and, for stock opencode, the provider's response body). */
  text?: string | null;
}

const BALANCE_TEXT = /insufficient[_ ]quota|insufficient (credit|balance|funds)|credit balance is too low/i;
const FREE_TEXT = /free[- _](tier|limit|quota|usage)|free (plan|models?) limit/i;
const USAGE_TEXT =
  /usage[- _]limit|(weekly|monthly|daily|plan|account)[- ](usage[- ])?limit|limit (reached|exceeded) for (your|this) (plan|account)|quota (exceeded|reached|exhausted)|exceeded your (current )?quota/i;
const RATE_TEXT = /rate[- _]?limit|too many requests|\b429\b/i;

/** Category of a spec metadata.reason ("or similar" values are matched by family). */
export function categoryFromReason(reason: string): FailureCategory | null {
  const r = reason.toLowerCase();
  if (r === 'insufficient_quota' || r.includes('balance')) return 'balance';
  if (r === 'free_tier_limit' || r.includes('free')) return 'free-tier';
  if (r === 'account_usage_limit' || r.includes('usage_limit') || r.includes('usage-limit')) return 'usage-limit';
  if (r === 'rate_limit' || r === 'account_rate_limit' || r.includes('rate_limit') || r.includes('rate-limit'))
    return 'rate-limit';
  return null;
}

/** Category from free text only (stock opencode's retry status message, say). */
export function categoryFromText(text: string): FailureCategory | null {
  if (BALANCE_TEXT.test(text) || /\b402\b/.test(text)) return 'balance';
  if (FREE_TEXT.test(text)) return 'free-tier';
  if (USAGE_TEXT.test(text)) return 'usage-limit';
  if (RATE_TEXT.test(text)) return 'rate-limit';
  return null;
}

/**
 * Classifies one failure. A balance failure wins over everything (some providers answer 429 with
 * insufficient_quota). A reason, when present, decides; an unknown reason is not a quota wall.
 * Without a reason, an HTTP 402 or 429 decides, refined by the text. Without either, the text
 * alone counts only when `textAlone` is set (for sources that carry nothing else).
 */
export function classifyFailure(f: FailureFacts, options: { textAlone?: boolean } = {}): FailureCategory | null {
  const text = f.text ?? '';
  const reason = f.reason ?? null;
  if (f.statusCode === 402 || BALANCE_TEXT.test(text) || (reason !== null && categoryFromReason(reason) === 'balance'))
    return 'balance';
  if (reason !== null && reason !== '') return categoryFromReason(reason);
  if (f.statusCode === 429) {
    const refined = categoryFromText(text);
    return refined === 'free-tier' || refined === 'usage-limit' ? refined : 'rate-limit';
  }
  if (options.textAlone && text !== '') return categoryFromText(text);
  return null;
}

/** The spec-style reason to report for a category when the backend gave none. */
export function reasonForCategory(category: FailureCategory): string {
  switch (category) {
    case 'balance':
      return 'insufficient_quota';
    case 'free-tier':
      return 'free_tier_limit';
    case 'usage-limit':
      return 'account_usage_limit';
    case 'rate-limit':
      return 'rate_limit';
  }
}
