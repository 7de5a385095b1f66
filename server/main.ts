// The Session Ops language server: routing tables and source-analysis pages (the kinds of
// server/kinds) over LSP. This entry only wires the parts together:
//   kinds/        what each document kind claims, validates and answers (the registry)
//   documents.ts  the open documents and their state
//   scheduler.ts  classification, debounced validation in slices, cancelled by newer versions
//   groups.ts     cross-file checks of grouped kinds (page sets) and sessionOps/portAnalysisChanged
//   handlers/     one module per LSP concern
// Settings: src/shared/settings.ts (initializationOptions and workspace/didChangeConfiguration;
// the server never asks the client for configuration, so any LSP editor can run it). Custom
// messages: src/shared/protocol.ts. Diagnostics are published for open documents only.
import type { Connection } from 'vscode-languageserver/node';
import { defaultSettings } from '../src/shared/settings';
import { kindSettings, type ServerContext } from './server-context';
import { DocumentStore } from './documents';
import { GroupCoordinator } from './groups';
import { registerCodeActionHandler } from './handlers/codeActions';
import { registerCodeLensHandler } from './handlers/codeLens';
import { registerCompletionHandler } from './handlers/completion';
import { registerDefinitionHandler } from './handlers/definition';
import { registerDiagnosticsHandlers } from './handlers/diagnostics';
import { registerHoverHandler } from './handlers/hover';
import { registerLifecycleHandlers } from './handlers/lifecycle';
import { registerPortAnalysisHandler } from './handlers/portAnalysis';
import { registerSettingsHandlers } from './handlers/settings';
import { registerSymbolHandler } from './handlers/symbols';
import { registerWatchedFilesHandler, registerWorkspaceFoldersHandler } from './handlers/workspace';
import { registerBuiltinKinds } from './kinds/builtin';
import type { KindRegistry } from './kinds/registry';
import { DocumentScheduler } from './scheduler';
import { RouteKeyIndex } from './workspaceIndex';

export interface ServerOptions {
  /** The document kinds (tests inject some); default: this build's kinds. */
  registry?: KindRegistry;
}

export function startServer(connection: Connection, options: ServerOptions = {}): void {
  const ctx: ServerContext = {
    connection,
    registry: options.registry ?? registerBuiltinKinds(),
    store: new DocumentStore(() => ctx.settings.maxDocumentMB),
    settings: defaultSettings(),
    workspace: { roots: [], hierarchicalSymbols: true },
  };
  const routeIndex = new RouteKeyIndex(
    () => ctx.workspace.roots,
    () => ctx.registry.all(),
    () => kindSettings(ctx),
  );
  const groups = new GroupCoordinator(ctx, (st, delay) => scheduler.schedule(st, delay));
  const scheduler = new DocumentScheduler(ctx, groups, () => void routeIndex.ensureScanned());

  registerLifecycleHandlers(ctx, () => registerWorkspaceFoldersHandler(ctx, scheduler, groups, routeIndex));
  registerSettingsHandlers(ctx, scheduler, groups);
  registerDiagnosticsHandlers(ctx, scheduler, groups);
  registerWatchedFilesHandler(ctx, groups);
  registerCompletionHandler(ctx, routeIndex);
  registerHoverHandler(ctx, groups);
  registerDefinitionHandler(ctx, groups);
  registerCodeActionHandler(ctx);
  registerSymbolHandler(ctx);
  registerCodeLensHandler(ctx);
  registerPortAnalysisHandler(ctx, groups);

  ctx.store.documents.listen(connection);
  connection.listen();
}
