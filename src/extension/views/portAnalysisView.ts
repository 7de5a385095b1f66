// The Port analysis view (sessionOps.portAnalysis): every port of the workspace (a folder holding
// a `source-analysis` folder) > its six analysis pages with their problem counts (a missing page
// shows as missing, with a warning icon) > for 10-fidelity-baseline, its chunks > their FIDs.
// Clicking a page opens it; clicking a chunk or a FID opens the baseline at its row. The data
// comes from the language server (request sessionOps/portAnalysis): the view starts the language
// client when it is first shown, so that activation stays cheap and the page parser lives only in
// the server. It refreshes on sessionOps/portAnalysisChanged and on page files saved, created or
// deleted (debounced), and only while visible (a hidden view is refreshed when shown again).
import { TIMING } from '../../core/settings/timing';
import * as vscode from 'vscode';
import { Debounce } from '../../core/timing';
import { nodeId } from '../../core/keys';
import { portAnalysisItem, type PortNode } from './portAnalysisItems';
import { RecyclingTreeView } from './recyclingTreeView';
import {
  PortAnalysisChangedNotification,
  PortAnalysisRequest,
  type ChunkSummary,
  type PortAnalysisParams,
  type PortAnalysisResult,
} from '../../shared/protocol';
import type { RoutingClient } from '../client/client';
import type { LanguageClientHost } from '../languageClientHost';
import { describeError } from '../../core/error-message';

const DEBOUNCE_MS = TIMING.portAnalysisDebounceMs;

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
      this.error = describeError(err);
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
      if (this.error)
        return [
          {
            kind: 'message',
            key: nodeId('analysisError'),
            text: `The language server did not answer: ${this.error}`,
            error: true,
          },
        ];
      return (this.result?.folders ?? []).map((port) => ({ kind: 'port', key: nodeId('port', port.folder), port }));
    }
    return this.childrenOf(node);
  }

  private childrenOf(node: PortNode): PortNode[] {
    switch (node.kind) {
      case 'port':
        return node.port.pages.map((page) => ({
          kind: 'page',
          key: nodeId('page', node.port.folder, page.kind),
          port: node.port,
          page,
        }));
      case 'page': {
        const f = node.page.kind === '10-fidelity-baseline' ? node.port.fidelity : null;
        if (!f) return [];
        const chunks: PortNode[] = f.chunks.map((chunk) => ({
          kind: 'chunk',
          key: nodeId('chunk', node.port.folder, chunk.name),
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
            key: nodeId('chunk', node.port.folder, '', 'unchunked'),
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
          key: nodeId('fid', node.port.folder, node.chunk.name, fid.fid, String(fid.range.start.line)),
          port: node.port,
          fid,
          uri: node.uri,
        }));
      default:
        return [];
    }
  }

  /**
   * Rebuilt from the node's own port data, never from a cache of earlier fetches: a refresh of the
   * root between a node's fetch and a reveal of it would leave a cache empty, and VS Code then takes
   * the node for a root ("Cannot resolve tree item for element", seen in CI).
   */
  getParent(node: PortNode): PortNode | undefined {
    if (node.kind === 'port' || node.kind === 'message') return undefined;
    const port: PortNode = { kind: 'port', key: nodeId('port', node.port.folder), port: node.port };
    if (node.kind === 'page') return port;
    for (const page of this.childrenOf(port)) {
      const chunks = this.childrenOf(page);
      if (node.kind === 'chunk') {
        if (chunks.some((c) => c.key === node.key)) return page;
        continue;
      }
      const chunk = chunks.find((c) => this.childrenOf(c).some((f) => f.key === node.key));
      if (chunk) return chunk;
    }
    return undefined;
  }

  getTreeItem(node: PortNode): vscode.TreeItem {
    this.treeView.itemCreated();
    return portAnalysisItem(node);
  }

  dispose(): void {
    this.debounce.cancel();
    for (const d of this.disposables) d.dispose();
  }
}
