// The workspace around the open documents: files changed on disk (the client's watcher, e.g. VS
// Code's synchronize.fileEvents) and workspace folders added or removed
// (workspace/didChangeWorkspaceFolders): documents are classified again, group files read again,
// route keys re-indexed.
import { DidChangeWorkspaceFoldersNotification } from 'vscode-languageserver/node';
import type { ServerContext } from '../server-context';
import type { GroupCoordinator } from '../groups';
import { pathKey, uriToPath } from '../paths';
import type { DocumentScheduler } from '../scheduler';
import type { RouteKeyIndex } from '../workspaceIndex';

export function registerWatchedFilesHandler(ctx: ServerContext, groups: GroupCoordinator): void {
  ctx.connection.onDidChangeWatchedFiles((params) => groups.filesChanged(params.changes.map((c) => c.uri)));
}

/**
 * Called once initialized: the library's own workspace-folders feature installs its handler while
 * initializing (when the client declares the capability), and this one replaces it.
 */
export function registerWorkspaceFoldersHandler(
  ctx: ServerContext,
  scheduler: DocumentScheduler,
  groups: GroupCoordinator,
  routeIndex: RouteKeyIndex,
): void {
  ctx.connection.onNotification(DidChangeWorkspaceFoldersNotification.type, (params) => {
    const removed = new Set((params?.event?.removed ?? []).map((f) => pathKey(uriToPath(f.uri))));
    const roots = ctx.workspace.roots.filter((r) => !removed.has(pathKey(r)));
    for (const f of params?.event?.added ?? []) {
      const p = uriToPath(f.uri);
      if (!roots.some((r) => pathKey(r) === pathKey(p))) roots.push(p);
    }
    ctx.workspace.roots = roots;
    void routeIndex.rescan();
    scheduler.reclassifyAll(); // extraGlobs with '/' match relative to the folders
    groups.workspaceChanged();
  });
}
