// The per-session action lock: at most one action runs on a session at a time. The operator asks
// through `withSessionLock`; this in-process lock is a set of busy keys, and a host that shares
// sessions with other processes backs the same interface with a lock in its state directory.

/** What `withSessionLock` gives back: the function's value, or that another action holds the session. */
export type Locked<T> = { acquired: true; value: T } | { acquired: false };

export interface SessionLock {
  /** Runs `fn` holding the session's lock; resolves `{ acquired: false }` at once when it is held. */
  withSessionLock<T>(key: string, fn: () => Promise<T>): Promise<Locked<T>>;
  /** Whether an action of this process holds the session now. */
  held(key: string): boolean;
}

export class InProcessSessionLock implements SessionLock {
  private readonly busy = new Set<string>();

  async withSessionLock<T>(key: string, fn: () => Promise<T>): Promise<Locked<T>> {
    if (this.busy.has(key)) return { acquired: false };
    this.busy.add(key);
    try {
      return { acquired: true, value: await fn() };
    } finally {
      this.busy.delete(key);
    }
  }

  held(key: string): boolean {
    return this.busy.has(key);
  }
}
