// What each session row of the Sessions view shows (description and menu flags), computed once
// per change: the look of a changed row is kept for its tree item, which VS Code asks for soon after.
import { TIMING } from '../../core/settings/timing';
import { sessionContextValue } from '../../core/monitor/context-values';
import { describeRow } from '../../core/monitor/present';
import type { SessionRow } from '../../core/monitor/row';
import { describeOperation, type OperationBook } from '../../core/operations/book';
import type { OutOfCharge } from '../../core/operations/charge';
import type { ReportBook } from '../../core/operations/reports';

const FRESH_LOOK_MS = TIMING.freshLookMs;

/** What a session row shows: its badge, title, description and menu flags. */
export type Look = {
  readonly badge: string;
  readonly title: string;
  readonly description: string;
  readonly contextValue: string;
};

/** A look as last rendered; `row` and `at` while it was computed for a changed row and not yet taken by its tree item. */
type Rendered = Look & { row: SessionRow | null; at: number };

export class SessionLooks {
  /**
   * The last rendered look of each session row (its strings are the tree item's own, so keeping
   * them costs no copy), with the row it was computed from while its tree item is still to come.
   */
  private readonly rendered = new Map<string, Rendered>();
  private showCost = true;

  constructor(
    private readonly operations: OperationBook,
    private readonly reports: ReportBook,
    private readonly automaticSkip: (row: SessionRow) => OutOfCharge | null = () => null,
    /** A row of an attached daemon, and whether its token may only read (no act menus). */
    private readonly attached: (row: SessionRow) => { readOnly: boolean } | null = () => null,
  ) {}

  /** sessionOps.showCost: the cost on each session row. True when it changed (every row then renders anew). */
  setShowCost(show: boolean): boolean {
    if (show === this.showCost) return false;
    this.showCost = show;
    for (const look of this.rendered.values()) look.row = null;
    return true;
  }

  /** Whether the row looks different from when it was last rendered; the new look is kept for its tree item. */
  changed(row: SessionRow, now: number): boolean {
    const look = this.compute(row, now);
    const last = this.rendered.get(row.key);
    if (last && sameLook(last, look)) return false;
    look.row = row;
    this.rendered.set(row.key, look);
    return true;
  }

  /** The row's look: the one computed when it changed if that is recent and still about this row, else computed now. */
  current(row: SessionRow, now: number): Look {
    const last = this.rendered.get(row.key);
    if (last && last.row === row && now - last.at < FRESH_LOOK_MS) {
      last.row = null;
      return last;
    }
    const look = this.compute(row, now);
    this.rendered.set(row.key, look);
    return look;
  }

  /** Something the look depends on changed outside the monitor (an operation, a harvested report). */
  invalidate(rowKey: string): void {
    const last = this.rendered.get(rowKey);
    if (last) last.row = null;
  }

  /** Drops the looks of rows that are gone. */
  forget(exists: (rowKey: string) => boolean): void {
    for (const key of this.rendered.keys()) if (!exists(key)) this.rendered.delete(key);
  }

  private compute(row: SessionRow, now: number): Rendered {
    // A stuck session reads so on its row (automatic mode stopped waking it: a person decides).
    const operation = this.operations.get(row.key);
    const skip = operation?.outcome === 'running' ? null : this.automaticSkip(row);
    const op = skip?.reason === 'stuck' ? skip.text : describeOperation(operation);
    const described = describeRow(row, now, { showCost: this.showCost });
    const description = op ? (described ? `${op} · ${described}` : op) : described;
    const contextValue = sessionContextValue(row, {
      busy: this.operations.busy(row.key),
      scheduled: this.operations.scheduled(row.key),
      keptReport: this.reports.hasKept(row.key),
      readOnly: this.attached(row)?.readOnly,
      attached: this.attached(row) !== null,
    });
    return { badge: row.badge, title: row.title ?? row.id, description, contextValue, row: null, at: now };
  }
}

function sameLook(a: Look, b: Look): boolean {
  return (
    a.badge === b.badge && a.title === b.title && a.description === b.description && a.contextValue === b.contextValue
  );
}
