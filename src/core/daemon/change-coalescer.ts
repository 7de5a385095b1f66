// The changes of an attached daemon's event stream, handed on to the views in batches: a daemon
// round reaches the window as a burst of `row` events (one per changed session: 400 a round at
// 1,000 sessions), and one change per event made the views, the status bar and the fleet's row
// caches do their work hundreds of times a round. Within `ms` of the first pending change, the
// changed rows (each row's last state) and the backends whose set of rows changed go out as one
// MonitorChange, as a sampled round's do. `ms` 0: each change at once. Never imports 'vscode'.
import type { Clock } from '../clock';
import { rowKey } from '../keys';
import type { SessionRow } from '../monitor/row';
import type { MonitorChange } from '../monitor/types';

/** The default interval: an animation frame or three. */
export const COALESCE_MS = 50;

export class ChangeCoalescer {
  private rows = new Map<string, SessionRow>();
  private structural = new Set<string>();
  private timer: ReturnType<Clock['setTimeout']> | undefined;

  constructor(
    private readonly clock: Pick<Clock, 'setTimeout' | 'clearTimeout'>,
    private readonly ms: number,
    private readonly emit: (change: MonitorChange) => void,
  ) {}

  /** A row changed (its newest state replaces one still pending). */
  row(row: SessionRow): void {
    if (this.ms <= 0) return this.emit({ structural: [], rows: [row], providers: false });
    this.rows.set(row.key, row);
    this.schedule();
  }

  /** A backend's set of rows changed (a row came or went). */
  backend(key: string): void {
    if (this.ms <= 0) return this.emit({ structural: [key], rows: [], providers: false });
    this.structural.add(key);
    this.schedule();
  }

  /** A row is gone: its backend's set of rows changed, and no pending change of the row goes out. */
  removed(backendKey: string, directory: string, sessionId: string): void {
    this.rows.delete(rowKey(backendKey, directory, sessionId));
    this.backend(backendKey);
  }

  /** Hands on what is pending now. */
  flush(): void {
    const pending = this.rows.size > 0 || this.structural.size > 0;
    const change: MonitorChange = { structural: [...this.structural], rows: [...this.rows.values()], providers: false };
    this.drop();
    if (pending) this.emit(change);
  }

  /** Drops what is pending (the whole fleet is shown afresh, or the daemon was let go). */
  drop(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.rows = new Map();
    this.structural = new Set();
  }

  private schedule(): void {
    this.timer ??= this.clock.setTimeout(() => this.flush(), this.ms);
  }
}
