// The daemon's log: one JSON object per line ({time, level, event, ...fields}). Fields that could
// carry a credential (a password, an Authorization header, provider options, an API key) are never
// written, and text that looks like an HTTP Basic or Bearer credential is masked.
import { systemClock } from '../clock';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** The levels, least severe first. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

export type LogFields = Record<string, unknown>;

export type Logger = (level: LogLevel, event: string, fields?: LogFields) => void;

const SECRET_KEY = /^(password|passwd|authorization|options|apikey|api_key|token|secret|headers)$/i;
const CREDENTIAL_TEXT = /\b(Basic|Bearer)\s+[A-Za-z0-9+/=._~-]{6,}/g;

function clean(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.replace(CREDENTIAL_TEXT, '$1 [redacted]');
  if (value === null || typeof value !== 'object' || depth > 4) return value;
  if (Array.isArray(value)) return value.map((v) => clean(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!SECRET_KEY.test(k)) out[k] = clean(v, depth + 1);
  return out;
}

/**
 * A logger writing JSON lines through `write` (stdout in the CLI), at `minLevel` and above
 * (default debug: everything); a function is read at every line, so a reload can change it.
 */
export function jsonLineLogger(
  write: (line: string) => void,
  options: { now?: () => number; minLevel?: LogLevel | (() => LogLevel) } = {},
): Logger {
  const minLevel = options.minLevel ?? 'debug';
  const min = typeof minLevel === 'function' ? minLevel : () => minLevel;
  const now = options.now ?? systemClock.now;
  return (level, event, fields = {}) => {
    if (LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(min())) return;
    const record = { time: new Date(now()).toISOString(), level, event, ...(clean(fields) as LogFields) };
    write(`${JSON.stringify(record)}\n`);
  };
}
