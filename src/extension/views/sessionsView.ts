// The Sessions view (sessionOps.sessions): backend > directory > session. It renders what the
// session monitor (src/core/monitor) decided and what the operator is doing, and never decides
// anything itself. Sampling runs only while this view or the Providers view is visible (or an
// automatic action is armed), and only the tree items that changed are refreshed.
import { TIMING } from '../../core/settings/timing';
import * as vscode from 'vscode';
import type { SessionRow } from '../../core/monitor/row';
import type { FleetSource } from '../../core/monitor/fleet-source';
import type { MonitorChange } from '../../core/monitor/sessionMonitor';
import type { OperationBook } from '../../core/operations/book';
import type { OutOfCharge } from '../../core/operations/charge';
import type { ReportBook } from '../../core/operations/reports';
import { Coalesce, TurnQueue } from '../../core/timing';
import { AttentionCount } from './attentionCount';
import { RecyclingTreeView } from './recyclingTreeView';
import { SessionLooks } from './sessionLooks';
import { SessionsRefresh } from './sessionsRefresh';
import { backendItem, directoryItem, messageItem, sessionItem, sessionTooltip } from './sessionsItems';
import { SessionsNodes, type SessionsNode } from './sessionsNodes';

export type { SessionsNode } from './sessionsNodes';

export const ATTENTION_DELAY_MS = TIMING.attentionDelayMs;

export class SessionsView implements vscode.TreeDataProvider<SessionsNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<SessionsNode | SessionsNode[] | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly treeView: RecyclingTreeView<SessionsNode>;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  private readonly nodes: SessionsNodes;
  /** What each session row shows, computed once per change. */
  private readonly looks: SessionLooks;
  private readonly attention: AttentionCount;
  /** Which rows are refreshed, and when. */
  private readonly refreshes: SessionsRefresh;
  /** Ids of the nodes the user collapsed. */
  private readonly collapsed = new Set<string>();
  private dirtyWhileHidden = false;
  private badgeValue = 0;

  /** Long child lists (a backend's, a directory's) are handed out one per turn of the event loop. */
  private turn: Promise<void> = Promise.resolve();
  /** The attention badge is recounted once per burst of changes. */
  private readonly badgeSoon = new Coalesce(ATTENTION_DELAY_MS, () => this.updateBadge());
  /**
   * The monitor's changes, each taken in a turn of its own: the monitor tells its listeners in the
   * stretch that turned a directory's sample into rows, which stays that long only.
   */
  private readonly changes = new TurnQueue<MonitorChange>((c) => this.applyChange(c));

  /** sessionOps.showCost: the cost on each session row (the tooltip keeps it). */
  setShowCost(show: boolean): void {
    if (this.looks.setShowCost(show)) this.changeEmitter.fire(undefined);
  }

  constructor(
    private readonly monitor: FleetSource,
    operations: OperationBook,
    private readonly reports: ReportBook,
    /** Why automatic mode leaves a session alone (the operator's automaticSkip); absent: never said. */
    private readonly automaticSkip: (row: SessionRow) => OutOfCharge | null = () => null,
  ) {
    this.nodes = new SessionsNodes(monitor);
    // A row of a daemon attached with a read token gets no act menu.
    const attached = (row: SessionRow) => {
      const info = monitor.backend(row.backendKey)?.attached;
      return info ? { readOnly: info.scope === 'read' } : null;
    };
    this.looks = new SessionLooks(operations, reports, automaticSkip, attached);
    this.attention = new AttentionCount(monitor, reports);
    this.refreshes = new SessionsRefresh(
      monitor,
      this.nodes,
      (slice) => this.changeEmitter.fire(slice),
      (node, now) => this.lookChanged(node, now),
    );
    this.treeView = new RecyclingTreeView('sessionOps.sessions', { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.treeView);
    const off = monitor.onDidChange((c) => this.onMonitorChange(c));
    this.disposables.push({ dispose: () => this.changes.dispose() });
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
    this.changes.add(change);
  }

  private applyChange(change: MonitorChange): void {
    const structural = change.structural.length > 0 || this.nodes.backendsChanged();
    // The operator keeps the rows' completion reports itself (src/core/operations/operator.ts).
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
      this.refreshes.forget();
    }
    // Only rows whose rendered look changed are refreshed (not every row every round; their looks
    // are compared when their slice is due), and nothing while the view is hidden: it renders
    // afresh when it is shown again.
    if (!this.treeView.visible) {
      this.dirtyWhileHidden = true;
    } else {
      const rows: SessionsNode[] = [];
      for (const r of change.rows) {
        const node = this.nodes.session(r.key);
        if (node) rows.push(node);
      }
      // Directory and backend rows whose "$x spent" changed go with the same batch.
      this.refreshes.changed(rows, change.rows, this.monitor.clock.now());
    }
    this.badgeSoon.trigger();
  }

  /** Whether a queued session row now looks different from when it was last rendered. */
  private lookChanged(node: SessionsNode, now: number): boolean {
    const row = this.nodes.row(node);
    return row !== undefined && this.looks.changed(row, now);
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
    return this.attention.needsAttention(row);
  }

  /** Whether the user collapsed the node (a re-render and a recycled view keep it collapsed). */
  isCollapsed(nodeKey: string): boolean {
    return this.collapsed.has(nodeKey);
  }

  /** Sessions that need attention: hung, quota wall, idle with unfinished work, a fresh report. */
  attentionCount(): number {
    return this.attention.count();
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
    const turn = this.turn.then(() => this.monitor.clock.sleep(0));
    this.turn = turn;
    return turn.then(() => this.nodes.children(node));
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
          this.refreshes.spentText(node),
        );
      case 'directory':
        return directoryItem(node, this.expandedUnlessCollapsed(node.key), this.refreshes.spentText(node));
      case 'message':
        return messageItem(node);
      case 'session': {
        const row = this.row(node);
        const collapsible =
          row && this.nodes.hasChildren(row)
            ? this.expandedUnlessCollapsed(node.key)
            : vscode.TreeItemCollapsibleState.None;
        // Description and menu flags computed once per item (the refresh of thousands of rows is one synchronous stretch).
        const look = row ? this.looks.current(row, this.monitor.clock.now()) : null;
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
    if (row)
      item.tooltip = sessionTooltip(row, this.monitor.clock.now(), {
        automaticSkip: this.automaticSkip(row),
        subAgents: this.monitor
          .rows()
          .filter((r) => r.parentId === row.id && r.backendKey === row.backendKey && r.directory === row.directory),
      });
    return item;
  }

  /** Reveals and selects a session (used by notifications). */
  async reveal(row: SessionRow): Promise<void> {
    const node = this.nodes.session(row.key);
    if (node) await this.treeView.reveal(node, { select: true, focus: true });
  }

  dispose(): void {
    this.refreshes.dispose();
    this.badgeSoon.cancel();
    for (const d of this.disposables) d.dispose();
  }
}
