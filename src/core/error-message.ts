// The one way an unknown thrown value becomes a message for a log line, a row or stderr.

/** The message of an Error (a BackendError's included), else the value as text. */
export function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
