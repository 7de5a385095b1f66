// The Sessions view (sessionOps.sessions): backend > directory > session. It renders what the
// session monitor (src/core/monitor) decided and never decides anything itself. Sampling runs
// only while this view or the Providers view is visible (or an automatic action is armed), and
// only the tree items that changed are refreshed.
import * as vscode from 'vscode';
import { SlicedQueue } from '../../core/timing';
import { RecyclingTreeView } from './recyclingTreeView';
import { truncationWarning } from '../../core/backend/client';
import { dialectDisplayName } from '../../core/backend/dialects';
import type { BackendConfig } from '../../core/config/backends';
import { backendContextValue, contextValueOf, sessionContextValue } from '../../core/monitor/context-values';
import { badgeLook, describeRow, tooltipMarkdown } from '../../core/monitor/present';
import type { SessionRow } from '../../core/monitor/row';
import type { BackendState, DirectoryState, MonitorChange, SessionMonitor } from '../../core/monitor/sessionMonitor';
import { describeOperation, type OperationBook } from '../../core/operations/book';
import type { ReportBook } from '../../core/operations/reports';
import { directoryKey, joinKey, nodeId, rowKey, rowKeyOfNode, sessionNodeId } from '../../core/ids';

export type SessionsNode =
  | { kind: 'backend'; key: string; backend: BackendConfig }
  | { kind: 'directory'; key: string; backend: BackendConfig; directory: string }
  | { kind: 'session'; key: string; backend: BackendConfig; directory: string; sessionId: string }
  | { kind: 'message'; key: string; backend: BackendConfig; text: string; error: boolean; warning?: boolean };

/** Changed rows refreshed at once, at most; the rest follow REFRESH_GAP_MS later (refreshQueue). */
const REFRESH_SLICE = 500;
const REFRESH_GAP_MS = 250;

export class SessionsView implements vscode.TreeDataProvider<SessionsNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<SessionsNode | SessionsNode[] | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly treeView: RecyclingTreeView<SessionsNode>;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  /** Stable node objects, so that a refresh of one element finds it. */
  private readonly nodes = new Map<string, SessionsNode>();
  /** Row keys of sessions that have sub-agent sessions, for the monitor's rows array it was built from. */
  private parents: { rows: readonly SessionRow[]; keys: Set<string> } | null = null;

  constructor(
    private readonly monitor: SessionMonitor,
    private readonly operations: OperationBook,
    private readonly reports: ReportBook,
  ) {
    this.treeView = new RecyclingTreeView('sessionOps.sessions', { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.treeView);
    const off = monitor.onDidChange((c) => this.onMonitorChange(c));
    // What Session Ops is doing to a session (aborting, woken and confirmed ...) shows on its row.
    const offOps = operations.onDidChange((rowKey) => {
      const node = this.nodes.get(sessionNodeId(rowKey));
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

  private node<T extends SessionsNode>(n: T): T {
    const existing = this.nodes.get(n.key) as T | undefined;
    if (existing) {
      Object.assign(existing, n);
      return existing;
    }
    this.nodes.set(n.key, n);
    return n;
  }

  private onMonitorChange(change: MonitorChange): void {
    const structural = change.structural.length > 0 || this.rootKeys !== this.backendKeys();
    // Reports: every row after a structural change, else only the rows that changed.
    this.syncReports(structural ? null : change.rows);
    if (structural) {
      // The set of sessions (or a backend's status) changed: re-render those backends' subtrees;
      // the set of backends changed (one added or removed, all removed): re-render the root.
      const backends = change.structural
        .map((k) => this.nodes.get(nodeId('backend', k)))
        .filter((n): n is SessionsNode => n !== undefined);
      this.changeEmitter.fire(
        backends.length === change.structural.length && this.rootKeys === this.backendKeys() ? backends : undefined,
      );
      this.forgetGone();
    }
    // Only rows whose rendered look changed are refreshed (not every row every round), and
    // nothing while the view is hidden: it renders afresh when it is shown again.
    if (!this.treeView.visible) {
      this.dirtyWhileHidden = true;
    } else {
      const now = Date.now();
      const rows = change.rows
        .filter((r) => this.lookChanged(r, now))
        .map((r) => this.nodes.get(sessionNodeId(r.key)))
        .filter((n): n is SessionsNode => n !== undefined);
      if (rows.length > 0) this.refreshQueue.add(rows);
    }
    this.updateBadge();
  }

  /**
   * Changed rows are refreshed at most REFRESH_SLICE at a time, REFRESH_GAP_MS apart: VS Code builds
   * and sends every refreshed item of one batch in a single stretch of the extension host's event
   * loop, so 2,000 changed rows at once would block it; sliced, no stretch grows with the number
   * of sessions. A few hundred rows (most rounds) go at once. The gap is longer than VS Code's own
   * 200 ms merging of tree events, so slices stay apart.
   */
  private readonly refreshQueue = new SlicedQueue<SessionsNode>(REFRESH_SLICE, REFRESH_GAP_MS, (slice) =>
    this.changeEmitter.fire(slice),
  );

  /** Rebuilt only when the monitor's rows changed (its rows() array is cached until then). */
  private parentKeys(): Set<string> {
    const rows = this.monitor.rows();
    if (this.parents?.rows !== rows) {
      this.parents = {
        rows,
        keys: new Set(rows.filter((r) => r.parentId).map((r) => rowKey(r.backendKey, r.directory, r.parentId!))),
      };
    }
    return this.parents.keys;
  }

  /** The backends the tree's root last listed. */
  private rootKeys = '';

  private backendKeys(): string {
    return joinKey(...this.monitor.backends().map((b) => b.config.key));
  }

  /** Drops the nodes and looks of sessions no longer listed (sessions come and go over a day). */
  private forgetGone(): void {
    let live: Set<string> | null = null;
    for (const key of this.nodes.keys()) {
      const rowKey = rowKeyOfNode(key);
      if (rowKey === null) continue;
      live ??= new Set(this.monitor.rows().map((r) => r.key));
      if (!live.has(rowKey)) {
        this.nodes.delete(key);
        this.looks.delete(rowKey);
        this.collapsed.delete(key);
      }
    }
  }

  private syncReports(changed: readonly SessionRow[] | null = null): void {
    this.reports.sync(
      changed,
      () => this.monitor.rows(),
      (key) => this.monitor.row(key) !== undefined,
    );
  }

  /** The last rendered look of each session row (icon, label, description, menu flags). */
  private readonly looks = new Map<string, string>();
  private dirtyWhileHidden = false;

  /** What a session row shows: its description and menu flags, and both with the badge and title as one comparable key. */
  private look(row: SessionRow, now: number): { key: string; description: string; contextValue: string } {
    const description = this.description(row, now);
    const contextValue = sessionContextValue(row, {
      busy: this.operations.busy(row.key),
      scheduled: this.operations.scheduled(row.key),
      keptReport: this.reports.hasKept(row.key),
    });
    return {
      key: joinKey(row.badge, row.title ?? row.id, description, contextValue),
      description,
      contextValue,
    };
  }

  private lookChanged(row: SessionRow, now: number): boolean {
    const look = this.look(row, now).key;
    if (this.looks.get(row.key) === look) return false;
    this.looks.set(row.key, look);
    return true;
  }

  private description(row: SessionRow, now: number): string {
    const op = describeOperation(this.operations.get(row.key));
    const described = describeRow(row, now);
    return op ? (described ? `${op} · ${described}` : op) : described;
  }

  /** Harvest: the user opened this report. */
  markReportSeen(row: SessionRow): void {
    if (!this.reports.markSeen(row)) return;
    this.updateBadge();
    const node = this.nodes.get(sessionNodeId(row.key));
    if (node) this.changeEmitter.fire([node]);
  }

  /** Whether the row counts toward the attention badge (a harvested report does not). */
  needsAttention(row: SessionRow): boolean {
    return this.reports.needsAttention(row);
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

  private attention: { rows: readonly SessionRow[]; seen: number; count: number } | null = null;
  private badgeValue = 0;

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
    // The monitor's index, rebuilt only after its rows changed (not per change event here).
    const key = node.kind === 'session' ? rowKeyOfNode(node.key) : null;
    return key === null ? undefined : this.monitor.row(key);
  }

  getChildren(node?: SessionsNode): SessionsNode[] {
    if (!node) {
      this.rootKeys = this.backendKeys();
      return this.monitor
        .backends()
        .map((b) => this.node({ kind: 'backend', key: nodeId('backend', b.config.key), backend: b.config }));
    }
    const state = this.monitor.backend(node.backend.key);
    if (!state) return [];
    if (node.kind === 'backend') return this.backendChildren(state);
    if (node.kind === 'directory') {
      const dir = state.directories.find((d) => d.directory === node.directory);
      return dir ? this.directoryChildren(state, dir) : [];
    }
    if (node.kind === 'session') {
      // Sub-agent sessions live under their parent, not beside it as separate workers.
      const dir = state.directories.find((d) => d.directory === node.directory);
      return (dir?.rows ?? [])
        .filter((r) => r.parentId === node.sessionId)
        .map((r) => this.sessionNode(state, node.directory, r));
    }
    return [];
  }

  private sessionNode(state: BackendState, directory: string, r: SessionRow): SessionsNode {
    return this.node({ kind: 'session', key: sessionNodeId(r.key), backend: state.config, directory, sessionId: r.id });
  }

  private backendChildren(state: BackendState): SessionsNode[] {
    const backend = state.config;
    if (state.status === 'error') {
      return [
        this.node({
          kind: 'message',
          key: nodeId('backendError', backend.key),
          backend,
          text: state.error ?? 'cannot be read',
          error: true,
        }),
      ];
    }
    if (state.status === 'loading' && state.directories.every((d) => d.rows.length === 0)) {
      const text = this.monitor.isActive ? 'Reading sessions...' : 'Not sampled yet (open the view to start)';
      return [this.node({ kind: 'message', key: nodeId('loading', backend.key), backend, text, error: false })];
    }
    if (state.directories.length === 1) return this.directoryChildren(state, state.directories[0]);
    return state.directories.map((d) =>
      this.node({
        kind: 'directory',
        key: nodeId('directory', directoryKey(backend.key, d.directory)),
        backend,
        directory: d.directory,
      }),
    );
  }

  private directoryChildren(state: BackendState, dir: DirectoryState): SessionsNode[] {
    const backend = state.config;
    if (dir.error)
      return [
        this.node({
          kind: 'message',
          key: nodeId('backendError', directoryKey(backend.key, dir.directory)),
          backend,
          text: dir.error,
          error: true,
        }),
      ];
    if (dir.rows.length === 0)
      return [
        this.node({
          kind: 'message',
          key: nodeId('noSessions', directoryKey(backend.key, dir.directory)),
          backend,
          text: 'No sessions',
          error: false,
        }),
      ];
    const ids = new Set(dir.rows.map((r) => r.id));
    const sessions = dir.rows
      .filter((r) => !r.parentId || !ids.has(r.parentId))
      .map((r) => this.sessionNode(state, dir.directory, r));
    // More sessions listed than are sampled per directory per round: said first, not hidden.
    if (dir.truncated)
      return [
        this.node({
          kind: 'message',
          key: nodeId('truncated', directoryKey(backend.key, dir.directory)),
          backend,
          text: truncationWarning(dir.truncated),
          error: false,
          warning: true,
        }),
        ...sessions,
      ];
    return sessions;
  }

  getParent(node: SessionsNode): SessionsNode | undefined {
    if (node.kind === 'backend') return undefined;
    const backendNode = this.nodes.get(nodeId('backend', node.backend.key));
    if (node.kind === 'session') {
      const parentId = this.row(node)?.parentId;
      const parent = parentId
        ? this.nodes.get(sessionNodeId(rowKey(node.backend.key, node.directory, parentId)))
        : undefined;
      if (parent) return parent;
      const state = this.monitor.backend(node.backend.key);
      if (state && state.directories.length > 1)
        return this.nodes.get(nodeId('directory', directoryKey(node.backend.key, node.directory)));
    }
    return backendNode;
  }

  getTreeItem(node: SessionsNode): vscode.TreeItem {
    this.treeView.itemCreated();
    switch (node.kind) {
      case 'backend':
        return this.backendItem(node);
      case 'directory': {
        const item = new vscode.TreeItem(node.directory, this.expandedUnlessCollapsed(node.key));
        item.id = node.key;
        item.iconPath = vscode.ThemeIcon.Folder;
        item.contextValue = contextValueOf('directory', []);
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.id = node.key;
        if (node.error) {
          item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
          item.contextValue = contextValueOf('backendError', []);
          item.tooltip = new vscode.MarkdownString().appendText(node.text);
          item.command = { command: 'sessionOps.retryBackend', title: 'Retry', arguments: [node] };
        } else if (node.warning) {
          item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('editorWarning.foreground'));
          item.contextValue = contextValueOf('message', []);
          item.tooltip = new vscode.MarkdownString().appendText(node.text);
        } else {
          item.iconPath = new vscode.ThemeIcon('info');
          item.contextValue = contextValueOf('message', []);
        }
        return item;
      }
      case 'session':
        return this.sessionItem(node);
    }
  }

  private backendItem(node: Extract<SessionsNode, { kind: 'backend' }>): vscode.TreeItem {
    const state = this.monitor.backend(node.backend.key);
    const item = new vscode.TreeItem(node.backend.name, this.expandedUnlessCollapsed(node.key));
    item.id = node.key;
    const rows = state?.directories.flatMap((d) => d.rows) ?? [];
    const attention = rows.filter((r) => this.needsAttention(r)).length;
    const bits = [node.backend.baseUrl];
    if (state?.status === 'ok')
      bits.push(
        `${rows.length} session${rows.length === 1 ? '' : 's'}${attention ? `, ${attention} need attention` : ''}`,
      );
    const dialect = dialectDisplayName(state?.dialect ?? null);
    if (dialect) bits.push(dialect);
    item.description = bits.join(' · ');
    if (state?.status === 'error') {
      item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    } else if (node.backend.insecure) {
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('editorWarning.foreground'));
    } else {
      item.iconPath = new vscode.ThemeIcon('server');
    }
    item.contextValue = backendContextValue({
      error: state?.status === 'error',
      insecure: Boolean(node.backend.insecure),
    });
    const tip = new vscode.MarkdownString();
    tip.appendMarkdown(`**${escape(node.backend.name)}**  \n`).appendText(node.backend.baseUrl);
    if (node.backend.insecure) tip.appendMarkdown('\n\n$(warning) clear-text http:// to another machine');
    if (state?.error) tip.appendMarkdown('\n\n').appendText(state.error);
    if (state?.eventStream) tip.appendMarkdown(`\n\nEvent stream: ${state.eventStream}`);
    tip.supportThemeIcons = true;
    item.tooltip = tip;
    return item;
  }

  private sessionItem(node: Extract<SessionsNode, { kind: 'session' }>): vscode.TreeItem {
    const row = this.row(node);
    const hasChildren = row ? this.parentKeys().has(row.key) : false;
    const item = new vscode.TreeItem(
      row?.title || node.sessionId,
      hasChildren ? this.expandedUnlessCollapsed(node.key) : vscode.TreeItemCollapsibleState.None,
    );
    item.id = node.key;
    if (!row) return item;
    const badge = badgeLook(row.badge);
    item.iconPath = new vscode.ThemeIcon(badge.icon, new vscode.ThemeColor(badge.color));
    // Description and menu flags computed once per item (the refresh of thousands of rows is one synchronous stretch).
    const look = this.look(row, Date.now());
    item.description = look.description;
    this.looks.set(row.key, look.key);
    // The tooltip (markdown with the evidence) is built only when hovered: resolveTreeItem.
    item.contextValue = look.contextValue;
    item.accessibilityInformation = {
      label: `${row.title ?? row.id}, ${badge.label}${item.description ? `, ${item.description}` : ''}`,
    };
    if (row.report) item.command = { command: 'sessionOps.openReport', title: 'Open Report', arguments: [node] };
    return item;
  }

  /** Keys of the nodes the user collapsed. */
  private readonly collapsed = new Set<string>();

  private expandedUnlessCollapsed(key: string): vscode.TreeItemCollapsibleState {
    return this.collapsed.has(key)
      ? vscode.TreeItemCollapsibleState.Collapsed
      : vscode.TreeItemCollapsibleState.Expanded;
  }

  /** Builds a session's tooltip when it is hovered, not for every row on every round. */
  resolveTreeItem(item: vscode.TreeItem, node: SessionsNode): vscode.TreeItem {
    if (node.kind !== 'session' || item.tooltip) return item;
    const row = this.row(node);
    if (!row) return item;
    // Plain markdown: never trusted, so links or commands in server text stay inert.
    const tooltip = new vscode.MarkdownString(tooltipMarkdown(row, Date.now()));
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    item.tooltip = tooltip;
    return item;
  }

  /** Reveals and selects a session (used by notifications). */
  async reveal(row: SessionRow): Promise<void> {
    const node = this.nodes.get(sessionNodeId(row.key));
    if (node) await this.treeView.reveal(node, { select: true, focus: true });
  }

  dispose(): void {
    this.refreshQueue.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

function escape(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);
}
