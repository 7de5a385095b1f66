// The client of a daemon's HTTP API (docs/daemon-api.md): what an attached editor window reads and
// asks. Every request has a deadline (headers and body together) and a size limit (reading stops
// as soon as it is passed); the token travels only in `Authorization: Bearer`. The daemon's typed
// errors come back as DaemonApiError with the HTTP status and the code, so a caller tells 401
// (token unknown), 403 (a read token on an act route), 409 (the operator refused: the outcome is
// carried) and 429 (Retry-After) apart. Never imports vscode.

import { systemClock, type Clock } from '../clock';

export const DAEMON_REQUEST_TIMEOUT_MS = 10_000;
/** An act waits on the daemon's operator (lock, re-read, the POST): its own, longer deadline. */
export const DAEMON_ACT_TIMEOUT_MS = 60_000;
const MiB = 1024 * 1024;
export const DAEMON_BODY_LIMITS = { fleet: 64 * MiB, other: 8 * MiB } as const;

export type DaemonScope = 'read' | 'act';

export interface DaemonWhoami {
  name: string;
  scope: DaemonScope;
}

export type DaemonErrorKind =
  | 'unauthenticated'
  | 'forbidden'
  | 'rate-limited'
  | 'refused'
  | 'not-found'
  | 'deadline'
  | 'too-large'
  | 'unreachable'
  | 'bad-answer'
  | 'server';

export class DaemonApiError extends Error {
  constructor(
    readonly kind: DaemonErrorKind,
    message: string,
    readonly status: number | null = null,
    /** The daemon's typed code (`{"error": {"code"}}`), when it sent one. */
    readonly code: string | null = null,
    /** 409: the refused act's outcome as the daemon sent it. */
    readonly outcome: unknown = null,
    /** 429: seconds from Retry-After. */
    readonly retryAfterSeconds: number | null = null,
    /** 409: the whole answer (the act's keys beside `error` and `outcome`: `model`, `instead` ...). */
    readonly answer: unknown = null,
  ) {
    super(message);
    this.name = 'DaemonApiError';
  }
}

export interface DaemonClientOptions {
  /** The daemon's base URL (http or https), e.g. `https://ops.example:9464`. */
  url: string;
  /** The Bearer token, or null (every /api/ path will then be 401). */
  token: string | null;
  timeoutMs?: number;
  actTimeoutMs?: number;
  fetch?: typeof fetch;
  clock?: Clock;
}

export interface ActRequest {
  backend?: string;
  kind?: string;
  prompt?: string;
  model?: string;
  variant?: string;
}

const ACTIONS = new Set(['abort', 'wake', 'abort-and-wake', 'recover', 'dispatch']);

/** Parses and checks a daemon URL: http(s) only, no credentials, no query or fragment. */
export function parseDaemonUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`${raw}: only http and https are supported`);
  if (url.username || url.password) throw new Error(`${raw}: no credentials in the URL (use Set Daemon Token)`);
  if (url.search || url.hash) throw new Error(`${raw}: no query or fragment`);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

export class DaemonClient {
  readonly base: URL;
  private readonly timeoutMs: number;
  private readonly actTimeoutMs: number;
  readonly fetchImpl: typeof fetch;
  readonly clock: Clock;

  constructor(private readonly options: DaemonClientOptions) {
    this.base = parseDaemonUrl(options.url);
    this.timeoutMs = options.timeoutMs ?? DAEMON_REQUEST_TIMEOUT_MS;
    this.actTimeoutMs = options.actTimeoutMs ?? DAEMON_ACT_TIMEOUT_MS;
    this.fetchImpl = options.fetch ?? fetch;
    this.clock = options.clock ?? systemClock;
  }

  /** The absolute URL of an API path (`api/fleet`), relative to the base (a daemon behind a path prefix works). */
  url(path: string): URL {
    return new URL(path.replace(/^\//, ''), this.base);
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json', ...extra };
    if (this.options.token) h.authorization = `Bearer ${this.options.token}`;
    return h;
  }

  async whoami(signal?: AbortSignal): Promise<DaemonWhoami> {
    const body = await this.get('api/whoami', DAEMON_BODY_LIMITS.other, signal);
    if (!isObject(body) || typeof body.name !== 'string' || (body.scope !== 'read' && body.scope !== 'act')) {
      throw new DaemonApiError('bad-answer', 'GET /api/whoami: not {name, scope: read|act}');
    }
    return { name: body.name, scope: body.scope };
  }

  async fleet(signal?: AbortSignal): Promise<{ backends: unknown[] }> {
    return this.backends('api/fleet', DAEMON_BODY_LIMITS.fleet, signal);
  }

  async providers(signal?: AbortSignal): Promise<{ backends: unknown[] }> {
    return this.backends('api/providers', DAEMON_BODY_LIMITS.other, signal);
  }

  async status(signal?: AbortSignal): Promise<{ backends: unknown[] }> {
    return this.backends('api/status', DAEMON_BODY_LIMITS.fleet, signal);
  }

  /** POST /api/sessions/{id}/{action}: 200 the outcome; a refusal is DaemonApiError kind `refused` (409) with the outcome. */
  async act(sessionId: string, action: string, request: ActRequest, signal?: AbortSignal): Promise<unknown> {
    if (!ACTIONS.has(action)) throw new Error(`unknown action ${JSON.stringify(action)}`);
    return this.post(`api/sessions/${encodeURIComponent(sessionId)}/${action}`, request, signal);
  }

  async replyPermission(
    sessionId: string,
    requestId: string,
    reply: 'once' | 'always' | 'reject',
    backend?: string,
    signal?: AbortSignal,
  ): Promise<unknown> {
    return this.post(
      `api/sessions/${encodeURIComponent(sessionId)}/permissions/${encodeURIComponent(requestId)}`,
      { reply, backend },
      signal,
    );
  }

  async answerQuestion(
    sessionId: string,
    requestId: string,
    answer: { answers: string[][] } | { reject: true },
    backend?: string,
    signal?: AbortSignal,
  ): Promise<unknown> {
    return this.post(
      `api/sessions/${encodeURIComponent(sessionId)}/questions/${encodeURIComponent(requestId)}`,
      { ...answer, backend },
      signal,
    );
  }

  async cancelRetry(sessionId: string, backend?: string, signal?: AbortSignal): Promise<unknown> {
    const path =
      `api/sessions/${encodeURIComponent(sessionId)}/retry` +
      (backend ? `?backend=${encodeURIComponent(backend)}` : '');
    return this.request('DELETE', path, undefined, DAEMON_BODY_LIMITS.other, this.actTimeoutMs, signal);
  }

  private async backends(path: string, limit: number, signal?: AbortSignal): Promise<{ backends: unknown[] }> {
    const body = await this.get(path, limit, signal);
    if (!isObject(body) || !Array.isArray(body.backends))
      throw new DaemonApiError('bad-answer', `GET /${path}: no backends list`);
    return { backends: body.backends };
  }

  private get(path: string, limit: number, signal?: AbortSignal): Promise<unknown> {
    return this.request('GET', path, undefined, limit, this.timeoutMs, signal);
  }

  private post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.request('POST', path, body, DAEMON_BODY_LIMITS.other, this.actTimeoutMs, signal);
  }

  private async request(
    method: string,
    path: string,
    body: unknown,
    limit: number,
    timeoutMs: number,
    outer?: AbortSignal,
  ): Promise<unknown> {
    const ctl = new AbortController();
    let timedOut = false;
    const timer = this.clock.setTimeout(() => {
      timedOut = true;
      ctl.abort();
    }, timeoutMs);
    const onOuter = (): void => ctl.abort();
    outer?.addEventListener('abort', onOuter, { once: true });
    const where = `${method} /${path.split('?')[0]}`;
    try {
      let res: Response;
      try {
        res = await this.fetchImpl(this.url(path), {
          method,
          headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json' }),
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: ctl.signal,
          redirect: 'error',
        });
      } catch (err) {
        if (timedOut) throw new DaemonApiError('deadline', `${where}: no answer within ${timeoutMs} ms`);
        throw new DaemonApiError('unreachable', `${where}: ${reason(err)}`);
      }
      let text: string;
      try {
        text = await readLimited(res, limit);
      } catch (err) {
        if (err instanceof DaemonApiError) throw new DaemonApiError(err.kind, `${where}: ${err.message}`, res.status);
        if (timedOut)
          throw new DaemonApiError('deadline', `${where}: the answer did not end within ${timeoutMs} ms`, res.status);
        throw new DaemonApiError('unreachable', `${where}: ${reason(err)}`, res.status);
      }
      let json: unknown;
      try {
        json = text === '' ? null : JSON.parse(text);
      } catch {
        if (res.ok) throw new DaemonApiError('bad-answer', `${where}: the answer is not JSON`, res.status);
        json = null;
      }
      if (res.ok) return json;
      throw errorOf(where, res, json);
    } finally {
      this.clock.clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    }
  }
}

function errorOf(where: string, res: Response, json: unknown): DaemonApiError {
  const err = isObject(json) && isObject(json.error) ? json.error : null;
  const code = err && typeof err.code === 'string' ? err.code : null;
  const message = err && typeof err.message === 'string' ? err.message : `HTTP ${res.status}`;
  const text = `${where}: ${message}`;
  switch (res.status) {
    case 401:
      return new DaemonApiError(
        'unauthenticated',
        `${where}: the daemon does not know this token (Set Daemon Token...)`,
        401,
        code,
      );
    case 403:
      return new DaemonApiError('forbidden', `${where}: this token may only read`, 403, code);
    case 409:
      return new DaemonApiError(
        'refused',
        text,
        409,
        code,
        isObject(json) ? (json.outcome ?? null) : null,
        null,
        isObject(json) ? json : null,
      );
    case 429: {
      const after = Number(res.headers.get('retry-after'));
      return new DaemonApiError(
        'rate-limited',
        text,
        429,
        code,
        null,
        Number.isFinite(after) && after >= 0 ? after : null,
      );
    }
    case 404:
      return new DaemonApiError('not-found', text, 404, code);
    default:
      return new DaemonApiError(code === 'deadline' ? 'deadline' : 'server', text, res.status, code);
  }
}

/** Reads a body as UTF-8, stopping (and cancelling the stream) as soon as it passes `limit` bytes. */
export async function readLimited(res: Response, limit: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new DaemonApiError('too-large', `the answer is larger than ${limit} bytes`);
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let size = 0;
  let out = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new DaemonApiError('too-large', `the answer is larger than ${limit} bytes`);
    }
    out += decoder.decode(value, { stream: true });
  }
  return out + decoder.decode();
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function reason(err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; message?: string };
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
