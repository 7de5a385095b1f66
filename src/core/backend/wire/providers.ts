// Reads GET /provider of either dialect: {all: [{id, quota?, ...}], connected: [ids]} (stock
// opencode adds `default` and per-provider `models` maps), and stock opencode's GET
// /config/providers: {providers: [...], default} (the connected providers alone, records as in
// `all`). Provider `options` are never read: the stock server echoes configured API keys there.
// Which dialect a listing shows is the detector's (../dialects/detect.ts).
import type { ProviderListing, ProviderRecord, QuotaMark } from '../../model';
import { arr, isObj, looseStr, num, obj, optNum, str } from './shape';

/**
 * Stock opencode's GET /config/providers: every provider it lists is connected (its records and
 * `default` as in GET /provider, where `connected` names exactly these).
 */
export function readConnectedProviders(json: unknown): ProviderListing {
  const body = obj(json, 'connected providers');
  const providers = arr(body.providers, 'connected providers providers');
  const connected = providers.map((p, i) => str(obj(p, `provider ${i}`).id, `provider ${i} id`));
  return readProviderListing({ all: providers, connected, default: body.default });
}

export function readProviderListing(json: unknown): ProviderListing {
  const body = obj(json, 'provider listing');
  const all = arr(body.all, 'provider listing all');
  const connected = arr(body.connected, 'provider listing connected').map((c, i) => str(c, `connected[${i}]`));
  const connectedSet = new Set(connected);
  const defaults = isObj(body.default) ? body.default : null;
  const providers: ProviderRecord[] = [];
  const seen = new Set<string>();
  all.forEach((entry, i) => {
    const p = obj(entry, `provider ${i}`);
    const id = str(p.id, `provider ${i} id`);
    let quota: QuotaMark | null = null;
    if (p.quota !== undefined && p.quota !== null) {
      const q = obj(p.quota, `provider ${id} quota`);
      quota = {
        markedAt: num(q.markedAt, `provider ${id} quota.markedAt`),
        resetAt: optNum(q.resetAt, `provider ${id} quota.resetAt`),
      };
    }
    seen.add(id);
    providers.push({
      id,
      name: looseStr(p.name),
      connected: connectedSet.has(id),
      quota,
      models: modelIds(p.models),
      defaultModel: defaults ? looseStr(defaults[id]) : null,
      ...variantTables(p.models),
    });
  });
  for (const id of connected) {
    if (!seen.has(id))
      providers.push({
        id,
        name: null,
        connected: true,
        quota: null,
        models: [],
        defaultModel: defaults ? looseStr(defaults[id]) : null,
      });
  }
  return { providers: mergeDuplicateProviders(providers), connected: [...connectedSet] };
}

/**
 * One record per provider id. A listing may name an id twice; the provider is then marked if any of
 * its records carries a quota object (mergeQuota), and it offers the models of all of them.
 */
export function mergeDuplicateProviders(records: readonly ProviderRecord[]): ProviderRecord[] {
  const byId = new Map<string, ProviderRecord[]>();
  for (const r of records) {
    const same = byId.get(r.id);
    if (same) same.push(r);
    else byId.set(r.id, [r]);
  }
  if (byId.size === records.length) return [...records];
  return [...byId.values()].map(mergeRecords);
}

/** The records of one provider id as one: any record's quota marks it; models are the union. */
export function mergeRecords(same: readonly ProviderRecord[]): ProviderRecord {
  if (same.length === 1) return same[0];
  const first = same[0];
  const models: string[] = [];
  for (const r of same) for (const m of r.models) if (!models.includes(m)) models.push(m);
  return {
    ...first,
    name: same.find((r) => r.name !== null)?.name ?? null,
    connected: same.some((r) => r.connected),
    quota: mergeQuota(same.map((r) => r.quota)),
    models,
    defaultModel: same.find((r) => r.defaultModel)?.defaultModel ?? null,
    ...mergedVariants(same),
  };
}

/** The variant tables of one provider's records: the first record listing a model's table gives it. */
function mergedVariants(same: readonly ProviderRecord[]): { variants?: Record<string, readonly string[]> } {
  const variants: Record<string, readonly string[]> = Object.create(null) as Record<string, readonly string[]>;
  let any = false;
  for (const r of same)
    for (const [m, names] of Object.entries(r.variants ?? {}))
      if (!Object.hasOwn(variants, m)) {
        variants[m] = names;
        any = true;
      }
  return any ? { variants } : {};
}

/**
 * The variant names of each model that lists a `variants` object (stock opencode:
 * `models: {id: {variants: {high: {...}, max: {...}}}}`); the variants' own options are not read.
 */
function variantTables(models: unknown): { variants?: Record<string, readonly string[]> } {
  const entries: [string | null, unknown][] = Array.isArray(models)
    ? models.map((m) => [isObj(m) ? looseStr(m.id) : null, m])
    : isObj(models)
      ? Object.entries(models)
      : [];
  const variants: Record<string, readonly string[]> = Object.create(null) as Record<string, readonly string[]>;
  let any = false;
  for (const [id, m] of entries) {
    if (id === null || !isObj(m) || !isObj(m.variants)) continue;
    variants[id] = Object.keys(m.variants);
    any = true;
  }
  return any ? { variants } : {};
}

/**
 * Several quota records of one provider as one: marked when any is; the earliest markedAt; the
 * reset unknown when any record's is, else the latest (all free only then); balance when any is.
 */
export function mergeQuota(quotas: ReadonlyArray<QuotaMark | null | undefined>): QuotaMark | null {
  const marks = quotas.filter((q): q is QuotaMark => !!q);
  if (marks.length <= 1) return marks[0] ?? null;
  const resetAt = marks.some((q) => q.resetAt === null) ? null : Math.max(...marks.map((q) => q.resetAt as number));
  const category = marks.some((q) => q.category === 'balance')
    ? 'balance'
    : (marks.find((q) => q.category)?.category ?? null);
  return {
    markedAt: Math.min(...marks.map((q) => q.markedAt)),
    resetAt: category === 'balance' ? null : resetAt,
    ...(category ? { category } : {}),
  };
}

function modelIds(models: unknown): string[] {
  if (Array.isArray(models)) {
    return models
      .map((m) => (typeof m === 'string' ? m : isObj(m) ? looseStr(m.id) : null))
      .filter((m): m is string => m !== null);
  }
  if (isObj(models)) return Object.keys(models);
  return [];
}
