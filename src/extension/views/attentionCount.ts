// How many sessions need a person (the Sessions view's badge and the status bar): hung, quota
// wall, waiting, idle with unfinished work, a report not yet harvested, over budget.
import type { SessionRow } from '../../core/monitor/row';
import type { FleetSource } from '../../core/monitor/fleet-source';
import type { ReportBook } from '../../core/operations/reports';

export class AttentionCount {
  private counted: { rows: readonly SessionRow[]; seen: number; count: number } | null = null;

  constructor(
    private readonly monitor: FleetSource,
    private readonly reports: ReportBook,
  ) {}

  /** Whether the row counts (a harvested report does not). */
  needsAttention(row: SessionRow): boolean {
    return this.reports.needsAttention(row);
  }

  /**
   * Counted once per rows array (the monitor rebuilds it only after rows changed) and per
   * harvested report: the view and the status bar both ask after every change event.
   */
  count(): number {
    const rows = this.monitor.rows();
    if (this.counted?.rows !== rows || this.counted.seen !== this.reports.seenCount) {
      this.counted = { rows, seen: this.reports.seenCount, count: rows.filter((r) => this.needsAttention(r)).length };
    }
    return this.counted.count;
  }
}
