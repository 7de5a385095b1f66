// One actor at a time per session on one machine: a lock every Session Ops process honours (the
// extension windows, CLI runs, the daemon), held around the re-read and the POST of an action.
//
// The lock is a directory `locks/<session>.lock` in the state directory, created atomically by
// renaming a prepared directory that already holds its owner record (pid, host, token, since),
// so a lock is never seen without its owner. While held, its mtime is refreshed. A lock is stale
// when its owner is a process of this host that no longer runs, or when its mtime is older than
// `staleMs` (an owner on another host, or one that stopped refreshing). A stale lock is broken
// only under a short break guard (`<session>.lock.break`, itself stale after a few seconds) and
// after judging it stale again under the guard, so two breakers never remove a fresh lock.
// Waiting is bounded: after `waitMs` the caller is told the session is busy and by whom.
// proper-lockfile was not used: it judges staleness by mtime alone and keeps no owner, so a lock
// of a killed process would block every actor for the whole stale period.
import { randomBytes, createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { systemClock, type TimerHandle } from '../clock';
import { Ticker } from '../timing';

export interface LockOwner {
  pid: number;
  host: string;
  token: string;
  /** When it was taken (epoch ms). */
  since: number;
  /** What the holder does ("wake", "abort", ...), for the busy message. */
  purpose: string;
}

export type LockOutcome<T> =
  { acquired: true; value: T } | { acquired: false; waitedMs: number; holder: LockOwner | null; reason: string };

export interface LockRequest {
  /** What the holder does, shown to a waiting actor. */
  purpose: string;
  /** How long to wait for the lock (default the locker's). */
  waitMs?: number;
  signal?: AbortSignal;
}

/** The seam every action takes its per-session lock through. */
export interface SessionLocker {
  /** Runs `body` holding the session's lock; after the bounded wait, refuses as busy (body not run). */
  withSessionLock<T>(sessionId: string, request: LockRequest, body: () => Promise<T>): Promise<LockOutcome<T>>;
}

export interface FileLockOptions {
  /** Default bounded wait (10 s). */
  waitMs?: number;
  /** A lock whose mtime is older than this is stale (30 s); refreshed every staleMs / 3 while held. */
  staleMs?: number;
  /** First pause between attempts (25 ms, growing to 250 ms, with jitter). */
  pollMs?: number;
  /** Whether a pid of this host runs (default: signal 0). */
  isAlive?: (pid: number) => boolean;
  host?: string;
  pid?: number;
}

const BREAK_GUARD_STALE_MS = 5_000;
const OWNER_FILE = 'owner.json';
const OWNER_MAX_BYTES = 4096;

export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock directory's name for a session id (readable, and safe whatever the id holds). */
export function lockName(sessionId: string): string {
  const readable = sessionId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  const digest = createHash('sha256').update(sessionId).digest('hex').slice(0, 10);
  return `${readable}-${digest}.lock`;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return systemClock.sleep(ms, signal).catch(() => undefined);
}

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

async function readOwner(lockPath: string): Promise<LockOwner | null> {
  try {
    const text = await readFile(path.join(lockPath, OWNER_FILE), 'utf8');
    if (text.length > OWNER_MAX_BYTES) return null;
    const o = JSON.parse(text) as Partial<LockOwner>;
    if (typeof o.pid !== 'number' || typeof o.host !== 'string' || typeof o.token !== 'string') return null;
    return {
      pid: o.pid,
      host: o.host,
      token: o.token,
      since: typeof o.since === 'number' ? o.since : 0,
      purpose: typeof o.purpose === 'string' ? o.purpose : 'unknown',
    };
  } catch {
    return null;
  }
}

export function describeHolder(holder: LockOwner | null, now: number): string {
  if (!holder) return 'another actor';
  const age = Math.max(0, Math.round((now - holder.since) / 1000));
  return `process ${holder.pid} on ${holder.host} (${holder.purpose}, for ${age} s)`;
}

/** The machine-wide per-session lock in `<stateDir>/locks`. */
export class FileSessionLocker implements SessionLocker {
  readonly dir: string;
  private readonly waitMs: number;
  private readonly staleMs: number;
  private readonly pollMs: number;
  private readonly isAlive: (pid: number) => boolean;
  private readonly host: string;
  private readonly pid: number;

  constructor(stateDirectory: string, options: FileLockOptions = {}) {
    this.dir = path.join(stateDirectory, 'locks');
    this.waitMs = options.waitMs ?? 10_000;
    this.staleMs = options.staleMs ?? 30_000;
    this.pollMs = options.pollMs ?? 25;
    this.isAlive = options.isAlive ?? processIsAlive;
    this.host = options.host ?? os.hostname();
    this.pid = options.pid ?? process.pid;
  }

  lockPath(sessionId: string): string {
    return path.join(this.dir, lockName(sessionId));
  }

  async withSessionLock<T>(sessionId: string, request: LockRequest, body: () => Promise<T>): Promise<LockOutcome<T>> {
    const lockPath = this.lockPath(sessionId);
    const waitMs = request.waitMs ?? this.waitMs;
    const started = systemClock.now();
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const owner: LockOwner = {
      pid: this.pid,
      host: this.host,
      token: randomBytes(12).toString('hex'),
      since: 0,
      purpose: request.purpose,
    };
    let pause = this.pollMs;
    for (;;) {
      owner.since = systemClock.now();
      if (await this.tryTake(lockPath, owner)) break;
      const holder = await readOwner(lockPath);
      if (await this.isStale(lockPath, holder)) {
        await this.breakStale(lockPath);
        continue;
      }
      const waited = systemClock.now() - started;
      if (waited >= waitMs || request.signal?.aborted)
        return {
          acquired: false,
          waitedMs: waited,
          holder,
          reason: `session ${sessionId} is busy: ${describeHolder(holder, systemClock.now())} holds its lock (waited ${Math.round(waited / 100) / 10} s)`,
        };
      await sleep(Math.min(pause * (0.5 + Math.random()), waitMs - waited), request.signal);
      pause = Math.min(250, pause * 2);
    }
    const refresh = new Ticker(
      Math.max(100, Math.floor(this.staleMs / 3)),
      () => {
        const t = new Date(systemClock.now());
        utimes(lockPath, t, t).catch(() => undefined);
      },
      systemClock,
      { unref: true },
    );
    refresh.start();
    try {
      return { acquired: true, value: await body() };
    } finally {
      refresh.stop();
      await this.release(lockPath, owner.token);
    }
  }

  /** Atomically installs a prepared directory holding the owner record; false when the lock exists. */
  private async tryTake(lockPath: string, owner: LockOwner): Promise<boolean> {
    const prepared = `${lockPath}.${owner.pid}.${owner.token}.new`;
    await mkdir(prepared, { mode: 0o700 });
    try {
      await writeFile(path.join(prepared, OWNER_FILE), JSON.stringify(owner), { mode: 0o600 });
      await rename(prepared, lockPath);
      return true;
    } catch (err) {
      if (['EEXIST', 'ENOTEMPTY', 'EISDIR', 'EPERM'].includes(code(err) ?? '')) return false;
      throw err;
    } finally {
      await rm(prepared, { recursive: true, force: true });
    }
  }

  private async isStale(lockPath: string, holder: LockOwner | null): Promise<boolean> {
    if (holder && holder.host === this.host && !(holder.pid === this.pid) && !this.isAlive(holder.pid)) return true;
    try {
      const info = await stat(lockPath);
      return systemClock.now() - info.mtimeMs > this.staleMs;
    } catch (err) {
      if (code(err) === 'ENOENT') return false;
      throw err;
    }
  }

  /** Removes a stale lock, judged stale again under the break guard. */
  private async breakStale(lockPath: string): Promise<void> {
    const guard = `${lockPath}.break`;
    try {
      await mkdir(guard);
    } catch (err) {
      if (code(err) !== 'EEXIST') throw err;
      const info = await stat(guard).catch(() => null);
      if (info && systemClock.now() - info.mtimeMs > BREAK_GUARD_STALE_MS)
        await rm(guard, { recursive: true, force: true });
      await sleep(this.pollMs);
      return;
    }
    try {
      const holder = await readOwner(lockPath);
      if (await this.isStale(lockPath, holder)) await this.remove(lockPath);
    } finally {
      await rm(guard, { recursive: true, force: true });
    }
  }

  /** Releases the lock when this holder still owns it (a lock broken as stale is left alone). */
  private async release(lockPath: string, token: string): Promise<void> {
    const holder = await readOwner(lockPath);
    if (holder?.token === token) await this.remove(lockPath);
  }

  private async remove(lockPath: string): Promise<void> {
    const gone = `${lockPath}.${randomBytes(6).toString('hex')}.gone`;
    try {
      await rename(lockPath, gone);
    } catch (err) {
      if (code(err) === 'ENOENT') return;
      throw err;
    }
    await rm(gone, { recursive: true, force: true });
  }
}

/** A lock for one process only (no state directory): actors in this process still take turns. */
export class ProcessSessionLocker implements SessionLocker {
  private readonly tails = new Map<string, Promise<void>>();
  constructor(private readonly waitMs = 10_000) {}

  async withSessionLock<T>(sessionId: string, request: LockRequest, body: () => Promise<T>): Promise<LockOutcome<T>> {
    const previous = this.tails.get(sessionId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => mine);
    this.tails.set(sessionId, tail);
    const started = systemClock.now();
    const waitMs = request.waitMs ?? this.waitMs;
    let timer: TimerHandle | undefined;
    const timedOut = await Promise.race([
      previous.then(() => false),
      new Promise<boolean>((r) => (timer = systemClock.setTimeout(() => r(true), waitMs))),
    ]);
    systemClock.clearTimeout(timer);
    if (timedOut) {
      // Let the ones queued behind pass once the holder is done.
      void previous.then(release);
      if (this.tails.get(sessionId) === tail) void tail.then(() => this.cleanup(sessionId, tail));
      return {
        acquired: false,
        waitedMs: systemClock.now() - started,
        holder: null,
        reason: `session ${sessionId} is busy: another action of this process holds it (waited ${Math.round(waitMs / 100) / 10} s)`,
      };
    }
    try {
      return { acquired: true, value: await body() };
    } finally {
      release();
      this.cleanup(sessionId, tail);
    }
  }

  private cleanup(sessionId: string, tail: Promise<void>): void {
    if (this.tails.get(sessionId) === tail) this.tails.delete(sessionId);
  }
}

/**
 * The locker of a process: the file lock in the state directory when there is one, else a lock
 * for this process only.
 */
export function sessionLockerFor(stateDirectory: string | null, options: FileLockOptions = {}): SessionLocker {
  return stateDirectory ? new FileSessionLocker(stateDirectory, options) : new ProcessSessionLocker(options.waitMs);
}
