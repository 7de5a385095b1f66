// The Sessions view (sessionOps.sessions): backend > directory > session. It renders what the
// session monitor (src/core/monitor) decided and what the operator is doing, and never decides
// anything itself. Sampling runs only while this view or the Providers view is visible (or an
// automatic action is armed), and only the tree items that changed are refreshed.
import * as vscode from 'vscode';
import type { SessionRow } from '../../core/monitor/row';
import type { MonitorChange, SessionMonitor } from '../../core/monitor/sessionMonitor';
import type { OperationBook } from '../../core/operations/book';
import type { ReportBook } from '../../core/operations/reports';
import { Coalesce, delay, SlicedQueue } from '../../core/timing';
import { SpentTotals, type SpentRows } from '../../core/cost/spent-totals';
import { RecyclingTreeView } from './recyclingTreeView';
import { SessionLooks } from './sessionLooks';
import { backendItem, directoryItem, messageItem, sessionItem, sessionTooltip } from './sessionsItems';
import { SessionsNodes, type SessionsNode } from './sessionsNodes';

export type { SessionsNode } from './sessionsNodes';

/** Changed rows refreshed at once, at most; the rest follow REFRESH_GAP_MS later (refreshQueue). */
const REFRESH_SLICE = 500;
const REFRESH_GAP_MS = 250;
/** A directory or backend row is refreshed for its "$x spent" at most this often (with its sessions' rows). */
const SPENT_GAP_MS = 30_000;
/** The attention badge follows the monitor's changes this long after the first of them (counting every row once per burst, not once per directory sampled). */
export const ATTENTION_DELAY_MS = 250;

export class SessionsView implements vscode.TreeDataProvider<SessionsNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<SessionsNode | SessionsNode[] | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly treeView: RecyclingTreeView<SessionsNode>;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  private readonly nodes: SessionsNodes;
  /** What each session row shows, computed once per change. */
  private readonly looks: SessionLooks;
  /** Ids of the nodes the user collapsed. */
  private readonly collapsed = new Set<string>();
  private dirtyWhileHidden = false;
  private attention: { rows: readonly SessionRow[]; seen: number; count: number } | null = null;
  private badgeValue = 0;

  /**
   * Changed rows are refreshed at most REFRESH_SLICE per REFRESH_GAP_MS, each slice in its own turn
   * of the event loop: VS Code builds and sends every refreshed item of one batch in a single
   * stretch of the extension host's event loop (and merges tree events fired within 200 ms into one
   * batch), so thousands of changed rows at once, or many directories' rows sampled in quick
   * succession, would block it; sliced and spaced, no stretch grows with the number of sessions.
   * The gap is longer than VS Code's own 200 ms merging of tree events, so slices stay apart.
   */
  private readonly refreshQueue = new SlicedQueue<SessionsNode>(
    REFRESH_SLICE,
    REFRESH_GAP_MS,
    (slice) => this.changeEmitter.fire(slice),
    undefined,
    // A refreshed backend or directory row has VS Code re-fetch every session under it.
    (node) => this.rowsUnder(node),
  );
  /** Long child lists (a backend's, a directory's) are handed out one per turn of the event loop. */
  private turn: Promise<void> = Promise.resolve();
  /** The attention badge is recounted once per burst of changes. */
  private readonly badgeSoon = new Coalesce(ATTENTION_DELAY_MS, () => this.updateBadge());

  /** The "$x spent" of directory and backend rows: only those whose total changed are refreshed. */
  private readonly spent = new SpentTotals(SPENT_GAP_MS, (ids) => this.refreshQueue.add(this.spentNodes(ids)));
  private readonly spentRows: SpentRows = {
    directory: (b, d) => this.monitor.backend(b)?.directories.find((x) => x.directory === d)?.rows ?? [],
    backend: (b) => this.monitor.backend(b)?.directories.flatMap((x) => x.rows) ?? [],
  };

  /** sessionOps.showCost: the cost on each session row (the tooltip keeps it). */
  setShowCost(show: boolean): void {
    if (this.looks.setShowCost(show)) this.changeEmitter.fire(undefined);
  }

  constructor(
    private readonly monitor: SessionMonitor,
    operations: OperationBook,
    private readonly reports: ReportBook,
  ) {
    this.nodes = new SessionsNodes(monitor);
    this.looks = new SessionLooks(operations, reports);
    this.treeView = new RecyclingTreeView('sessionOps.sessions', { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.treeView);
    const off = monitor.onDidChange((c) => this.onMonitorChange(c));
    // What Session Ops is doing to a session (aborting, woken and confirmed ...) shows on its row.
    const offOps = operations.onDidChange((rowKey) => {
      this.looks.invalidate(rowKey);
      const node = this.nodes.session(rowKey);
      if (node) this.changeEmitter.fire([node]);
    });
    this.disposables.push(
      { dispose: off },
      { dispose: offOps },
      // What the user collapsed stays collapsed when the view is re-rendered (refresh, recycling).
      this.treeView.onDidChangeExpansion(({ element, expanded }) => {
        if (expanded) this.collapsed.delete(element.key);
        else this.collapsed.add(element.key);
      }),
      this.treeView.onDidChangeVisibility((e) => {
        if (e.visible && this.dirtyWhileHidden) {
          this.dirtyWhileHidden = false;
          this.changeEmitter.fire(undefined);
        }
      }),
    );
    this.updateBadge();
  }

  private onMonitorChange(change: MonitorChange): void {
    const structural = change.structural.length > 0 || this.nodes.backendsChanged();
    // Reports: every row after a structural change, else only the rows that changed.
    this.reports.sync(
      structural ? null : change.rows,
      () => this.monitor.rows(),
      (key) => this.monitor.row(key) !== undefined,
    );
    if (structural) {
      // The set of sessions (or a backend's status) changed: re-render those backends' subtrees;
      // the set of backends changed (one added or removed, all removed): re-render the root.
      const backends = change.structural
        .map((k) => this.nodes.backend(k))
        .filter((n): n is SessionsNode => n !== undefined);
      this.changeEmitter.fire(
        backends.length === change.structural.length && !this.nodes.backendsChanged() ? backends : undefined,
      );
      // Sessions come and go over a day: their nodes and looks go with them.
      for (const id of this.nodes.forgetGone()) this.collapsed.delete(id);
      this.looks.forget((key) => this.monitor.row(key) !== undefined);
      this.spent.forget((id) => this.nodes.get(id) !== undefined);
    }
    // Only rows whose rendered look changed are refreshed (not every row every round), and
    // nothing while the view is hidden: it renders afresh when it is shown again.
    if (!this.treeView.visible) {
      this.dirtyWhileHidden = true;
    } else {
      const now = Date.now();
      const rows = change.rows
        .filter((r) => this.looks.changed(r, now))
        .map((r) => this.nodes.session(r.key))
        .filter((n): n is SessionsNode => n !== undefined);
      // Directory and backend rows whose "$x spent" changed go with the same batch.
      const parents = this.spentNodes(this.spent.changed(change.rows, this.spentRows, now));
      if (rows.length + parents.length > 0) this.refreshQueue.add([...parents, ...rows]);
    }
    this.badgeSoon.trigger();
  }

  private spentNodes(ids: readonly string[]): SessionsNode[] {
    return ids.map((id) => this.nodes.get(id)).filter((n): n is SessionsNode => n !== undefined);
  }

  /** Harvest: the user opened this report. */
  markReportSeen(row: SessionRow): void {
    if (!this.reports.markSeen(row)) return;
    this.looks.invalidate(row.key);
    this.updateBadge();
    const node = this.nodes.session(row.key);
    if (node) this.changeEmitter.fire([node]);
  }

  /** Whether the row counts toward the attention badge (a harvested report does not). */
  needsAttention(row: SessionRow): boolean {
    return this.reports.needsAttention(row);
  }

  /** Whether the user collapsed the node (a re-render and a recycled view keep it collapsed). */
  isCollapsed(nodeKey: string): boolean {
    return this.collapsed.has(nodeKey);
  }

  /** Sessions that need attention: hung, quota wall, idle with unfinished work, a fresh report. */
  attentionCount(): number {
    // Counted once per rows array (the monitor rebuilds it only after rows changed) and per
    // harvested report: the view and the status bar both ask after every change event.
    const rows = this.monitor.rows();
    if (this.attention?.rows !== rows || this.attention.seen !== this.reports.seenCount) {
      this.attention = { rows, seen: this.reports.seenCount, count: rows.filter((r) => this.needsAttention(r)).length };
    }
    return this.attention.count;
  }

  private updateBadge(): void {
    const n = this.attentionCount();
    // Set only when it changed: each set is a message to the workbench.
    if (n === this.badgeValue) return;
    this.badgeValue = n;
    this.treeView.badge =
      n > 0
        ? { value: n, tooltip: `${n} session${n === 1 ? '' : 's'} need${n === 1 ? 's' : ''} attention` }
        : undefined;
  }

  refresh(): void {
    this.changeEmitter.fire(undefined);
  }

  row(node: SessionsNode): SessionRow | undefined {
    return this.nodes.row(node);
  }

  getChildren(node?: SessionsNode): SessionsNode[] | Promise<SessionsNode[]> {
    if (node?.kind !== 'backend' && node?.kind !== 'directory') return this.nodes.children(node);
    // VS Code asks for the children of every expanded backend at once (a new view, a whole refresh)
    // and builds each list's tree items right after it: one list per turn, so no stretch holds them all.
    const turn = this.turn.then(() => delay(0));
    this.turn = turn;
    return turn.then(() => this.nodes.children(node));
  }

  /** The sessions a node stands for in a refresh (a backend or directory row re-fetches all of its own). */
  private rowsUnder(node: SessionsNode): number {
    if (node.kind !== 'backend' && node.kind !== 'directory') return 1;
    const dirs = this.monitor.backend(node.backend.key)?.directories ?? [];
    let n = 0;
    for (const d of dirs) if (node.kind === 'backend' || d.directory === node.directory) n += d.rows.length;
    return n;
  }

  getParent(node: SessionsNode): SessionsNode | undefined {
    return this.nodes.parent(node);
  }

  getTreeItem(node: SessionsNode): vscode.TreeItem {
    this.treeView.itemCreated();
    switch (node.kind) {
      case 'backend':
        return backendItem(
          node,
          this.monitor.backend(node.backend.key),
          (r) => this.needsAttention(r),
          this.expandedUnlessCollapsed(node.key),
          this.spent.render(node.key, this.spentRows.backend(node.backend.key), Date.now()),
        );
      case 'directory':
        return directoryItem(
          node,
          this.expandedUnlessCollapsed(node.key),
          this.spent.render(node.key, this.spentRows.directory(node.backend.key, node.directory), Date.now()),
        );
      case 'message':
        return messageItem(node);
      case 'session': {
        const row = this.row(node);
        const collapsible =
          row && this.nodes.hasChildren(row)
            ? this.expandedUnlessCollapsed(node.key)
            : vscode.TreeItemCollapsibleState.None;
        // Description and menu flags computed once per item (the refresh of thousands of rows is one synchronous stretch).
        const look = row ? this.looks.current(row, Date.now()) : null;
        return sessionItem(node, row, look, collapsible);
      }
    }
  }

  private expandedUnlessCollapsed(key: string): vscode.TreeItemCollapsibleState {
    return this.collapsed.has(key)
      ? vscode.TreeItemCollapsibleState.Collapsed
      : vscode.TreeItemCollapsibleState.Expanded;
  }

  /** Builds a session's tooltip when it is hovered, not for every row on every round. */
  resolveTreeItem(item: vscode.TreeItem, node: SessionsNode): vscode.TreeItem {
    if (node.kind !== 'session' || item.tooltip) return item;
    const row = this.row(node);
    if (row) item.tooltip = sessionTooltip(row);
    return item;
  }

  /** Reveals and selects a session (used by notifications). */
  async reveal(row: SessionRow): Promise<void> {
    const node = this.nodes.session(row.key);
    if (node) await this.treeView.reveal(node, { select: true, focus: true });
  }

  dispose(): void {
    this.refreshQueue.dispose();
    this.spent.dispose();
    this.badgeSoon.cancel();
    for (const d of this.disposables) d.dispose();
  }
}
