// The explicit model of a wake or recovery: the requested one when given (the guard still checks
// it); else the session's last model when its provider qualifies and lists it; else, on a
// qualifying provider, a model seen answering recently there, else the provider's default model
// (else its first). A provider qualifies when it is connected, has no quota mark and is not the
// provider of the session's quota wall; a provider whose listing names its models vouches only
// for those.
import { freeProviders, inScope, modelOn, type ProviderScope } from '../health/provider-choice';
import { quotaOf, recordOf } from '../health/provider-records';
import type { ModelRef, ProviderListing } from '../model';
import { modelListed } from './guard';

export type ModelSource = 'requested' | 'session' | 'provider';

export interface ModelChoice {
  model: ModelRef | null;
  source: ModelSource | null;
  /** Readable: why this model, or why none (and which flag fixes it). */
  basis: string;
}

export interface ModelChoiceInput {
  requested: ModelRef | null;
  /** The session's last model (from its newest message), when known. */
  last: ModelRef | null;
  /** Models seen answering recently (completed assistant messages), newest first. */
  recent?: readonly ModelRef[];
  listing: ProviderListing;
  wallProvider: string | null;
  /** Preferred provider (e.g. the recovery decision's recoverOn), tried before the others. */
  prefer?: string | null;
  /** Which providers may be chosen (health/provider-choice ProviderScope); absent: any. A requested model is taken as given. */
  providers?: ProviderScope | null;
  /** A provider tried only after every other qualifying one (the provider of a wall that is over). */
  avoid?: string | null;
}

export function qualifies(providerID: string, listing: ProviderListing, wallProvider: string | null): boolean {
  if (providerID === wallProvider) return false;
  if (!listing.connected.includes(providerID)) return false;
  return !quotaOf(listing, providerID);
}

export function chooseModel(input: ModelChoiceInput): ModelChoice {
  if (input.requested)
    return {
      model: input.requested,
      source: 'requested',
      basis: `--model ${input.requested.providerID}/${input.requested.modelID} as given`,
    };
  const { last, listing, wallProvider } = input;
  const free = freeProviders(listing, [wallProvider], input.providers);
  const avoided = (id: string) => id === input.avoid && free.some((p) => p.id !== id);
  if (
    last &&
    qualifies(last.providerID, listing, wallProvider) &&
    inScope(last.providerID, input.providers) &&
    modelListed(recordOf(listing, last.providerID), last.modelID) &&
    !avoided(last.providerID)
  ) {
    return {
      model: last,
      source: 'session',
      basis: `the session's last model ${last.providerID}/${last.modelID} (provider connected and unmarked)`,
    };
  }
  const rank = (id: string) => (id === input.prefer ? 0 : id === input.avoid ? 2 : 1);
  const ordered = [...free].sort((a, b) => rank(a.id) - rank(b.id));
  for (const p of ordered) {
    const preferred = [last, ...(input.recent ?? [])].filter((m) => m?.providerID === p.id).map((m) => m!.modelID);
    const model = modelOn(p, preferred);
    if (model) {
      const why = last
        ? `the session's last provider ${last.providerID} does not qualify`
        : "the session's last model is unknown";
      return {
        model,
        source: 'provider',
        basis: `${why}; ${model.providerID}/${model.modelID} is on a connected provider without a quota mark`,
      };
    }
  }
  const scoped = input.providers
    ? input.providers.length > 0
      ? ` among the allowed providers (${input.providers.join(', ')})`
      : ' among the configured providers (the built-in opencode is left out unless named)'
    : '';
  const none =
    free.length > 0
      ? `the free providers (${free.map((p) => p.id).join(', ')}) list no model`
      : `no connected provider without a quota mark exists${scoped}`;
  return {
    model: null,
    source: null,
    basis: `no explicit model could be determined: ${none}; add --model PROVIDER/MODEL`,
  };
}

/** "provider/model" (the model id may itself hold slashes) -> ModelRef, or null. */
export function parseModelRef(text: string): ModelRef | null {
  const i = text.indexOf('/');
  if (i <= 0 || i === text.length - 1) return null;
  return { providerID: text.slice(0, i), modelID: text.slice(i + 1) };
}
