// Which Sessions-view rows are refreshed, and when: changed rows in spaced slices, and directory
// and backend rows when their "$x spent" changed (at most every SPENT_GAP_MS).
import { TIMING } from '../../core/settings/timing';
import type { SessionRow } from '../../core/monitor/row';
import type { FleetSource } from '../../core/monitor/fleet-source';
import { SlicedQueue } from '../../core/timing';
import { SpentTotals, type SpentRows } from '../../core/cost/spent-totals';
import type { SessionsNode, SessionsNodes } from './sessionsNodes';

/** Changed rows refreshed at once, at most; the rest follow REFRESH_GAP_MS later. */
const REFRESH_SLICE = 500;
const REFRESH_GAP_MS = TIMING.sessionsRefreshGapMs;
const SPENT_GAP_MS = TIMING.spentRefreshGapMs;

export class SessionsRefresh {
  /**
   * Changed rows are refreshed at most REFRESH_SLICE per REFRESH_GAP_MS, each slice in its own turn
   * of the event loop: VS Code builds and sends every refreshed item of one batch in a single
   * stretch of the extension host's event loop (and merges tree events fired within 200 ms into one
   * batch), so thousands of changed rows at once, or many directories' rows sampled in quick
   * succession, would block it; sliced and spaced, no stretch grows with the number of sessions.
   * The gap is longer than VS Code's own 200 ms merging of tree events, so slices stay apart.
   */
  private readonly queue: SlicedQueue<SessionsNode>;
  /** The "$x spent" of directory and backend rows: only those whose total changed are refreshed. */
  private readonly spent: SpentTotals;
  private readonly spentRows: SpentRows;

  constructor(
    private readonly monitor: FleetSource,
    private readonly nodes: SessionsNodes,
    fire: (slice: SessionsNode[]) => void,
    /** Whether a session row's look changed since it was last rendered (asked when its slice is due). */
    lookChanged: (node: SessionsNode, now: number) => boolean,
  ) {
    this.queue = new SlicedQueue<SessionsNode>(
      REFRESH_SLICE,
      REFRESH_GAP_MS,
      (slice) => {
        // A session row's look is computed when its slice is due, in the slice's own turn: a row
        // that changed in the monitor but reads the same is not refreshed.
        const now = monitor.clock.now();
        const due = slice.filter((node) => node.kind !== 'session' || lookChanged(node, now));
        if (due.length > 0) fire(due);
      },
      monitor.clock,
      // A refreshed backend or directory row has VS Code re-fetch every session under it.
      (node) => this.rowsUnder(node),
    );
    this.spent = new SpentTotals(SPENT_GAP_MS, (ids) => this.queue.add(this.spentNodes(ids)), monitor.clock);
    this.spentRows = {
      directory: (b, d) => monitor.backend(b)?.directories.find((x) => x.directory === d)?.rows ?? [],
      backend: (b) => monitor.backend(b)?.directories.flatMap((x) => x.rows) ?? [],
    };
  }

  /** These session rows changed in the monitor (refreshed if their look changed); the changed rows may also move their parents' totals. */
  changed(sessions: readonly SessionsNode[], changedRows: readonly SessionRow[], now: number): void {
    const parents = this.spentNodes(this.spent.changed(changedRows, this.spentRows, now));
    if (sessions.length + parents.length > 0) this.queue.add([...parents, ...sessions]);
  }

  /** The "$x spent" a backend or directory row shows now. */
  spentText(node: SessionsNode): string {
    if (node.kind === 'backend')
      return this.spent.render(node.key, this.spentRows.backend(node.backend.key), this.monitor.clock.now());
    if (node.kind === 'directory')
      return this.spent.render(
        node.key,
        this.spentRows.directory(node.backend.key, node.directory),
        this.monitor.clock.now(),
      );
    return '';
  }

  /** Drops the totals of rows that are gone. */
  forget(): void {
    this.spent.forget((id) => this.nodes.get(id) !== undefined);
  }

  dispose(): void {
    this.queue.dispose();
    this.spent.dispose();
  }

  private spentNodes(ids: readonly string[]): SessionsNode[] {
    return ids.map((id) => this.nodes.get(id)).filter((n): n is SessionsNode => n !== undefined);
  }

  /** The sessions a node stands for in a refresh (a backend or directory row re-fetches all of its own). */
  private rowsUnder(node: SessionsNode): number {
    if (node.kind !== 'backend' && node.kind !== 'directory') return 1;
    const dirs = this.monitor.backend(node.backend.key)?.directories ?? [];
    let n = 0;
    for (const d of dirs) if (node.kind === 'backend' || d.directory === node.directory) n += d.rows.length;
    return n;
  }
}
