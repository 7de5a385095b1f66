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
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };
const UNIT = '(days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)';
const AMOUNT = new RegExp(`(\\d+(?:\\.\\d+)?)\\s*${UNIT}\\b`, 'gi');
/** "in 3 days", "in 1 hour 30 minutes", "in 45s" after a reset or retry word. */
const RELATIVE = new RegExp(
  `\\b(?:resets?|try again|retry|available again|again)\\b[^.\\n]{0,20}?\\bin\\s+((?:\\d+(?:\\.\\d+)?\\s*${UNIT}\\b[\\s,and]*)+)`,
  'i',
);
/** "after 14:00 UTC", "at 09:30 UTC". */
const CLOCK_UTC = /\b(?:after|at|until)\s+(\d{1,2}):(\d{2})\s*(?:UTC|GMT|Z)\b/i;

/**
 * A reset estimate written in the text: an ISO-8601 time with a zone ("resets at
 * 2026-05-01T10:00:00Z"); a span after a reset or retry word ("resets in 3 days", "try again in
 * 20 minutes"), from `at` (when the failure happened); a UTC clock time ("after 14:00 UTC"), the
 * next such time after `at`. Null when none, or when a relative one has no `at`.
 */
export function resetFromText(text: string, at: EpochMs | null = null): EpochMs | null {
  const m = ISO.exec(text);
  if (m) {
    const t = Date.parse(m[0]);
    if (Number.isFinite(t)) return t;
  }
  if (at === null) return null;
  const rel = RELATIVE.exec(text);
  if (rel) {
    let ms = 0;
    for (const a of rel[1].matchAll(AMOUNT)) ms += Number(a[1]) * UNIT_MS[a[2][0].toLowerCase()];
    if (ms > 0) return Math.round(at + ms);
  }
  const clock = CLOCK_UTC.exec(text);
  if (clock) {
    const h = Number(clock[1]);
    const min = Number(clock[2]);
    if (h > 23 || min > 59) return null;
    const d = new Date(at);
    let t = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), h, min);
    if (t <= at) t += 86_400_000;
    return t;
  }
  return null;
}
