// Shared by the backend layer (classifying failures on read) and the health layer; lives below both.
// Which failure category of the spec's Errors table a recorded failure belongs to, or null when
// it is no quota wall at all (an aborted turn, a tool error, a context overflow ...).
//
//   usage limit  (account_usage_limit)                  re-wake on another provider
//   free tier    (free_tier_limit)                       re-wake on another provider
//   rate limit   (rate_limit, account_rate_limit, 429)   re-wake on another provider
//   balance      (HTTP 402 insufficient_quota: the text)  top-up by a human; switching is no cure
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
/** HTTP 402 named in a failure text: "HTTP 402", "status 402", "status code: 402", "402 Payment Required". */
const HTTP_402_TEXT = /\b(?:HTTP(?:\/[\d.]+)?|status(?:[ _]?code)?)\W{0,3}402\b|\b402 payment required\b/i;

/**
 * Whether a failure's own text (an error part, a failed call's message) names a balance failure:
 * HTTP 402 or insufficient_quota. The spec names this category only by its text (no reason value).
 */
export function isBalanceText(text: string): boolean {
  return BALANCE_TEXT.test(text) || HTTP_402_TEXT.test(text);
}
const FREE_TEXT = /free[- _](tier|limit|quota|usage)|free (plan|models?) limit/i;
const USAGE_TEXT =
  /usage[- _]limit|(weekly|monthly|daily|plan|account)[- ](usage[- ])?limit|limit (reached|exceeded) for (your|this) (plan|account)|quota (exceeded|reached|exhausted)|exceeded your (current )?quota/i;
const RATE_TEXT = /rate[- _]?limit|too many requests|\b429\b/i;

/** The balance family of reasons (HTTP 402: cured by a top-up, not by time). */
const BALANCE_REASON = /^insufficient_(quota|balance|credits?|funds)$/;

/**
 * Category of a metadata.reason: one of the four spec values, or the balance family; any other
 * reason (even one that contains a spec word, such as sandbox_freeze) is no quota wall.
 */
export function categoryFromReason(reason: string): FailureCategory | null {
  const r = reason.trim().toLowerCase();
  if (BALANCE_REASON.test(r)) return 'balance';
  switch (r) {
    case 'free_tier_limit':
      return 'free-tier';
    case 'account_usage_limit':
      return 'usage-limit';
    case 'rate_limit':
    case 'account_rate_limit':
      return 'rate-limit';
    default:
      return null;
  }
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
 * Classifies one failure (its facts come from a failure record: a spec error part, a failed
 * call's error, never a worker's prose), by what the spec names for each category:
 *  - the usage-limit categories have a field, metadata.reason: a reason in the four spec values
 *    (or the balance family) decides, and any other reason is no usage-limit wall;
 *  - a balance failure (HTTP 402 insufficient_quota) has no reason value in the spec, only its
 *    text: a 402 status, or the failure's text naming 402 / insufficient_quota, decides it
 *    whatever else the failure carries (it escalates and never wakes, the safe side);
 *  - without a reason, a structured HTTP status decides (stock opencode's APIError.statusCode):
 *    429 is a rate limit refined by the text.
 * Other free text is never a wall, unless `textAlone` is set for a source that carries nothing
 * else (a retry status message).
 */
export function classifyFailure(f: FailureFacts, options: { textAlone?: boolean } = {}): FailureCategory | null {
  const text = f.text ?? '';
  const reason = f.reason !== null && f.reason !== undefined && f.reason.trim() !== '' ? f.reason : null;
  const byReason = reason !== null ? categoryFromReason(reason) : null;
  if (byReason !== null) return byReason;
  if (f.statusCode === 402 || isBalanceText(text)) return 'balance';
  if (reason !== null) return null;
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
