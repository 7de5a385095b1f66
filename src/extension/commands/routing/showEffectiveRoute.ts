// Session Ops: Show Effective Route (the "Effective route" CodeLens on a route key of a routing
// table): the resolved route, cap applied, as a read-only document.
import * as vscode from 'vscode';
import { effectiveRouteUri } from '../../routing/effectiveRouteDocuments';

export async function showEffectiveRoute(table?: string | vscode.Uri, key?: string): Promise<void> {
  if (!table || typeof key !== 'string' || key === '')
    throw new Error('Effective route is a lens on a route key of a routing table (routing.yaml)');
  const uri = typeof table === 'string' ? vscode.Uri.parse(table) : table;
  const doc = await vscode.workspace.openTextDocument(effectiveRouteUri(uri, key));
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}
