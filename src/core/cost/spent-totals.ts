// The "$x spent" of the parent rows of the Sessions tree (a directory, a backend) as last
// rendered, so that after session rows changed only the parents whose total now reads differently
// are refreshed. VS Code re-fetches every child of a refreshed tree element, so a parent is
// refreshed at most once per gap (its sessions' rows are re-rendered with it): a total that
// changes again within the gap waits, and is handed to `onDue` when the gap has passed (one timer
// for all). A parent never rendered, or already waiting, costs no sum at all.
import { directoryKey, nodeId } from '../keys';
import type { CostedRow } from './costed-row';
import type { EpochMs } from '../model';
import type { Clock, TimerHandle } from '../clock';
import { totalCostText } from './present';

/** How to read the sessions of a parent now. */
export interface SpentRows {
  directory(backendKey: string, directory: string): readonly CostedRow[];
  backend(backendKey: string): readonly CostedRow[];
}

/** The node id of a directory row and of a backend row (as the Sessions tree names them). */
export const directoryNodeId = (backendKey: string, directory: string): string =>
  nodeId('directory', directoryKey(backendKey, directory));
export const backendNodeId = (backendKey: string): string => nodeId('backend', backendKey);

export class SpentTotals {
  /** Node id -> the total text it was last rendered with, and when it was last refreshed. */
  private readonly shown = new Map<string, { text: string; at: EpochMs }>();
  /** Parents whose total changed, waiting for their gap to pass. */
  private readonly waiting = new Set<string>();

  private timer: TimerHandle | undefined;

  constructor(
    private readonly gapMs: number,
    private readonly onDue: (ids: string[]) => void,
    private readonly timers: Clock,
  ) {}

  /** The text a parent row is rendered with now (recorded as rendered). */
  render(key: string, rows: readonly CostedRow[], now: EpochMs): string {
    const text = totalCostText(rows);
    this.shown.set(key, { text, at: now });
    this.waiting.delete(key);
    return text;
  }

  /** After these rows changed: the parents (node ids) to refresh now; the others changed wait for `due`. */
  changed(rows: readonly CostedRow[], read: SpentRows, now: EpochMs): string[] {
    const asked = new Set<string>();
    const ask = (key: string, rowsOf: () => readonly CostedRow[]) => {
      if (asked.has(key)) return;
      asked.add(key);
      const shown = this.shown.get(key);
      if (!shown || this.waiting.has(key)) return;
      if (totalCostText(rowsOf()) !== shown.text) this.waiting.add(key);
    };
    // A change's rows are mostly of one directory: its parents' ids are built once per run of rows.
    let last: CostedRow | undefined;
    for (const r of rows) {
      if (last && r.backendKey === last.backendKey && r.directory === last.directory) continue;
      last = r;
      ask(directoryNodeId(r.backendKey, r.directory), () => read.directory(r.backendKey, r.directory));
      ask(backendNodeId(r.backendKey), () => read.backend(r.backendKey));
    }
    const due = this.due(now);
    this.schedule();
    return due;
  }

  /** Waiting parents whose gap has passed (each handed out once; its rebuild records it as rendered). */
  private due(now: EpochMs): string[] {
    const out: string[] = [];
    for (const key of this.waiting) {
      const shown = this.shown.get(key);
      if (shown && now - shown.at < this.gapMs) continue;
      this.waiting.delete(key);
      if (!shown) continue;
      shown.at = now;
      out.push(key);
    }
    return out;
  }

  /** One timer, for the first waiting parent; each run hands out those due and arms the next. */
  private schedule(): void {
    if (this.timer !== undefined || this.waiting.size === 0) return;
    let next = Infinity;
    for (const key of this.waiting) next = Math.min(next, (this.shown.get(key)?.at ?? 0) + this.gapMs);
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = undefined;
        const due = this.due(this.timers.now());
        if (due.length > 0) this.onDue(due);
        this.schedule();
      },
      Math.max(0, next - this.timers.now()),
    );
  }

  dispose(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    this.waiting.clear();
  }

  /** Forgets the parents no longer shown. */
  forget(keep: (key: string) => boolean): void {
    for (const key of this.shown.keys())
      if (!keep(key)) {
        this.shown.delete(key);
        this.waiting.delete(key);
      }
  }
}
