// Timers that fire only when a test advances the time (src/core/timing Timers).
import type { TimerHandle, Timers } from '../../src/core/timing';

export class ManualTimers implements Timers {
  private t: number;
  private pending: Array<{ at: number; fn: () => void; handle: TimerHandle }> = [];

  constructor(start = Date.now()) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const handle = { timer: Symbol('timer') };
    this.pending.push({ at: this.t + ms, fn, handle });
    return handle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending = this.pending.filter((p) => p.handle !== handle);
  }

  /** Timers not yet fired. */
  get size(): number {
    return this.pending.length;
  }

  /** Moves the clock on by `ms`, firing every timer due on the way, in order. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const next = this.pending.filter((p) => p.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      this.pending = this.pending.filter((p) => p !== next);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
    this.t = end;
  }
}
