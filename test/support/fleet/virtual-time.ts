// One virtual time for a generated-fleet run: the monitor's and the clients' clock, the operator's
// timers (scheduled retries) and the actions' clock (their waits). A wait of an action moves the
// time on at once (after one turn of the event loop, so the loopback requests progress); timers
// fire only when the run advances the time, in order.
import { BackendError } from '../../../src/core/backend/errors';
import type { Clock } from '../../../src/core/actions';
import type { TimerHandle, Timers } from '../../../src/core/timing';

export class VirtualTime implements Timers, Clock {
  private t: number;
  private pending: Array<{ at: number; fn: () => void; handle: TimerHandle }> = [];

  constructor(start: number) {
    this.t = start;
  }

  readonly now = (): number => this.t;

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = { timer: Symbol('virtual timer') };
    this.pending.push({ at: this.t + Math.max(0, ms), fn, handle });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending = this.pending.filter((p) => p.handle !== handle);
  }

  /** An action's wait: the time moves on by `ms`; no timer fires on the way. */
  readonly sleep = async (ms: number, signal?: AbortSignal): Promise<void> => {
    const aborted = () => new BackendError({ code: 'aborted', operation: 'wait', baseUrl: '' });
    if (signal?.aborted) throw aborted();
    this.t += Math.max(0, ms);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw aborted();
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
