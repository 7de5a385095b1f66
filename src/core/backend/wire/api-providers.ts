// Reads the provider and model listings of the `/api` engine (1.18.33, `GET /doc`):
// GET /api/provider `{location, data: [{id, name, disabled?, api: {..., settings}, request}]}` and
// GET /api/model `{location, data: [{id, providerID, name, enabled, status, variants: [{id,
// headers, body}], ...}]}`.
// **`api.settings` and `request` carry provider API keys** (and a variant's `headers` / `body` are
// request options): only `id`, `name` and `disabled` of a provider and the ids of a model and of
// its variants are ever read here, so no key reaches the model, a log, a view or a file.
import type { ProviderListing, ProviderRecord } from '../../model';
import { arr, isObj, looseStr, obj, str } from './shape';

/** The enabled models of one provider: their ids, and per model the ids of its variants (when it lists any). */
export interface ApiProviderModels {
  ids: string[];
  variants: Record<string, string[]>;
}

/** The enabled models of GET /api/model, by provider id. */
export type ApiModels = Map<string, ApiProviderModels>;

/** GET /api/model: the enabled models by provider, with their variants' ids. Throws ShapeError. */
export function readApiModels(json: unknown): ApiModels {
  const data = arr(obj(json, 'model listing').data, 'model listing data');
  const out: ApiModels = new Map();
  data.forEach((entry, i) => {
    const m = obj(entry, `model ${i}`);
    const id = str(m.id, `model ${i} id`);
    const provider = str(m.providerID, `model ${i} providerID`);
    if (m.enabled === false) return;
    const listed = out.get(provider) ?? { ids: [], variants: {} };
    listed.ids.push(id);
    if (Array.isArray(m.variants)) {
      const names = m.variants
        .map((v) => (isObj(v) ? looseStr(v.id) : null))
        .filter((v): v is string => v !== null && v !== '');
      if (names.length > 0) listed.variants[id] = names;
    }
    out.set(provider, listed);
  });
  return out;
}

/**
 * Both listings into the one ProviderListing: a provider listed and not disabled is connected,
 * with the enabled models (and their variants) the model listing names for it. No quota objects:
 * the caller's marks.
 */
export function readApiProviderListing(providersJson: unknown, models: ApiModels): ProviderListing {
  const data = arr(obj(providersJson, 'provider listing').data, 'provider listing data');
  const providers: ProviderRecord[] = [];
  const connected: string[] = [];
  data.forEach((entry, i) => {
    const p = obj(entry, `provider ${i}`);
    const id = str(p.id, `provider ${i} id`);
    const on = p.disabled !== true;
    if (on) connected.push(id);
    const listed = models.get(id);
    const record: ProviderRecord = {
      id,
      name: looseStr(p.name),
      connected: on,
      quota: null,
      models: listed?.ids ?? [],
    };
    if (listed && Object.keys(listed.variants).length > 0) record.variants = listed.variants;
    providers.push(record);
  });
  return { providers, connected };
}

/** Whether the model listing names this provider/model as enabled. */
export function listsModel(models: ApiModels, providerID: string, modelID: string): boolean {
  return (models.get(providerID)?.ids ?? []).includes(modelID);
}

/** Whether the model listing names this variant for this provider/model. */
export function listsVariant(models: ApiModels, providerID: string, modelID: string, variant: string): boolean {
  return (models.get(providerID)?.variants[modelID] ?? []).includes(variant);
}
