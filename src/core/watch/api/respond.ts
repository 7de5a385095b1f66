// How every answer of the daemon's HTTP API is written (docs/daemon-api.md): JSON as
// `application/json; charset=utf-8` with `cache-control: no-store`; errors as
// {"error": {"code", "message"}} with a typed code. No cookie and no CORS header is ever set.
import type { ServerResponse } from 'node:http';

export type ErrorCode =
  | 'unauthenticated'
  | 'forbidden'
  | 'rate-limited'
  | 'not-found'
  | 'unknown-session'
  | 'unknown-request'
  | 'method-not-allowed'
  | 'bad-request'
  | 'unsupported-media-type'
  | 'too-large'
  | 'uri-too-long'
  | 'deadline'
  | 'unavailable'
  | 'internal'
  | (string & {});

/** What a handler answers: a status, a JSON body, extra headers. */
export interface ApiAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The body already serialised (`JSON.stringify(body)` and a newline, as bytes): written as is. */
  raw?: Buffer;
}

export function apiError(
  status: number,
  code: ErrorCode,
  message: string,
  extra: Record<string, unknown> = {},
): ApiAnswer {
  return { status, body: { error: { code, message }, ...extra } };
}

/** Headers on every answer: nothing cached, nothing sniffed, never framed, no referrer. */
export function baseHeaders(res: ServerResponse): void {
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
}

export function sendText(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  head = false,
): void {
  res.statusCode = status;
  baseHeaders(res);
  res.setHeader('content-type', contentType);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(head ? undefined : body);
}

export function sendJson(res: ServerResponse, answer: ApiAnswer, head = false): void {
  for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
  const body = answer.raw ?? `${JSON.stringify(answer.body)}\n`;
  sendText(res, answer.status, 'application/json; charset=utf-8', body, head);
}
