// The Providers view (sessionOps.providers). Foundation version: empty until the views issue
// brings the provider listing; its welcome content explains what will appear.
import * as vscode from 'vscode';
import type { SessionsView } from './sessionsView';

export type ProvidersNode = { kind: 'provider'; id: string };

export class ProvidersView implements vscode.TreeDataProvider<ProvidersNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<ProvidersNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly treeView: vscode.TreeView<ProvidersNode>;

  constructor(_sessions: SessionsView) {
    this.treeView = vscode.window.createTreeView('sessionOps.providers', { treeDataProvider: this });
  }

  refresh(): void {
    this.changeEmitter.fire(undefined);
  }

  getChildren(): ProvidersNode[] {
    return [];
  }

  getTreeItem(node: ProvidersNode): vscode.TreeItem {
    return new vscode.TreeItem(node.id);
  }

  dispose(): void {
    this.treeView.dispose();
    this.changeEmitter.dispose();
  }
}
