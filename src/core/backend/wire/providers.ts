// Reads GET /provider of either dialect: {all: [{id, quota?, ...}], connected: [ids]} (stock
// opencode adds `default` and per-provider `models` maps). Provider `options` are never read:
// the stock server echoes configured API keys there. Which dialect a listing shows is the
// detector's (../dialects/detect.ts).
import type { ProviderListing, ProviderRecord, QuotaMark } from '../../model';
import { arr, isObj, looseStr, num, obj, optNum, str } from './shape';

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
  return { providers, connected };
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
