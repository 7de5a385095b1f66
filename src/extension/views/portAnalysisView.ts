// The Port analysis view (sessionOps.portAnalysis): every port of the workspace (a folder holding
// a `source-analysis` folder) > its six analysis pages with their problem counts (a missing page
// shows as missing, with a warning icon) > for 10-fidelity-baseline, its chunks > their FIDs.
// Clicking a page opens it; clicking a chunk or a FID opens the baseline at its row. The data
// comes from the language server (request sessionOps/portAnalysis): the view starts the language
// client when it is first shown, so that activation stays cheap and the page parser lives only in
// the server. It refreshes on sessionOps/portAnalysisChanged and on page files saved, created or
// deleted (debounced), and only while visible (a hidden view is refreshed when shown again).
import * as vscode from 'vscode';
import { Debounce } from '../../core/timing';
import { RecyclingTreeView } from './recyclingTreeView';
import {
  PortAnalysisChangedNotification,
  PortAnalysisRequest,
  type ChunkSummary,
  type FidSummary,
  type PortAnalysisParams,
  type PortAnalysisResult,
  type WirePageSummary,
  type WirePortFolder,
} from '../../shared/protocol';
import type { RoutingClient } from '../client/client';
import type { LanguageClientHost } from '../languageClientHost';

export type PortNode =
  | { kind: 'port'; key: string; port: WirePortFolder }
  | { kind: 'page'; key: string; port: WirePortFolder; page: WirePageSummary }
  | { kind: 'chunk'; key: string; port: WirePortFolder; chunk: ChunkSummary; uri: string; unchunked: boolean }
  | { kind: 'fid'; key: string; port: WirePortFolder; fid: FidSummary; uri: string }
  | { kind: 'message'; key: string; text: string; error: boolean };

const DEBOUNCE_MS = 300;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "2 errors, 1 warning", "no problems". */
export function problemText(p: { errors: number; warnings: number; others: number }): string {
  const bits: string[] = [];
  if (p.errors) bits.push(plural(p.errors, 'error'));
  if (p.warnings) bits.push(plural(p.warnings, 'warning'));
  if (p.others) bits.push(plural(p.others, 'info'));
  return bits.length ? bits.join(', ') : 'no problems';
}

export class PortAnalysisView implements vscode.TreeDataProvider<PortNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<PortNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly treeView: RecyclingTreeView<PortNode>;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  private result: PortAnalysisResult | undefined;
  private error: string | undefined;
  private loaded: Promise<void> | undefined;
  private stale = true;
  private readonly debounce = new Debounce(DEBOUNCE_MS, () => {
    if (this.treeView.visible) void this.reload();
  });
  private listeningTo: RoutingClient | undefined;
  private watching = false;
  private readonly parents = new Map<string, PortNode>();

  constructor(
    private readonly host: LanguageClientHost,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.treeView = new RecyclingTreeView('sessionOps.portAnalysis', { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(
      this.treeView,
      this.treeView.onDidChangeVisibility((e) => {
        if (e.visible && this.stale) this.changeEmitter.fire(undefined);
      }),
      vscode.commands.registerCommand('sessionOps.refreshPortAnalysis', () =>
        vscode.window.withProgress({ location: { viewId: 'sessionOps.portAnalysis' } }, () => this.reload()),
      ),
    );
  }

  /** The last answer of the language server (tests and other extensions). */
  get data(): PortAnalysisResult | undefined {
    return this.result;
  }

  /** Asks the language server again (starting it if needed) and re-renders; resolves when the data is in. */
  async reload(): Promise<PortAnalysisResult | undefined> {
    this.stale = true;
    const loading = this.ensureLoaded();
    this.changeEmitter.fire(undefined);
    await loading;
    return this.result;
  }

  /** A refresh soon (coalesces bursts of file events and notifications); deferred while hidden. */
  refreshSoon(): void {
    this.stale = true;
    this.debounce.trigger();
  }

  private ensureLoaded(): Promise<void> {
    if (this.stale || !this.loaded) {
      this.stale = false;
      this.loaded = this.fetch();
    }
    return this.loaded;
  }

  private async fetch(): Promise<void> {
    try {
      const client = await this.host.start();
      this.listen(client);
      const folders = (vscode.workspace.workspaceFolders ?? [])
        .filter((f) => f.uri.scheme === 'file')
        .map((f) => f.uri.toString());
      const params: PortAnalysisParams = folders.length ? { folders } : {};
      this.result = await client.request(PortAnalysisRequest, params);
      this.error = undefined;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
      this.log.error(`port analysis: ${this.error}`);
    }
  }

  /** Server notifications and page file events (set up once the view is first used). */
  private listen(client: RoutingClient): void {
    if (this.listeningTo !== client) {
      this.listeningTo = client;
      this.disposables.push(client.onNotification(PortAnalysisChangedNotification, () => this.refreshSoon()));
    }
    if (this.watching) return;
    this.watching = true;
    const onFile = () => this.refreshSoon();
    for (const glob of ['**/source-analysis/*', '**/source-analysis']) {
      const w = vscode.workspace.createFileSystemWatcher(glob);
      this.disposables.push(w, w.onDidCreate(onFile), w.onDidDelete(onFile), w.onDidChange(onFile));
    }
    this.disposables.push(
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (/[\\/]source-analysis[\\/][^\\/]+$/i.test(doc.uri.fsPath)) this.refreshSoon();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(onFile),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('sessionOps.pages')) this.refreshSoon();
      }),
    );
  }

  async getChildren(node?: PortNode): Promise<PortNode[]> {
    if (!node) {
      await this.ensureLoaded();
      this.parents.clear();
      if (this.error)
        return [
          { kind: 'message', key: 'error', text: `The language server did not answer: ${this.error}`, error: true },
        ];
      return (this.result?.folders ?? []).map((port) => ({ kind: 'port', key: `port:${port.folder}`, port }));
    }
    const children = this.childrenOf(node);
    for (const c of children) this.parents.set(c.key, node);
    return children;
  }

  private childrenOf(node: PortNode): PortNode[] {
    switch (node.kind) {
      case 'port':
        return node.port.pages.map((page) => ({
          kind: 'page',
          key: `page:${node.port.folder}\u0000${page.kind}`,
          port: node.port,
          page,
        }));
      case 'page': {
        const f = node.page.kind === '10-fidelity-baseline' ? node.port.fidelity : null;
        if (!f) return [];
        const chunks: PortNode[] = f.chunks.map((chunk) => ({
          kind: 'chunk',
          key: `chunk:${node.port.folder}\u0000${chunk.name}`,
          port: node.port,
          chunk,
          uri: f.uri,
          unchunked: false,
        }));
        if (f.unchunked.length) {
          const range = f.unchunked[0].range;
          const chunk: ChunkSummary = { name: '(no chunk)', range, declared: false, fids: f.unchunked };
          chunks.push({
            kind: 'chunk',
            key: `chunk:${node.port.folder}\u0000\u0000unchunked`,
            port: node.port,
            chunk,
            uri: f.uri,
            unchunked: true,
          });
        }
        return chunks;
      }
      case 'chunk':
        return node.chunk.fids.map((fid) => ({
          kind: 'fid',
          key: `fid:${node.port.folder}\u0000${node.chunk.name}\u0000${fid.fid}\u0000${fid.range.start.line}`,
          port: node.port,
          fid,
          uri: node.uri,
        }));
      default:
        return [];
    }
  }

  getParent(node: PortNode): PortNode | undefined {
    return this.parents.get(node.key);
  }

  getTreeItem(node: PortNode): vscode.TreeItem {
    this.treeView.itemCreated();
    switch (node.kind) {
      case 'port':
        return this.portItem(node.port, node.key);
      case 'page':
        return this.pageItem(node.port, node.page, node.key);
      case 'chunk': {
        const item = new vscode.TreeItem(node.chunk.name, vscode.TreeItemCollapsibleState.Collapsed);
        item.id = node.key;
        item.iconPath = new vscode.ThemeIcon(node.unchunked ? 'question' : 'package');
        item.description = plural(node.chunk.fids.length, 'FID');
        item.contextValue = 'chunk';
        item.tooltip = node.unchunked
          ? 'FIDs with no chunk, or with several'
          : `Chunk ${node.chunk.name}${node.chunk.declared ? '' : ' (not declared in a Chunks section)'}: its behaviors are ported together`;
        item.accessibilityInformation = { label: `chunk ${node.chunk.name}, ${item.description}` };
        item.command = openAt(node.uri, node.chunk.range, `Open chunk ${node.chunk.name}`);
        return item;
      }
      case 'fid': {
        const f = node.fid;
        const item = new vscode.TreeItem(f.fid, vscode.TreeItemCollapsibleState.None);
        item.id = node.key;
        item.iconPath = new vscode.ThemeIcon('symbol-enum-member');
        item.description = [f.behavior || '(no behavior)', f.type || '(no type)'].join(' · ');
        const tip = new vscode.MarkdownString();
        tip.appendMarkdown(`**${f.fid}** · `).appendText(f.type || 'no type');
        tip.appendMarkdown('\n\n').appendText(f.behavior || '(no behavior)');
        if (f.sourceTest) tip.appendMarkdown('\n\nSource test: ').appendText(f.sourceTest);
        if (f.chunk) tip.appendMarkdown('\n\nChunk: ').appendText(f.chunk);
        item.tooltip = tip;
        item.contextValue = 'fid';
        item.accessibilityInformation = { label: `${f.fid}, ${item.description}` };
        item.command = openAt(node.uri, f.range, `Open ${f.fid}`);
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.id = node.key;
        item.iconPath = new vscode.ThemeIcon(node.error ? 'error' : 'info');
        item.command = node.error ? { command: 'sessionOps.refreshPortAnalysis', title: 'Retry' } : undefined;
        return item;
      }
    }
  }

  private portItem(port: WirePortFolder, key: string): vscode.TreeItem {
    const item = new vscode.TreeItem(port.portName, vscode.TreeItemCollapsibleState.Expanded);
    item.id = key;
    const present = port.pages.filter((p) => p.filePath).length;
    const totals = port.pages.reduce(
      (t, p) => ({ errors: t.errors + p.errors, warnings: t.warnings + p.warnings, others: t.others + p.others }),
      { errors: 0, warnings: 0, others: 0 },
    );
    const missing = port.pages.length - present;
    item.description = [
      missing ? `${present} of ${port.pages.length} pages, ${missing} missing` : `${present} pages`,
      problemText(totals),
    ].join(' · ');
    item.iconPath = new vscode.ThemeIcon(
      totals.errors ? 'error' : missing || totals.warnings ? 'warning' : 'folder',
      totals.errors
        ? new vscode.ThemeColor('errorForeground')
        : missing || totals.warnings
          ? new vscode.ThemeColor('editorWarning.foreground')
          : undefined,
    );
    item.tooltip = new vscode.MarkdownString().appendText(port.folder);
    item.contextValue = 'port';
    item.accessibilityInformation = { label: `port ${port.portName}, ${item.description}` };
    return item;
  }

  private pageItem(port: WirePortFolder, page: WirePageSummary, key: string): vscode.TreeItem {
    const hasChunks =
      page.kind === '10-fidelity-baseline' &&
      !!port.fidelity &&
      (port.fidelity.chunks.length > 0 || port.fidelity.unchunked.length > 0);
    const item = new vscode.TreeItem(
      page.kind,
      hasChunks ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
    );
    item.id = key;
    if (!page.uri) {
      item.description = 'missing';
      item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('editorWarning.foreground'));
      item.tooltip = `${page.title}: this port has no ${page.kind} page in ${port.folder}`;
      item.contextValue = 'page missing';
      item.accessibilityInformation = { label: `${page.kind}, missing` };
      return item;
    }
    item.description = problemText(page);
    item.iconPath = page.errors
      ? new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
      : page.warnings
        ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('editorWarning.foreground'))
        : new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
    const tip = new vscode.MarkdownString();
    tip.appendMarkdown(`**${page.title}** · `).appendText(page.filePath ?? '');
    for (const d of page.diagnostics.slice(0, 10))
      tip.appendMarkdown('\n\n').appendText(`Line ${d.range.start.line + 1}: ${d.message}`);
    if (page.diagnostics.length > 10)
      tip.appendMarkdown('\n\n').appendText(`… and ${page.diagnostics.length - 10} more`);
    item.tooltip = tip;
    item.contextValue = 'page';
    item.accessibilityInformation = { label: `${page.kind}, ${problemText(page)}` };
    item.command = { command: 'vscode.open', title: `Open ${page.kind}`, arguments: [vscode.Uri.parse(page.uri)] };
    return item;
  }

  dispose(): void {
    this.debounce.cancel();
    for (const d of this.disposables) d.dispose();
  }
}

function openAt(
  uri: string,
  range: { start: { line: number; character: number }; end: { line: number; character: number } },
  title: string,
): vscode.Command {
  const selection = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
  return {
    command: 'vscode.open',
    title,
    arguments: [vscode.Uri.parse(uri), { selection } satisfies vscode.TextDocumentShowOptions],
  };
}
