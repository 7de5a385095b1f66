// A provider's record in a listing, whatever the listing's shape: an id listed twice is one
// provider, marked when any of its records carries a quota object (the wire reader merges them
// already; a listing built elsewhere, a test's or a fake transport's, is read the same way here).
import { mergeRecords } from '../backend/wire/providers';
import type { ProviderListing, ProviderRecord, QuotaMark } from '../model';

/** The provider's records merged into one, or undefined when the listing has none. */
export function recordOf(listing: ProviderListing, id: string): ProviderRecord | undefined {
  let first: ProviderRecord | undefined;
  let all: ProviderRecord[] | null = null;
  for (const p of listing.providers) {
    if (p.id !== id) continue;
    if (!first) first = p;
    else (all ??= [first]).push(p);
  }
  return all ? mergeRecords(all) : first;
}

/** The provider's quota object (any of its records'), or null. */
export function quotaOf(listing: ProviderListing, id: string): QuotaMark | null {
  return recordOf(listing, id)?.quota ?? null;
}

/** The listing's records, one per provider id (first-listed order); the listing's own array when no id repeats. */
export function distinctRecords(listing: ProviderListing): readonly ProviderRecord[] {
  const byId = new Map<string, ProviderRecord[]>();
  for (const p of listing.providers) {
    const same = byId.get(p.id);
    if (same) same.push(p);
    else byId.set(p.id, [p]);
  }
  if (byId.size === listing.providers.length) return listing.providers;
  return [...byId.values()].map(mergeRecords);
}
