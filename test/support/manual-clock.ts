// A manual Clock (src/core/clock.ts) for tests: time moves only when the test says. Timers fire
// only when the test advances the time, in order; a `sleep` (an action's wait) moves the time on at
// once, after one turn of the event loop (so loopback requests progress), firing no timer on the way.
// With `realSleeps`, a sleep first waits as long in real time (a test backend that answers on real
// timers, such as the spec server's answered prompts, gets the time it needs), then moves the time on.
import { abortedWait, systemClock, type Clock, type TimerHandle } from '../../src/core/clock';

export class ManualClock implements Clock {
  private t: number;
  private pending: Array<{ at: number; fn: () => void; handle: TimerHandle }> = [];

  constructor(
    start = Date.now(),
    private readonly options: { realSleeps?: boolean } = {},
  ) {
    this.t = start;
  }

  readonly now = (): number => this.t;

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = { timer: Symbol('manual timer') };
    this.pending.push({ at: this.t + Math.max(0, ms), fn, handle });
    return handle;
  }

  clearTimeout(handle: TimerHandle | undefined): void {
    this.pending = this.pending.filter((p) => p.handle !== handle);
  }

  readonly sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) throw abortedWait();
    if (this.options.realSleeps) await systemClock.sleep(ms, signal);
    this.t += Math.max(0, ms);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw abortedWait();
  };

  /** Timers not yet fired. */
  get size(): number {
    return this.pending.length;
  }

  /** Moves the time on by `ms`, firing every timer due on the way, in order; how many fired. */
  advance(ms: number): number {
    const end = this.t + ms;
    let fired = 0;
    for (;;) {
      const next = this.pending.filter((p) => p.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.pending = this.pending.filter((p) => p !== next);
      this.t = Math.max(this.t, next.at);
      fired++;
      next.fn();
    }
    this.t = Math.max(this.t, end);
    return fired;
  }
}

/** The system's timers and waits, with a time the test sets (`now`). */
export function clockReading(now: () => number): Clock {
  return { ...systemClock, now };
}
