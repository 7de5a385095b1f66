// One lock per act, taken in one place (the act runner): this process's action lock of the
// session (refuses at once: `busy`; the menus and the automatic policy ask `held`) and, under it,
// the machine-wide lock of the session (src/core/state/session-locker.ts: every Session Ops
// process honours it; a bounded wait) for the whole act. The core action runs with a locker that
// knows the lock is held: its re-reads and POSTs (actOnce) run under it without taking it again.
// When another process holds the session past the wait, the core action still runs its reads and
// refuses at its POST as busy with the holder named (its result, e.g. the CLI's JSON, as before).
import type { LockOutcome, LockRequest, SessionLocker } from '../state/session-locker';
import type { ActionTarget } from './requests';
import type { SessionLock } from './session-lock';

export class ActLock {
  constructor(
    private readonly inProcess: SessionLock,
    /** The machine-wide locker (the host's, else that of the state directory). */
    private readonly machine: () => SessionLocker,
  ) {}

  /** Whether an act of this process holds the session now. */
  held(key: string): boolean {
    return this.inProcess.held(key);
  }

  /**
   * Runs `body` holding the act's lock: `started` once this process's lock is taken (the act is
   * running from then on); `body` gets the locker its core action takes turns with.
   */
  async hold<T>(
    target: ActionTarget,
    purpose: string,
    started: () => void,
    body: (locker: SessionLocker) => Promise<T>,
  ): Promise<LockOutcome<T>> {
    return this.inProcess.withSessionLock(target.key, { purpose }, async () => {
      started();
      const machine = this.machine();
      const locked = await machine.withSessionLock(target.id, { purpose }, () => body(heldLocker(target.id, machine)));
      if (locked.acquired) return locked.value;
      return body(refusingLocker(target.id, locked, machine));
    });
  }
}

/** The act holds `sessionId`'s lock: a turn on it runs at once; another session's goes to `machine`. */
function heldLocker(sessionId: string, machine: SessionLocker): SessionLocker {
  return {
    async withSessionLock<T>(id: string, request: LockRequest, body: () => Promise<T>): Promise<LockOutcome<T>> {
      if (id !== sessionId) return machine.withSessionLock(id, request, body);
      return { acquired: true, value: await body() };
    },
  };
}

/** Another actor held `sessionId` past the wait: a turn on it is refused as that wait was. */
function refusingLocker(
  sessionId: string,
  refused: Extract<LockOutcome<unknown>, { acquired: false }>,
  machine: SessionLocker,
): SessionLocker {
  return {
    async withSessionLock<T>(id: string, request: LockRequest, body: () => Promise<T>): Promise<LockOutcome<T>> {
      if (id !== sessionId) return machine.withSessionLock(id, request, body);
      return refused;
    },
  };
}
