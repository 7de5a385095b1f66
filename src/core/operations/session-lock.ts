// The operator's per-session action lock: at most one operator action (abort, wake, recover ...)
// runs on a session at a time in this process. It has the shape of the machine-wide lock
// (src/core/state/session-locker.ts, `SessionLocker`), so a host can hand the operator any
// locker; this one is a set of busy keys that refuses at once, and it also says whether a key is
// held (the menus and the automatic policy ask). The act runner takes it with the machine-wide
// lock as one (act-lock.ts).
import { systemClock } from '../clock';
import type { LockOutcome, LockRequest, SessionLocker } from '../state/session-locker';

export interface SessionLock extends SessionLocker {
  /** Whether an action of this process holds the session now. */
  held(key: string): boolean;
}

export class InProcessSessionLock implements SessionLock {
  private readonly busy = new Map<string, { purpose: string; since: number }>();

  async withSessionLock<T>(key: string, request: LockRequest, body: () => Promise<T>): Promise<LockOutcome<T>> {
    const holder = this.busy.get(key);
    if (holder)
      return {
        acquired: false,
        waitedMs: 0,
        holder: { pid: process.pid, host: 'this process', token: '', since: holder.since, purpose: holder.purpose },
        reason: `${holder.purpose} is already running`,
      };
    this.busy.set(key, { purpose: request.purpose, since: systemClock.now() });
    try {
      return { acquired: true, value: await body() };
    } finally {
      this.busy.delete(key);
    }
  }

  held(key: string): boolean {
    return this.busy.has(key);
  }
}
