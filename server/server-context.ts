// What the server's parts share: the connection, the kinds, the open documents, the settings and
// the workspace folders. Built once by startServer (server/main.ts) and handed to each handler.
import type { Connection } from 'vscode-languageserver/node';
import type { ServerSettings } from '../src/shared/settings';
import type { DocumentStore } from './documents';
import type { KindRegistry } from './kinds/registry';
import type { GroupSettings, KindSettings } from './kinds/types';

export interface Workspace {
  /** Workspace folder paths. */
  roots: string[];
  /** Does the client take hierarchical document symbols? */
  hierarchicalSymbols: boolean;
}

export interface ServerContext {
  readonly connection: Connection;
  readonly registry: KindRegistry;
  readonly store: DocumentStore;
  readonly settings: ServerSettings;
  readonly workspace: Workspace;
}

export const kindSettings = (ctx: ServerContext): KindSettings => ({
  extraGlobs: ctx.settings.extraGlobs,
  roots: ctx.workspace.roots,
});

export const groupSettings = (ctx: ServerContext): GroupSettings =>
  ctx.settings.pagesSourceRoot ? { pagesSourceRoot: ctx.settings.pagesSourceRoot } : {};
