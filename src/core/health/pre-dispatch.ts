// Pre-dispatch check (spec): before launching a worker, the intended provider has no quota
// object, it is connected, and at least one other connected provider exists as a fallback: one
// that could take the work, so connected and without a quota object. If the intended provider is
// marked (or not connected), dispatch on another: the check names it (`dispatchOn`), and a
// dispatch with fallback runs the same check on it before sending there.
import type { ProviderListing } from '../model';
import { freeProviders } from './provider-choice';
import { recordOf } from './provider-records';

export interface DispatchCheck {
  ok: boolean;
  /** Why the check failed (empty when ok). */
  problems: string[];
  /** The provider to dispatch on: the intended one when usable, otherwise a free connected one, or null. */
  dispatchOn: string | null;
  /** Another connected provider without a quota object to fall back on, or null. */
  fallback: string | null;
}

export function preDispatchCheck(intended: string, listing: ProviderListing): DispatchCheck {
  const problems: string[] = [];
  const record = recordOf(listing, intended);
  const connected = listing.connected.includes(intended);
  const marked = !!record?.quota;
  if (marked)
    problems.push(
      `${intended} has a quota object (cooling down${record?.quota?.resetAt ? ` until ${new Date(record.quota.resetAt).toISOString()}` : ', reset unknown'})`,
    );
  if (!connected) problems.push(`${intended} is not connected`);
  const freeOthers = freeProviders(listing, [intended]).map((p) => p.id);
  const usable = connected && !marked;
  const dispatchOn = usable ? intended : (freeOthers[0] ?? null);
  const fallback = freeOthers.find((id) => id !== dispatchOn) ?? null;
  if (usable && fallback === null)
    problems.push('no other connected provider without a quota mark exists as a fallback');
  if (!usable && dispatchOn === null) problems.push('no connected provider without a quota object is available');
  return { ok: problems.length === 0, problems, dispatchOn, fallback };
}
