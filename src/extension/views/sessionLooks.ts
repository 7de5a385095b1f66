// What each session row of the Sessions view shows (description and menu flags), computed once
// per change: the look of a changed row is kept for its tree item, which VS Code asks for soon after.
import { joinKey } from '../../core/ids';
import { sessionContextValue } from '../../core/monitor/context-values';
import { describeRow } from '../../core/monitor/present';
import type { SessionRow } from '../../core/monitor/row';
import { describeOperation, type OperationBook } from '../../core/operations/book';
import type { ReportBook } from '../../core/operations/reports';

/** How long the look computed for a changed row serves its tree item (descriptions say "5 s ago"). */
const FRESH_LOOK_MS = 2_000;

/** What a session row shows: its description and menu flags, and both with the badge and title as one comparable key. */
export type Look = { key: string; description: string; contextValue: string };

export class SessionLooks {
  /** The last rendered look of each session row, as its comparable key. */
  private readonly rendered = new Map<string, string>();
  /** The look just computed for a changed row, taken by its tree item when VS Code asks for it soon after. */
  private readonly fresh = new Map<string, { row: SessionRow; look: Look; at: number }>();
  private showCost = true;

  constructor(
    private readonly operations: OperationBook,
    private readonly reports: ReportBook,
  ) {}

  /** sessionOps.showCost: the cost on each session row. True when it changed (every row then renders anew). */
  setShowCost(show: boolean): boolean {
    if (show === this.showCost) return false;
    this.showCost = show;
    this.fresh.clear();
    return true;
  }

  /** Whether the row looks different from when it was last rendered; the new look is kept for its tree item. */
  changed(row: SessionRow, now: number): boolean {
    const look = this.compute(row, now);
    if (this.rendered.get(row.key) === look.key) return false;
    this.rendered.set(row.key, look.key);
    this.fresh.set(row.key, { row, look, at: now });
    return true;
  }

  /** The row's look: the one computed when it changed if that is recent and still about this row, else computed now. */
  current(row: SessionRow, now: number): Look {
    const fresh = this.fresh.get(row.key);
    this.fresh.delete(row.key);
    if (fresh && fresh.row === row && now - fresh.at < FRESH_LOOK_MS) return fresh.look;
    const look = this.compute(row, now);
    this.rendered.set(row.key, look.key);
    return look;
  }

  /** Something the look depends on changed outside the monitor (an operation, a harvested report). */
  invalidate(rowKey: string): void {
    this.fresh.delete(rowKey);
  }

  /** Drops the looks of rows that are gone. */
  forget(exists: (rowKey: string) => boolean): void {
    for (const key of this.rendered.keys()) if (!exists(key)) this.rendered.delete(key);
    for (const key of this.fresh.keys()) if (!exists(key)) this.fresh.delete(key);
  }

  private compute(row: SessionRow, now: number): Look {
    const op = describeOperation(this.operations.get(row.key));
    const described = describeRow(row, now, { showCost: this.showCost });
    const description = op ? (described ? `${op} · ${described}` : op) : described;
    const contextValue = sessionContextValue(row, {
      busy: this.operations.busy(row.key),
      scheduled: this.operations.scheduled(row.key),
      keptReport: this.reports.hasKept(row.key),
    });
    return { key: joinKey(row.badge, row.title ?? row.id, description, contextValue), description, contextValue };
  }
}
