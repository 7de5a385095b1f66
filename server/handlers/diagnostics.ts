// The document lifecycle behind diagnostics: a document that opens or changes is classified and
// (re)validated, with the other open members of its group; one that closes loses its diagnostics.
// Also sessionOps/stats (tests and benchmarks: the last validation of a document).
import { StatsRequest } from '../../src/shared/protocol';
import type { ServerContext } from '../server-context';
import type { GroupCoordinator } from '../groups';
import type { DocumentScheduler } from '../scheduler';

export function registerDiagnosticsHandlers(
  ctx: ServerContext,
  scheduler: DocumentScheduler,
  groups: GroupCoordinator,
): void {
  const { store } = ctx;

  store.documents.onDidChangeContent((e) => {
    const uri = e.document.uri;
    const text = e.document.getText();
    let st = store.get(uri);
    if (!st) {
      st = store.create(uri);
      scheduler.classify(st, text, false);
      // A page that opens may become its folder's anchor page, or bring unsaved text.
      groups.scheduleSiblings(st, 0);
      return;
    }
    const before = st.kind;
    scheduler.classify(st, text, false);
    if (st.kind && st.kind === before) scheduler.schedule(st);
    groups.scheduleSiblings(st);
  });

  store.documents.onDidClose((e) => {
    const st = store.close(e.document.uri);
    if (!st) return;
    if (st.published) void ctx.connection.sendDiagnostics({ uri: st.uri, diagnostics: [] });
    groups.closed(st);
  });

  ctx.connection.onRequest(StatsRequest, (params) => {
    const st = typeof params?.uri === 'string' ? store.get(params.uri) : undefined;
    const gc = (globalThis as { gc?: () => void }).gc;
    if (params?.gc === true && gc) gc();
    return {
      kind: st?.kind?.id ?? null,
      version: st?.lastVersion ?? null,
      stats: st?.session?.stats?.() ?? null,
      heapUsed: process.memoryUsage().heapUsed,
    };
  });
}
