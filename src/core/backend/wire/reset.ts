// Reset estimates carried by a failure: a Retry-After / retry-after-ms header of the failed model
// call (relative to when it failed), or an ISO-8601 time written in the failure text.
import type { EpochMs } from '../../model';

/** Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date). */
export function resetFromHeaders(headers: Record<string, unknown> | null, failedAt: EpochMs | null): EpochMs | null {
  if (!headers) return null;
  const get = (name: string): string | null => {
    for (const key of Object.keys(headers)) {
      if (key.toLowerCase() === name) {
        const v = headers[key];
        return typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : null;
      }
    }
    return null;
  };
  const ms = get('retry-after-ms');
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms) && failedAt !== null) return Math.round(failedAt + Number(ms));
  const ra = get('retry-after');
  if (ra === null || ra === '') return null;
  if (/^\d+(\.\d+)?$/.test(ra)) return failedAt === null ? null : Math.round(failedAt + Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isFinite(date) ? date : null;
}

const ISO = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})/;

/** An explicit ISO-8601 time with a zone in the text ("resets at 2026-05-01T10:00:00Z"). */
export function resetFromText(text: string): EpochMs | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const t = Date.parse(m[0]);
  return Number.isFinite(t) ? t : null;
}
