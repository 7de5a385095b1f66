// Completion reports the operator has seen: the last report of each session (kept when a newer
// message arrives, with the message text it came in) and the reports a person opened (harvested:
// they no longer need attention). State of the operator, shared by every view of it.
import { systemClock } from '../clock';
import type { EpochMs } from '../model';
import { reportKey } from '../keys';
import { needsAttention, type SessionRow } from '../monitor/row';
import { TimedMemory } from './memory-bounds';

export interface KeptReport {
  report: NonNullable<SessionRow['report']>;
  text: string | null;
}

export class ReportBook {
  private readonly kept = new Map<string, KeptReport>();
  /** Report keys a person opened, and when. */
  private readonly seen: TimedMemory;
  private readonly seenListeners = new Set<() => void>();
  private marks = 0;

  constructor(private readonly now: () => EpochMs = systemClock.now) {
    this.seen = new TimedMemory(now);
  }
  /** The rows array the kept reports were last taken from in full. */
  private syncedRows: readonly SessionRow[] | null = null;

  /** Takes the reports of the changed rows, or (null) of every row, dropping sessions no longer listed. */
  sync(
    changed: readonly SessionRow[] | null,
    rows: () => readonly SessionRow[],
    listed: (key: string) => boolean,
  ): void {
    if (changed) {
      for (const r of changed) if (r.report) this.kept.set(r.key, { report: r.report, text: r.newestText });
      return;
    }
    const all = rows();
    if (this.syncedRows === all) return;
    this.syncedRows = all;
    for (const r of all) if (r.report) this.kept.set(r.key, { report: r.report, text: r.newestText });
    for (const k of this.kept.keys()) if (!listed(k)) this.kept.delete(k);
  }

  /** The session's completion report: the current one, else the last one kept. */
  reportOf(row: SessionRow): KeptReport | undefined {
    return row.report ? { report: row.report, text: row.newestText } : this.kept.get(row.key);
  }

  hasKept(rowKey: string): boolean {
    return this.kept.has(rowKey);
  }

  /** Harvest: a person opened the row's report. Whether this changed anything. */
  markSeen(row: SessionRow): boolean {
    const key = reportKey(row);
    if (!key || this.seen.has(key)) return false;
    this.seen.set(key, this.now());
    this.marks++;
    for (const l of this.seenListeners) l();
    return true;
  }

  /** A report was marked seen (the operator persists it). */
  onDidMarkSeen(listener: () => void): () => void {
    this.seenListeners.add(listener);
    return () => this.seenListeners.delete(listener);
  }

  /** The seen reports to persist. */
  seenEntries(): Record<string, EpochMs> {
    return this.seen.toRecord();
  }

  /** Adds persisted seen reports (after a reload or a restart). */
  rememberSeen(entries: Record<string, EpochMs>): void {
    for (const [k, t] of Object.entries(entries)) {
      if (!this.seen.has(k)) this.marks++;
      this.seen.set(k, t);
    }
  }

  /** How many reports were marked seen or remembered so far (changes whenever one is marked). */
  get seenCount(): number {
    return this.marks;
  }

  /** Whether the row needs attention (a harvested report does not). */
  needsAttention(row: SessionRow): boolean {
    if (!needsAttention(row)) return false;
    // The report's key is built only when a harvested report could match (counted over every row).
    if (this.seen.size === 0 || !row.badge.startsWith('report-')) return true;
    const key = reportKey(row);
    return !(key && this.seen.has(key));
  }
}
