// textDocument/completion: the session's entries, with the route keys of the workspace's other
// routing tables (on disk, and open documents as edited).
import type { ServerContext } from '../server-context';
import { toCompletionItem } from '../convert';
import type { DocState } from '../documents';
import type { RouteKeyIndex } from '../workspaceIndex';
import { schemaFeaturesFor } from '../yamlOverlap';
import { readyDocument } from './ready';

export function registerCompletionHandler(ctx: ServerContext, routeIndex: RouteKeyIndex): void {
  const routeKeysFor = (st: DocState): string[] => {
    const keys = new Set(routeIndex.keys(st.path));
    for (const other of ctx.store.all()) {
      if (other === st || !other.session?.routeKeys) continue;
      for (const k of other.session.routeKeys()) keys.add(k);
    }
    return [...keys];
  };

  ctx.connection.onCompletion(async (params, token) => {
    const s = await readyDocument(ctx, params.textDocument.uri, token);
    if (!s || !s.session.completion) return [];
    const entries = s.session.completion(s.text, params.position, {
      routeKeys: routeKeysFor(s.st),
      schemaFeatures: schemaFeaturesFor(ctx.settings, s.st, s.text),
    });
    return { isIncomplete: false, items: entries.map(toCompletionItem) };
  });
}
