// Which provider to use after a wall, and when the marked ones come back (recovery steps 3-4).
import type { EpochMs, ModelRef, ProviderListing, ProviderRecord } from '../model';
import { distinctRecords } from './provider-records';

/** The provider stock opencode builds in: it always counts as connected, account or not. */
export const BUILT_IN_PROVIDER = 'opencode';

/**
 * Which providers recovery and wake may choose (the setting sessionOps.recovery.providers, the
 * --providers flag): a list of ids limits the choice to those; an empty list means "the providers
 * the user configured", i.e. every connected one except the built-in `opencode` (unless named).
 * Absent (undefined/null): no limit.
 */
export type ProviderScope = readonly string[];

export function inScope(providerID: string, scope: ProviderScope | null | undefined): boolean {
  if (!scope) return true;
  if (scope.length === 0) return providerID !== BUILT_IN_PROVIDER;
  return scope.includes(providerID);
}

/** "a, b,c" -> ["a", "b", "c"] (empty parts dropped); a clear error for an unsafe id. */
export function parseProviderScope(text: string): ProviderScope {
  const ids = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const id of ids)
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(id)) throw new Error(`"${id.slice(0, 40)}" is not a provider id`);
  return ids;
}

/** Connected providers with no quota object, in the listing's `connected` order (within the scope, when given). */
export function freeProviders(
  listing: ProviderListing,
  exclude: Array<string | null> = [],
  scope?: ProviderScope | null,
): ProviderRecord[] {
  const skip = new Set(exclude.filter((x): x is string => x !== null));
  // One record per id: an id listed twice is marked if any of its records carries quota.
  const byId = new Map(distinctRecords(listing).map((p) => [p.id, p]));
  const out: ProviderRecord[] = [];
  for (const id of new Set(listing.connected)) {
    const p = byId.get(id);
    if (!p || p.quota || skip.has(id) || !inScope(id, scope)) continue;
    out.push(p);
  }
  return out;
}

/** Step 3: a connected provider without a quota object, other than the failed one. */
export function chooseRecoveryProvider(
  listing: ProviderListing,
  failed: string | null,
  scope?: ProviderScope | null,
): ProviderRecord | null {
  return freeProviders(listing, [failed], scope)[0] ?? null;
}

/**
 * The model to name explicitly on a provider: the first preferred one it lists (the session's
 * own, then one seen answering recently), else the backend's default, else its first model.
 */
export function modelOn(provider: ProviderRecord, preferred?: string | readonly string[] | null): ModelRef | null {
  const wanted = preferred == null ? [] : typeof preferred === 'string' ? [preferred] : preferred;
  const modelID =
    wanted.find((m) => provider.models.includes(m)) ?? provider.defaultModel ?? provider.models[0] ?? null;
  return modelID ? { providerID: provider.id, modelID } : null;
}

/**
 * Step 4: the earliest known resetAt among marked connected providers (null if none known), within
 * the scope when given. `resetOf` may say when a provider is acceptable again instead of its mark
 * (null: not known, so it is not waited for). A reset at or before `now` is no moment to wait for:
 * the quota object outlived it, so when it ends is unknown (never a wait for a time already passed).
 */
export function earliestConnectedReset(
  listing: ProviderListing,
  scope?: ProviderScope | null,
  resetOf?: (provider: ProviderRecord) => EpochMs | null | undefined,
  now: EpochMs = Number.NEGATIVE_INFINITY,
): EpochMs | null {
  let earliest: EpochMs | null = null;
  for (const p of distinctRecords(listing)) {
    if (!p.connected || !p.quota || p.quota.category === 'balance' || !inScope(p.id, scope)) continue;
    const own = resetOf?.(p);
    const reset = own === undefined ? p.quota.resetAt : own;
    if (reset === null || reset <= now) continue;
    if (earliest === null || reset < earliest) earliest = reset;
  }
  return earliest;
}

/** Each marked provider's id, markedAt and resetAt: what an escalation reports. */
export function markedProviders(
  listing: ProviderListing,
): Array<{ provider: string; markedAt: EpochMs; resetAt: EpochMs | null }> {
  return distinctRecords(listing)
    .filter((p) => p.quota)
    .map((p) => ({ provider: p.id, markedAt: p.quota!.markedAt, resetAt: p.quota!.resetAt }));
}
