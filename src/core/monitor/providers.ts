// The provider listing of a backend runtime, read beside each directory sample: read afresh at
// start, on demand, after a new quota wall or when older than the maximum age (stock opencode's is
// ~6.4 MB, so it must not delay the rows), otherwise the client's cached one.
import type { BackendClient } from '../backend';
import { allFreeAt } from '../health';
import type { EpochMs, ProviderListing } from '../model';
import type { BackendRuntime } from './runtime';

export interface ProviderRead {
  /** A fresh read was asked for (not the cached listing). */
  fresh: boolean;
  listing: Promise<ProviderListing>;
}

/** Starts the read (its rejection is handled by storeProviders). */
export function readProviders(
  rt: BackendRuntime,
  client: Promise<BackendClient>,
  directory: string,
  now: EpochMs,
  maxAgeMs: number,
): ProviderRead {
  const fresh = rt.providerRefresh || now - rt.providersAt > maxAgeMs;
  const listing = client.then((c) => c.listProviders(directory, fresh ? {} : { maxAgeMs: Number.MAX_SAFE_INTEGER }));
  listing.catch(() => undefined);
  return { fresh, listing };
}

/**
 * Stores what the read gave in the runtime's state (the listing, or the error's message): true
 * when what the providers view shows changed; null when the runtime was closed meanwhile.
 */
export async function storeProviders(
  rt: BackendRuntime,
  read: ProviderRead,
  now: EpochMs,
  describe: (err: unknown) => string,
): Promise<boolean | null> {
  try {
    const listing = await read.listing;
    if (rt.closed) return null;
    if (read.fresh) {
      rt.providersAt = now;
      rt.providerRefresh = false;
    }
    const changed = listing !== rt.state.providers && JSON.stringify(listing) !== JSON.stringify(rt.state.providers);
    rt.state.providers = listing;
    rt.state.providersError = null;
    rt.state.allFreeAt = allFreeAt(listing, now);
    return changed;
  } catch (err) {
    if (rt.closed) return null;
    const message = describe(err);
    const changed = rt.state.providersError !== message;
    rt.state.providersError = message;
    return changed;
  }
}
