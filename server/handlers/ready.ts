// Brings a request's document to an analysed state without blocking the server: the session's
// analysis of the current text (shared with the validation under way, if any) runs in slices, with
// other messages handled between them. A request whose document changes meanwhile answers
// ContentModified (the client asks again for the new version), a cancelled one RequestCancelled:
// a later request is never stuck behind work for an outdated version.
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';
import type { ServerContext } from '../server-context';
import type { DocState } from '../documents';
import type { DocumentSession } from '../kinds/types';
import { SLICE_MS } from '../scheduler';

export interface ReadyDocument {
  st: DocState;
  session: DocumentSession;
  text: string;
}

/**
 * The document at `uri` with its session's analysis of the current text done; undefined when it
 * is not open with a session (or, unless `anySize`, past the size limit).
 */
export async function readyDocument(
  ctx: ServerContext,
  uri: string,
  token: CancellationToken,
  anySize = false,
): Promise<ReadyDocument | undefined> {
  const s = anySize ? ctx.store.anySessionFor(uri) : ctx.store.sessionFor(uri);
  if (!s || !s.session.prepare || ctx.store.oversize(s.text) !== undefined) return s;
  const version = ctx.store.documents.get(uri)?.version;
  const steps = s.session.prepare(s.text);
  let slice = performance.now();
  for (;;) {
    if (steps.next().done) return s;
    if (performance.now() - slice > SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
      if (token.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
      if (version === undefined || !ctx.store.isCurrent(s.st, version, s.session))
        throw new ResponseError(LSPErrorCodes.ContentModified, 'the document changed');
    }
  }
}
