// Typed, readable backend errors. Every failure of a request (HTTP status, timeout, refused
// connection, malformed body) becomes one BackendError; callers never see raw undici errors and
// never get a guessed result. Messages name the method, the path and the base URL, never the
// credentials, the query (the directory) or a response body (stock opencode echoes API keys).
import { ShapeError } from './wire/shape';

export type BackendErrorCode =
  /** 401/403: missing or wrong password. */
  | 'unauthorized'
  /** 404: the session (or endpoint) does not exist; `sessionId` is set for a vanished session. */
  | 'not-found'
  /** Another 4xx (or an unexpected 3xx): the backend refused the request as sent. */
  | 'rejected'
  /** 5xx. */
  | 'server'
  /** No complete answer (headers and body) within the request's total deadline. */
  | 'timeout'
  /** Nothing listens at the base URL. */
  | 'refused'
  /** The body is not JSON, or not the JSON shape the client relies on. */
  | 'malformed'
  /** The body is larger than the documented limit of its endpoint (BODY_LIMITS); reading stopped there. */
  | 'too-large'
  /** Any other transport failure (reset, DNS, TLS ...). */
  | 'network'
  /** The caller's AbortSignal fired. */
  | 'aborted'
  /** The call itself was invalid (an unsafe session id, an empty directory, a bad payload). */
  | 'invalid-request';

export interface BackendErrorInit {
  code: BackendErrorCode;
  /** What was being done, e.g. "GET /session". */
  operation: string;
  baseUrl: string;
  status?: number | null;
  sessionId?: string | null;
  detail?: string;
  cause?: unknown;
}

const SUMMARY: Record<BackendErrorCode, string> = {
  unauthorized: 'the backend refused the credentials (set SESSION_OPS_PASSWORD, or the password in the editor)',
  'not-found': 'not found',
  rejected: 'the backend rejected the request',
  server: 'the backend failed with a server error',
  timeout: 'the backend did not answer in time',
  refused: 'connection refused (is the backend running at this address?)',
  malformed: 'the backend answered with a body this client cannot read',
  'too-large': 'the backend answered with a body larger than this client reads',
  network: 'network error',
  aborted: 'cancelled',
  'invalid-request': 'invalid request',
};

export class BackendError extends Error {
  readonly code: BackendErrorCode;
  readonly operation: string;
  readonly baseUrl: string;
  readonly status: number | null;
  readonly sessionId: string | null;

  constructor(init: BackendErrorInit) {
    const status = init.status ?? null;
    const what =
      init.code === 'not-found' && init.sessionId
        ? `session ${init.sessionId} not found (it may have been deleted)`
        : SUMMARY[init.code];
    const tail = [status !== null ? `HTTP ${status}` : null, init.detail ?? null].filter(Boolean).join('; ');
    super(
      redactSecrets(`${init.operation} on ${init.baseUrl}: ${what}${tail ? ` (${tail})` : ''}`),
      init.cause !== undefined ? { cause: init.cause } : undefined,
    );
    this.name = 'BackendError';
    this.code = init.code;
    this.operation = init.operation;
    this.baseUrl = init.baseUrl;
    this.status = status;
    this.sessionId = init.sessionId ?? null;
  }
}

export function isBackendError(err: unknown, code?: BackendErrorCode): err is BackendError {
  return err instanceof BackendError && (code === undefined || err.code === code);
}

/** Maps an HTTP status outside 2xx to an error code. */
export function codeForStatus(status: number): BackendErrorCode {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not-found';
  if (status >= 500) return 'server';
  return 'rejected';
}

const CODE_KIND: Record<string, BackendErrorCode> = {
  ECONNREFUSED: 'refused',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
};

/** Classifies a transport-level error thrown by undici (or by an abort). */
export function codeForTransportError(err: unknown): BackendErrorCode {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CODE_KIND[code]) return CODE_KIND[code];
    const name = (e as { name?: unknown }).name;
    if (name === 'TimeoutError') return 'timeout';
    // AggregateError (happy eyeballs): look inside.
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) {
      const inner = errors.map(codeForTransportError);
      if (inner.includes('refused')) return 'refused';
      if (inner.includes('timeout')) return 'timeout';
    }
  }
  return 'network';
}

const CODE_DETAIL: Record<string, string> = {
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection closed by the backend',
  EPIPE: 'connection closed by the backend',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'body shorter or longer than announced',
  HPE_INVALID_CONSTANT: 'not an HTTP answer',
  ENOTFOUND: 'host not found',
};

/** Short description of a transport error without any request data in it. */
export function transportDetail(err: unknown): string | undefined {
  const code = (err as { code?: unknown })?.code ?? (err as { cause?: { code?: unknown } })?.cause?.code;
  if (typeof code !== 'string' || !/^[A-Z0-9_]{1,60}$/.test(code)) return undefined;
  return CODE_DETAIL[code] ? `${CODE_DETAIL[code]}, ${code}` : code;
}

/**
 * Removes credentials from a text meant for a log line or an error message: the value of an
 * Authorization header or an HTTP Basic/Bearer token, userinfo in a URL, and API-key-like
 * fields ("apiKey": "...", api_key=...).
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/(authorization["']?\s*[:=]\s*["']?)[^"',;\r\n]+/gi, '$1[redacted]')
    .replace(/\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~-]{6,}/g, '$1 [redacted]')
    .replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+:[^/\s@]*@/gi, '$1[redacted]@')
    .replace(/((?:api[-_]?key|token|secret|password)["']?\s*[:=]\s*["']?)[^"'\s,;}&]+/gi, '$1[redacted]');
}

/** `read()` of a backend's answer, its ShapeError (not the shape relied on) a `malformed` BackendError. */
export function readShaped<T>(operation: string, baseUrl: string, read: () => T, sessionId?: string): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof ShapeError)
      throw new BackendError({ code: 'malformed', operation, baseUrl, sessionId, detail: err.message });
    throw err;
  }
}
