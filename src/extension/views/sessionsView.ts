// The Sessions view (sessionOps.sessions): backend > directory > session.
// Foundation version: lists the configured backends and their directories; the live health
// sampling arrives with the views issue.
import * as vscode from 'vscode';
import type { BackendConfig } from '../../core/config/backends';
import type { Configuration } from '../configuration';
import type { PasswordStore } from '../passwordStore';

export type SessionsNode =
  | { kind: 'backend'; backend: BackendConfig }
  | { kind: 'directory'; backend: BackendConfig; directory: string };

export class SessionsView implements vscode.TreeDataProvider<SessionsNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<SessionsNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly treeView: vscode.TreeView<SessionsNode>;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];

  constructor(
    private readonly configuration: Configuration,
    _passwords: PasswordStore,
    _log: vscode.LogOutputChannel,
  ) {
    this.treeView = vscode.window.createTreeView('sessionOps.sessions', { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.treeView, configuration.onDidChange(() => this.refresh()));
  }

  refresh(): void {
    this.changeEmitter.fire(undefined);
  }

  getChildren(node?: SessionsNode): SessionsNode[] {
    if (!node) return this.configuration.backends().map((backend) => ({ kind: 'backend', backend }));
    if (node.kind === 'backend') return node.backend.directories.map((directory) => ({ kind: 'directory', backend: node.backend, directory }));
    return [];
  }

  getTreeItem(node: SessionsNode): vscode.TreeItem {
    if (node.kind === 'backend') {
      const item = new vscode.TreeItem(node.backend.name, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `backend:${node.backend.key}`;
      item.description = node.backend.baseUrl;
      item.iconPath = new vscode.ThemeIcon(node.backend.insecure ? 'warning' : 'server');
      item.contextValue = 'backend';
      return item;
    }
    const item = new vscode.TreeItem(node.directory, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `dir:${node.backend.key}:${node.directory}`;
    item.iconPath = vscode.ThemeIcon.Folder;
    item.contextValue = 'directory';
    return item;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
