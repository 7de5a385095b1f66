// Placeholder server until the routing issue lands: answers initialize, nothing more.
import { TextDocuments, TextDocumentSyncKind, type Connection } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';

export function startServer(connection: Connection): void {
  const documents = new TextDocuments(TextDocument);
  connection.onInitialize(() => ({
    capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental },
    serverInfo: { name: 'session-ops-language-server' },
  }));
  documents.listen(connection);
  connection.listen();
}
