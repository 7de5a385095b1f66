// Scheduled retries: when no provider is free and a reset is within reach, recovery is retried
// once, a little after the reset, never in a tight loop. A retry is only a session key and a
// time; what it does when it fires is given when it is scheduled, and reads the settings then
// current, so a settings change in between neither loses nor freezes it.
import type { EpochMs } from '../model';
import type { Clock, TimerHandle } from '../clock';

/** How long after the reset the retry fires (the provider listing catches up). */
export const RETRY_AFTER_RESET_MS = 5_000;

export interface ScheduledRetry {
  key: string;
  /** The reset the retry waits for. */
  at: EpochMs;
  /** When the timer fires (at + RETRY_AFTER_RESET_MS, or now when the reset passed). */
  firesAt: EpochMs;
}

export class ScheduledRetries {
  private readonly pending = new Map<string, { retry: ScheduledRetry; handle: TimerHandle }>();

  constructor(private readonly timers: Clock) {}

  /** Schedules `fire` for after `at`, replacing any retry of the same key. */
  schedule(key: string, at: EpochMs, fire: (retry: ScheduledRetry) => void): ScheduledRetry {
    this.cancel(key);
    const now = this.timers.now();
    const delay = Math.max(0, at - now) + RETRY_AFTER_RESET_MS;
    const retry: ScheduledRetry = { key, at, firesAt: now + delay };
    const handle = this.timers.setTimeout(() => {
      this.pending.delete(key);
      fire(retry);
    }, delay);
    this.pending.set(key, { retry, handle });
    return retry;
  }

  /** Cancels the key's retry; whether there was one. */
  cancel(key: string): boolean {
    const entry = this.pending.get(key);
    if (!entry) return false;
    this.timers.clearTimeout(entry.handle);
    this.pending.delete(key);
    return true;
  }

  get(key: string): ScheduledRetry | undefined {
    return this.pending.get(key)?.retry;
  }

  list(): ScheduledRetry[] {
    return [...this.pending.values()].map((e) => e.retry);
  }

  dispose(): void {
    for (const e of this.pending.values()) this.timers.clearTimeout(e.handle);
    this.pending.clear();
  }
}
