// Failed authentication attempts, per client address (issue 32 item 2): the first FREE_FAILURES
// failures cost nothing; from then on every further failure blocks the address for a time that
// doubles (1 s, 2 s, 4 s ... at most MAX_BLOCK_MS). While blocked, every request of the address that
// needs a token is answered 429 with Retry-After, without looking at its token. A success clears the
// address; an address without a failure for FORGET_AFTER_MS is forgotten. At most MAX_ADDRESSES are
// tracked (the oldest forgotten first), so a flood of addresses never grows memory without bound.
import { systemClock } from '../../clock';
export const FREE_FAILURES = 4;
export const FIRST_BLOCK_MS = 1_000;
export const MAX_BLOCK_MS = 5 * 60_000;
export const FORGET_AFTER_MS = 15 * 60_000;
export const MAX_ADDRESSES = 10_000;

interface Entry {
  failures: number;
  lastFailureAt: number;
  blockedUntil: number;
}

export class FailureLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly now: () => number = systemClock.now,
    private readonly maxAddresses = MAX_ADDRESSES,
  ) {}

  /** Milliseconds the address must wait (0: it may try). */
  blockedFor(address: string): number {
    const e = this.entries.get(address);
    if (!e) return 0;
    const now = this.now();
    if (now - e.lastFailureAt > FORGET_AFTER_MS) {
      this.entries.delete(address);
      return 0;
    }
    return Math.max(0, e.blockedUntil - now);
  }

  /** Notes a failure; the block it starts, in ms (0: none yet). */
  fail(address: string): number {
    const now = this.now();
    let e = this.entries.get(address);
    if (e && now - e.lastFailureAt > FORGET_AFTER_MS) e = undefined;
    if (!e) {
      e = { failures: 0, lastFailureAt: now, blockedUntil: 0 };
      if (this.entries.size >= this.maxAddresses) this.entries.delete(this.entries.keys().next().value as string);
    }
    // Re-inserted: the map's order is the order of last failure, oldest first.
    this.entries.delete(address);
    this.entries.set(address, e);
    e.failures += 1;
    e.lastFailureAt = now;
    if (e.failures <= FREE_FAILURES) return 0;
    const block = Math.min(MAX_BLOCK_MS, FIRST_BLOCK_MS * 2 ** Math.min(20, e.failures - FREE_FAILURES - 1));
    e.blockedUntil = now + block;
    return block;
  }

  succeed(address: string): void {
    this.entries.delete(address);
  }

  /** Addresses tracked now (tests, the memory bound). */
  get size(): number {
    return this.entries.size;
  }
}
