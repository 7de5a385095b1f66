// The one clock: every read of the time and every wait in Session Ops goes through a `Clock`,
// injected (a host creates `systemClock`, a test a manual one that moves only when told:
// test/support/manual-clock.ts). Nothing else reads `Date.now()` or arms a raw timer: the lint rule
// `session-ops/no-raw-timers` (eslint.config.mjs) holds every file outside this one to that.
import { BackendError } from './backend/errors';
import type { EpochMs } from './model';

/** A timer armed on a clock (opaque: only its clock may clear it). */
export type TimerHandle = { readonly timer: unknown };

export interface Clock {
  /** The time now, in milliseconds since the epoch. */
  now(): EpochMs;
  /** Runs `fn` once, `ms` from now, until cleared. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
  /** Resolves `ms` from now; rejects at once with an `aborted` BackendError when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The error a wait ends with when its signal aborts. */
export function abortedWait(): BackendError {
  return new BackendError({ code: 'aborted', operation: 'wait', baseUrl: '' });
}

/** A `sleep` on a clock's own timers (what every clock's sleep is, unless it moves time itself). */
export function sleepOn(
  timers: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
  ms: number,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedWait());
    const onAbort = () => {
      timers.clearTimeout(handle);
      reject(abortedWait());
    };
    const handle = timers.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A timer that does not keep the process alive on its own (a fallback exit, a refresh); no-op on a manual clock. */
export function unrefTimer(handle: TimerHandle): TimerHandle {
  (handle.timer as { unref?: () => void } | undefined)?.unref?.();
  return handle;
}

/** The process's own clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => ({ timer: setTimeout(fn, ms) }),
  clearTimeout: (handle) => {
    if (handle) clearTimeout(handle.timer as ReturnType<typeof setTimeout>);
  },
  sleep: (ms, signal) => sleepOn(systemClock, ms, signal),
};

/** A clock `offsetMs()` ahead of `base` (the editor's test hook moves the time on without waiting). */
export function offsetClock(base: Clock, offsetMs: () => number): Clock {
  return {
    now: () => base.now() + offsetMs(),
    setTimeout: (fn, ms) => base.setTimeout(fn, ms),
    clearTimeout: (handle) => base.clearTimeout(handle),
    sleep: (ms, signal) => base.sleep(ms, signal),
  };
}
