// The few timed shapes the hosts use, each on an injected Clock (src/core/clock.ts): a debounce, a
// coalescing delay, a ticker, a queue that hands items out in slices, one that hands them out one
// per turn, a deadline on a promise.
import { systemClock, unrefTimer, type Clock, type TimerHandle } from './clock';

/** A run of `fn` `ms` from when it is armed, until it runs or is cancelled. */
class OneShot {
  private handle: TimerHandle | undefined;

  constructor(
    private readonly ms: number,
    private readonly fn: () => void,
    private readonly timers: Clock = systemClock,
  ) {}

  get pending(): boolean {
    return this.handle !== undefined;
  }

  protected arm(): void {
    this.handle = this.timers.setTimeout(() => {
      this.handle = undefined;
      this.fn();
    }, this.ms);
  }

  cancel(): void {
    if (this.handle) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }
}

/** Runs `fn` once, `ms` after the last `trigger` (a burst of triggers runs it once). */
export class Debounce extends OneShot {
  trigger(): void {
    this.cancel();
    this.arm();
  }
}

/** Runs `fn` once, `ms` after the first `trigger` since it last ran (later triggers wait with it). */
export class Coalesce extends OneShot {
  trigger(): void {
    if (!this.pending) this.arm();
  }
}

/** Runs `fn` every `ms` between `start` and `stop` (`unref`: its timers alone keep no process alive). */
export class Ticker {
  private handle: TimerHandle | undefined;

  constructor(
    private readonly ms: number,
    private readonly fn: () => void,
    private readonly timers: Clock = systemClock,
    private readonly options: { unref?: boolean } = {},
  ) {}

  start(): void {
    this.stop();
    const arm = () => {
      const handle = this.timers.setTimeout(tick, this.ms);
      this.handle = this.options.unref ? unrefTimer(handle) : handle;
    };
    const tick = () => {
      arm();
      this.fn();
    };
    arm();
  }

  stop(): void {
    if (this.handle) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }
}

/**
 * Hands queued items to `emit` in later turns of the event loop, at most `size` in any `gapMs`:
 * the first slice on the next timer tick (never inside the stretch that queued it), each later one
 * a gap after the one before, so no single stretch of work grows with the number of items and
 * items queued by many callers in quick succession are spread out too. An item queued twice
 * before it is handed out goes once. With a `weight`, `size` bounds the sum of the weights in a slice.
 */
export class SlicedQueue<T> {
  private readonly pending = new Set<T>();
  private handle: TimerHandle | undefined;

  constructor(
    private readonly size: number,
    private readonly gapMs: number,
    private readonly emit: (slice: T[]) => void,
    private readonly timers: Clock = systemClock,
    /** What an item costs against `size` (an item that stands for many, e.g. a tree parent re-fetching its children). */
    private readonly weight: (item: T) => number = () => 1,
  ) {}

  add(items: Iterable<T>): void {
    for (const item of items) this.pending.add(item);
    if (!this.handle && this.pending.size > 0) this.handle = this.timers.setTimeout(() => this.flush(), 0);
  }

  private flush(): void {
    this.handle = undefined;
    const slice: T[] = [];
    let left = this.size;
    for (const item of this.pending) {
      const w = Math.max(1, this.weight(item));
      // A slice holds at least one item, however heavy.
      if (slice.length > 0 && w > left) break;
      slice.push(item);
      left -= w;
      if (left <= 0) break;
    }
    if (slice.length === 0) return;
    for (const item of slice) this.pending.delete(item);
    // The next slice (queued now or later) waits a gap after this one.
    this.handle = this.timers.setTimeout(() => this.flush(), this.gapMs);
    this.emit(slice);
  }

  dispose(): void {
    if (this.handle) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
    this.pending.clear();
  }
}

/**
 * Hands each queued item to `handle` in a turn of the event loop of its own, in order: one item
 * per timer tick, never inside the stretch that queued it, so work that follows an event (the
 * listeners of a change) is a stretch apart from the work that raised it, and many items queued
 * together are not one stretch either.
 */
export class TurnQueue<T> {
  private readonly items: T[] = [];
  private head = 0;
  private timer: TimerHandle | undefined;

  constructor(
    private readonly handle: (item: T) => void,
    private readonly timers: Clock = systemClock,
  ) {}

  add(item: T): void {
    this.items.push(item);
    this.timer ??= this.timers.setTimeout(() => this.next(), 0);
  }

  /** Items queued and not yet handled. */
  get size(): number {
    return this.items.length - this.head;
  }

  private next(): void {
    this.timer = undefined;
    const item = this.items[this.head++];
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else {
      this.timer = this.timers.setTimeout(() => this.next(), 0);
    }
    this.handle(item);
  }

  dispose(): void {
    if (this.timer) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.items.length = 0;
    this.head = 0;
  }
}

/** Resolves after `ms` (0: after the current turn of the event loop). */
export function delay(ms: number, timers: Clock = systemClock): Promise<void> {
  return new Promise((resolve) => timers.setTimeout(resolve, ms));
}

/** The promise's value, or the error `onTimeout` gives when it has not settled within `ms`. */
export async function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error,
  timers: Clock = systemClock,
): Promise<T> {
  let handle: TimerHandle | undefined;
  const deadline = new Promise<never>((_, reject) => {
    handle = timers.setTimeout(() => reject(onTimeout()), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    if (handle) timers.clearTimeout(handle);
  }
}
