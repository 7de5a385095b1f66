// How much the operator remembers, in memory as on disk, so that a host running for months over
// thousands of sessions stays bounded: entries older than a month go, and a memory keyed by time
// (the completion reports a person has seen) keeps at most OPERATOR_STATE_MAX_ENTRIES, the newest.
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
    const keep = overCount && !force ? Math.floor(this.maxEntries * 0.9) : this.maxEntries;
    const kept = newestTimes(this.entries, now - this.keepMs, keep);
    if (kept.length === this.entries.size) return;
    this.entries.clear();
    for (const [k, t] of kept) this.entries.set(k, t);
  }
}

/** The entries at or after `since`, the newest `max` of them, newest first. */
export function newestTimes(
  entries: Iterable<[string, EpochMs]>,
  since: EpochMs,
  max = OPERATOR_STATE_MAX_ENTRIES,
): Array<[string, EpochMs]> {
  const kept: Array<[string, EpochMs]> = [];
  for (const e of entries) if (e[1] >= since) kept.push(e);
  return kept.length <= max ? kept : kept.sort((a, b) => b[1] - a[1]).slice(0, max);
}
