// The one request of a provider listing on the old routes: GET /provider (the spec's listing, or
// stock opencode's whole catalogue) or stock opencode's GET /config/providers (its connected
// providers alone). Read under the listing's body limit and deadline; the caller reads the shape.
import { BODY_LIMITS } from './limits';
import type { HttpTransport } from './http';

export type ProviderRoute = 'provider' | 'config/providers';

export async function requestProviderListing(
  http: HttpTransport,
  route: ProviderRoute,
  directory: string,
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<unknown> {
  const res = await http.request({
    method: 'GET',
    path: route,
    query: { directory },
    operation: `GET /${route}`,
    read: 'json',
    maxBytes: BODY_LIMITS.providers,
    timeoutMs: opts.timeoutMs,
    signal: opts.signal,
  });
  return res.json;
}
