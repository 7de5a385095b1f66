// Which provider to use after a wall, and when the marked ones come back (recovery steps 3-4).
import type { EpochMs, ModelRef, ProviderListing, ProviderRecord } from '../model';

/** Connected providers with no quota object, in the listing's `connected` order. */
export function freeProviders(listing: ProviderListing, exclude: Array<string | null> = []): ProviderRecord[] {
  const skip = new Set(exclude.filter((x): x is string => x !== null));
  const byId = new Map(listing.providers.map((p) => [p.id, p]));
  const out: ProviderRecord[] = [];
  for (const id of listing.connected) {
    const p = byId.get(id);
    if (!p || p.quota || skip.has(id)) continue;
    out.push(p);
  }
  return out;
}

/** Step 3: a connected provider without a quota object, other than the failed one. */
export function chooseRecoveryProvider(listing: ProviderListing, failed: string | null): ProviderRecord | null {
  return freeProviders(listing, [failed])[0] ?? null;
}

/** The model to name explicitly on a provider: the backend's default, else its first model. */
export function modelOn(provider: ProviderRecord, preferred?: string | null): ModelRef | null {
  const modelID = (preferred && provider.models.includes(preferred) ? preferred : null) ?? provider.defaultModel ?? provider.models[0] ?? null;
  return modelID ? { providerID: provider.id, modelID } : null;
}

/** Step 4: the earliest known resetAt among marked connected providers (null if none known). */
export function earliestConnectedReset(listing: ProviderListing): EpochMs | null {
  let earliest: EpochMs | null = null;
  for (const p of listing.providers) {
    if (!p.connected || !p.quota || p.quota.resetAt === null || p.quota.category === 'balance') continue;
    if (earliest === null || p.quota.resetAt < earliest) earliest = p.quota.resetAt;
  }
  return earliest;
}

/** Each marked provider's id, markedAt and resetAt: what an escalation reports. */
export function markedProviders(listing: ProviderListing): Array<{ provider: string; markedAt: EpochMs; resetAt: EpochMs | null }> {
  return listing.providers.filter((p) => p.quota).map((p) => ({ provider: p.id, markedAt: p.quota!.markedAt, resetAt: p.quota!.resetAt }));
}
