// initialize and initialized: settings from initializationOptions, the workspace folders, the
// client's symbol support, and the capabilities the server announces.
import {
  CodeActionKind,
  TextDocumentSyncKind,
  type InitializeParams,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { validators } from '../../src/language/routing';
import { readSettings } from '../../src/shared/settings';
import type { ServerContext } from '../server-context';
import { uriToPath } from '../paths';

declare const __SESSION_OPS_VERSION__: string | undefined;

export function registerLifecycleHandlers(ctx: ServerContext, initialized: () => void): void {
  ctx.connection.onInitialize((params: InitializeParams): InitializeResult => {
    readSettings(ctx.settings, params.initializationOptions);
    if (params.workspaceFolders && params.workspaceFolders.length)
      ctx.workspace.roots = params.workspaceFolders.map((f) => uriToPath(f.uri));
    else if (params.rootUri) ctx.workspace.roots = [uriToPath(params.rootUri)];
    else if (params.rootPath) ctx.workspace.roots = [params.rootPath];
    ctx.workspace.hierarchicalSymbols =
      params.capabilities.textDocument?.documentSymbol?.hierarchicalDocumentSymbolSupport ?? false;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        completionProvider: { triggerCharacters: [' ', ':', '[', ',', '-', '/'], resolveProvider: false },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        documentSymbolProvider: { label: 'Session Ops' },
        definitionProvider: true,
        codeLensProvider: { resolveProvider: false },
        // changeNotifications: true means the client sends workspace/didChangeWorkspaceFolders
        // without a registration request from us.
        workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
      },
      serverInfo: {
        name: 'session-ops-language-server',
        version: typeof __SESSION_OPS_VERSION__ === 'string' ? __SESSION_OPS_VERSION__ : undefined,
      },
    };
  });

  ctx.connection.onInitialized(() => {
    initialized();
    // Compile the schema while nothing is waiting for it.
    setImmediate(() => {
      try {
        validators();
      } catch (err) {
        ctx.connection.console.error(`routing schema: ${String(err)}`);
      }
    });
  });
}
