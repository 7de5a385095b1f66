// How much the operator remembers: verdicts automatic mode acted on and completion reports a person
// has seen are kept for a month and at most OPERATOR_STATE_MAX_ENTRIES of each (the newest), in
// memory as on disk, so a host that runs for months over thousands of sessions stays bounded.
import type { EpochMs } from '../model';

const HOUR = 3_600_000;
/** How long finished retries and remembered verdicts and reports are kept. */
export const OPERATOR_STATE_KEEP_MS = 30 * 24 * HOUR;
/** At most this many verdicts and seen reports are kept (the newest). */
export const OPERATOR_STATE_MAX_ENTRIES = 5_000;

/**
 * A key -> time memory bounded by age and count. Pruning runs when the memory passes its count
 * (down to nine tenths of it, so it is not sorted on every insert) or an hour after the last one.
 */
export class TimedMemory {
  private readonly entries = new Map<string, EpochMs>();
  private prunedAt: EpochMs;

  constructor(
    private readonly now: () => EpochMs,
    private readonly keepMs = OPERATOR_STATE_KEEP_MS,
    private readonly maxEntries = OPERATOR_STATE_MAX_ENTRIES,
  ) {
    this.prunedAt = now();
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Remembers the key at `at` (the later of two times wins). */
  set(key: string, at: EpochMs): void {
    const had = this.entries.get(key);
    if (had === undefined || at > had) this.entries.set(key, at);
    this.prune();
  }

  /** Entries no older than the keep time, the newest at most max entries. */
  toRecord(): Record<string, EpochMs> {
    this.prune(true);
    return Object.fromEntries(this.entries);
  }

  private prune(force = false): void {
    const now = this.now();
    const overCount = this.entries.size > this.maxEntries;
    if (!force && !overCount && now - this.prunedAt < HOUR) return;
    this.prunedAt = now;
    const since = now - this.keepMs;
    for (const [k, t] of this.entries) if (t < since) this.entries.delete(k);
    if (this.entries.size <= this.maxEntries) return;
    const keep = overCount && !force ? Math.floor(this.maxEntries * 0.9) : this.maxEntries;
    const oldest = [...this.entries].sort((a, b) => a[1] - b[1]).slice(0, this.entries.size - keep);
    for (const [k] of oldest) this.entries.delete(k);
  }
}
