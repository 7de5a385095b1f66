// The clock and timers of the operator, injected so that a test (or a host with its own event
// loop) decides when time passes. `systemTimers` is the process's own.
import type { EpochMs } from '../model';

export type TimerHandle = { readonly timer: unknown };

export interface Timers {
  now(): EpochMs;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => ({ timer: setTimeout(fn, ms) }),
  clearTimeout: (handle) => clearTimeout(handle.timer as ReturnType<typeof setTimeout>),
};
