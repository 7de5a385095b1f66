// The effective route of a route key as a read-only document (a virtual document provider): the
// CodeLens "Effective route" of a routing table opens it. It is read from the table when opened
// (the open document's unsaved text counts), resolved by the core with the cap applied, and
// described as `session-ops route` prints it. No model is chosen here, so the effort's variant is
// said to be unknown.
import * as vscode from 'vscode';
import { effectiveRouteLines } from '../../language/routing/describe';
import { resolveTable } from '../../language/routing/resolve';
import type { Configuration } from '../configuration';
import { readRoutingTable } from './routingTables';

export const EFFECTIVE_ROUTE_SCHEME = 'session-ops-route';

/** The document of `key` in the table at `table`. */
export function effectiveRouteUri(table: vscode.Uri, key: string): vscode.Uri {
  return vscode.Uri.from({
    scheme: EFFECTIVE_ROUTE_SCHEME,
    path: `/${key.replace(/\//g, '-')} effective route`,
    query: new URLSearchParams({ table: table.toString(), key }).toString(),
  });
}

export class EffectiveRouteDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly registration: vscode.Disposable;

  constructor(private readonly configuration: Configuration) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(EFFECTIVE_ROUTE_SCHEME, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const key = q.get('key') ?? '';
    const tableUri = vscode.Uri.parse(q.get('table') ?? '');
    try {
      const { table } = await readRoutingTable(this.configuration, tableUri);
      const labels = key === 'default' ? [] : [key];
      const r = resolveTable(table, labels);
      if (r.kind !== 'route')
        return `The labels ${r.kind === 'ambiguous' ? r.labels.join(', ') : key} resolve no route.`;
      const head = [
        `Effective route of ${key} in ${vscode.workspace.asRelativePath(tableUri)}`,
        key === 'default'
          ? '(a ticket with no Kind/* label that has a route of its own)'
          : `(a ticket labelled ${key})`,
        '',
      ];
      return [...head, ...effectiveRouteLines(r.route), ''].join('\n');
    } catch (err) {
      return `The effective route of ${key} could not be read: ${err instanceof Error ? err.message : String(err)}\n`;
    }
  }

  dispose(): void {
    this.registration.dispose();
  }
}
