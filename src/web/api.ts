// The page's requests to the daemon: the token from the form goes in the Authorization header
// (Bearer) of every /api request; nothing is kept in a cookie. The token lives in sessionStorage
// (this tab only, gone when it closes). Every request has a deadline; an error answer becomes an
// ApiError with the API's typed code and message ({"error": {"code", "message"}}).

const TOKEN_KEY = 'session-ops-token';
export const REQUEST_DEADLINE_MS = 15_000;

export const token = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (t: string): void => sessionStorage.setItem(TOKEN_KEY, t),
  clear: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The answer's body when it was JSON (a refused act's outcome rides in it). */
    readonly body: unknown = null,
    /** Retry-After of a 429, in seconds. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

export function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const t = token.get();
  return t ? { ...extra, authorization: `Bearer ${t}` } : extra;
}

/** GET or POST `path` (JSON); the parsed answer, or an ApiError. */
export async function api<T = unknown>(
  path: string,
  init: { method?: string; body?: unknown; deadlineMs?: number } = {},
): Promise<T> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), init.deadlineMs ?? REQUEST_DEADLINE_MS);
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers: authHeaders(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      signal: ctl.signal,
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch (err) {
    clearTimeout(timer);
    const late = ctl.signal.aborted;
    throw new ApiError(
      0,
      late ? 'timeout' : 'network',
      late ? 'the daemon did not answer in time' : `the daemon cannot be reached (${String(err)})`,
    );
  }
  let text: string;
  try {
    text = await res.text();
  } finally {
    clearTimeout(timer);
  }
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  if (res.ok) return body as T;
  const e = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  const retry = Number(res.headers.get('retry-after'));
  throw new ApiError(
    res.status,
    typeof e?.code === 'string' ? e.code : `http-${res.status}`,
    typeof e?.message === 'string' ? e.message : text.trim().slice(0, 300) || `HTTP ${res.status}`,
    body,
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}
