// Reads the provider and model listings of the `/api` engine (1.18.33, `GET /doc`):
// GET /api/provider `{location, data: [{id, name, disabled?, api: {..., settings}, request}]}` and
// GET /api/model `{location, data: [{id, providerID, name, enabled, status, variants, ...}]}`.
// **`api.settings` and `request` carry provider API keys**: only `id`, `name` and `disabled` of a
// provider are ever read here, so no key reaches the model, a log, a view or a file.
import type { ProviderListing, ProviderRecord } from '../../model';
import { arr, looseStr, obj, str } from './shape';

/** The enabled models of GET /api/model, by provider id. */
export function readApiModels(json: unknown): Map<string, string[]> {
  const data = arr(obj(json, 'model listing').data, 'model listing data');
  const out = new Map<string, string[]>();
  data.forEach((entry, i) => {
    const m = obj(entry, `model ${i}`);
    const id = str(m.id, `model ${i} id`);
    const provider = str(m.providerID, `model ${i} providerID`);
    if (m.enabled === false) return;
    const list = out.get(provider) ?? [];
    list.push(id);
    out.set(provider, list);
  });
  return out;
}

/**
 * Both listings into the one ProviderListing: a provider listed and not disabled is connected,
 * with the enabled models the model listing names for it. No quota objects: the caller's marks.
 */
export function readApiProviderListing(providersJson: unknown, models: Map<string, string[]>): ProviderListing {
  const data = arr(obj(providersJson, 'provider listing').data, 'provider listing data');
  const providers: ProviderRecord[] = [];
  const connected: string[] = [];
  data.forEach((entry, i) => {
    const p = obj(entry, `provider ${i}`);
    const id = str(p.id, `provider ${i} id`);
    const on = p.disabled !== true;
    if (on) connected.push(id);
    providers.push({ id, name: looseStr(p.name), connected: on, quota: null, models: models.get(id) ?? [] });
  });
  return { providers, connected };
}

/** Whether the model listing names this provider/model as enabled. */
export function listsModel(models: Map<string, string[]>, providerID: string, modelID: string): boolean {
  return (models.get(providerID) ?? []).includes(modelID);
}
