// Quota-wall detection in the spec's order:
//   1. tail probe: the newest message is an assistant message with finish error and a failure of
//      a quota category (spec: an error text part with metadata.reason in the four values);
//   2. state: idle plus the tail probe means the turn already died (no abort); generating with
//      everything frozen across two samples means a retry spin or a dead stream: abort first;
//   3. provider listing: providers with a quota object are cooling down; the latest resetAt among
//      them is the earliest moment all are free.
// Stock opencode adds a signal of its own between 1 and 3: a `retry` status whose message is a
// quota failure, with `next` as the reset estimate. A retry is read as a wall only when it waits
// long (`retryWaitMs`, default 2 min) or its message names a usage limit (usage, free tier,
// balance): a short rate-limit retry is the backend failing over between same-name pools, and a
// usage-limit failure is terminal only once that failover is exhausted (spec "Errors").
import type {
  EpochMs,
  FailureCategory,
  MessageSnapshot,
  ProviderListing,
  QuotaMark,
  QuotaWall,
  SessionSample,
  VerdictResult,
} from '../model';
import { categoryFromText, reasonForCategory } from './failure-category';
import { distinctRecords, quotaOf, recordOf } from './provider-records';
import { DEFAULT_MONITOR_SETTINGS } from '../settings/operator-settings';

export interface WallOptions {
  /** A rate-limit retry waiting at least this long is a wall (setting quotaWall.retryWaitMinutes). */
  retryWaitMs?: number;
}

/** A wall one sample shows by itself: a message or a retry named its category. */
export type ObservedWall = Omit<QuotaWall, 'abortFirst' | 'category'> & { category: FailureCategory };

/** 1. The tail probe on one sample. Never decides anything about aborting on its own. */
export function tailProbe(sample: SessionSample): ObservedWall | null {
  return probeMessage(sample.newest);
}

/** The tail probe on a newest message (null: no failed turn of a quota category). */
export function probeMessage(m: MessageSnapshot | null): ObservedWall | null {
  if (!m || m.role !== 'assistant' || m.finish !== 'error' || !m.failure || m.failure.category === null) return null;
  return {
    provider: m.failure.provider ?? m.providerID,
    reason: m.failure.reason,
    category: m.failure.category,
    resetAt: m.failure.category === 'balance' ? null : m.failure.resetAt,
    failedAt: m.completedAt ?? m.createdAt ?? null,
    source: 'tail-probe',
    observed: 'failed-turn',
    text: m.failure.text,
  };
}

/** Stock opencode: a retry status caused by a quota failure that waits long or names a usage limit. */
export function retryWall(sample: SessionSample, options: WallOptions = {}): ObservedWall | null {
  const retry = sample.session.retry;
  if (!retry) return null;
  const category = categoryFromText(retry.message);
  if (!category) return null;
  const waitMs = options.retryWaitMs ?? DEFAULT_MONITOR_SETTINGS.retryWaitMs;
  const waitsLong = retry.next !== null && retry.next - sample.at >= waitMs;
  if (category === 'rate-limit' && !waitsLong) return null;
  return {
    provider: sample.newest?.providerID ?? null,
    reason: reasonForCategory(category),
    category,
    resetAt: retry.next,
    failedAt: sample.at,
    source: 'retry-status',
    observed: 'retry',
    text: retry.message,
  };
}

/** What one sample shows by itself (tail probe, else retry status): used to remember walls. */
export function observedWall(sample: SessionSample, options: WallOptions = {}): ObservedWall | null {
  return tailProbe(sample) ?? retryWall(sample, options);
}

function markOf(listing: ProviderListing | null, provider: string | null): QuotaMark | null {
  if (!listing || provider === null) return null;
  return quotaOf(listing, provider);
}

/**
 * The quota wall of a session, judged on its latest sample with the verdict of the last pair.
 * `abortFirst` follows rule 2: a session that still reads generating is aborted before re-waking.
 * The listing's resetAt for the failed provider, when it has one, wins over the failure's own.
 */
export function detectQuotaWall(
  latest: SessionSample,
  verdict: VerdictResult | null,
  listing: ProviderListing | null,
  options: WallOptions = {},
): QuotaWall | null {
  const generating = latest.session.state === 'generating';
  const fromSample = observedWall(latest, options);
  if (fromSample) {
    const mark = markOf(listing, fromSample.provider);
    // A balance failure has no reset: a top-up cures it, not time.
    const resetAt = fromSample.category === 'balance' ? null : (mark?.resetAt ?? fromSample.resetAt);
    return { ...fromSample, resetAt, ownResetAt: fromSample.resetAt, abortFirst: generating };
  }
  // 3. A frozen generating session whose provider is cooling down: a retry spin, inferred. No
  // message named a failure, so the category is only what the mark itself says (a client-side
  // mark remembers the category of the wall that set it; a spec quota object names none).
  if (verdict?.verdict === 'hung' && verdict.frozen) {
    const provider = latest.newest?.providerID ?? null;
    const mark = markOf(listing, provider);
    if (mark) {
      const category = mark.category ?? null;
      return {
        provider,
        reason: null,
        category,
        resetAt: category === 'balance' ? null : mark.resetAt,
        source: 'provider-listing',
        observed: 'provider-marked',
        markedAt: mark.markedAt,
        failedAt: mark.markedAt,
        abortFirst: true,
        text: null,
      };
    }
  }
  return null;
}

/**
 * Whether a wall still rules out its provider: the listing marks it (any of its records), it is a
 * balance failure (a top-up cures it, not time), or its reset is not known to have passed. Its
 * reset is the one the wall itself gave; when it gave none, the end of the provider's cooldown as
 * a source showed it (a quota object seen gone: ProviderRecord.cooldownEndedAt), unless the wall
 * is known to be newer than that end. Once the mark is gone and that reset has passed, the
 * provider is acceptable again (so waiting for its reset can be the right answer).
 */
export function wallHolds(wall: QuotaWall, listing: ProviderListing | null, now: EpochMs): boolean {
  if (wall.provider === null || markOf(listing, wall.provider)) return true;
  if (wall.category === 'balance') return true;
  const own = wall.ownResetAt ?? null;
  if (own !== null) return own > now;
  const ended = listing ? (recordOf(listing, wall.provider)?.cooldownEndedAt ?? null) : null;
  if (ended === null || ended > now) return true;
  const failedAt = wall.failedAt ?? null;
  return failedAt !== null && failedAt > ended;
}

/** The provider a wall rules out now: its provider while the wall holds, else null. */
export function heldWallProvider(wall: QuotaWall | null, listing: ProviderListing | null, now: EpochMs): string | null {
  return wall && wallHolds(wall, listing, now) ? wall.provider : null;
}

/** The provider the newest message's failed turn rules out now (tail probe), or null. */
export function heldTailProvider(sample: SessionSample, listing: ProviderListing | null, now: EpochMs): string | null {
  const w = tailProbe(sample);
  return w ? heldWallProvider({ ...w, ownResetAt: w.resetAt, abortFirst: false }, listing, now) : null;
}

/**
 * "The latest resetAt among marked providers is the earliest moment all are free." Null when no
 * provider is marked, or when any mark has an unknown reset, a reset already passed at `now` (the
 * quota object outlived it: when it ends is unknown) or is a balance failure (cured by a top-up,
 * not by time): then no moment is known.
 */
export function allFreeAt(listing: ProviderListing, now: EpochMs = Number.NEGATIVE_INFINITY): EpochMs | null {
  let latest: EpochMs | null = null;
  for (const p of distinctRecords(listing)) {
    if (!p.quota) continue;
    if (p.quota.resetAt === null || p.quota.resetAt <= now || p.quota.category === 'balance') return null;
    if (latest === null || p.quota.resetAt > latest) latest = p.quota.resetAt;
  }
  return latest;
}
