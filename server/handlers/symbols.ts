// textDocument/documentSymbol: hierarchical when the client takes it, else flat; for a document
// past the size limit, the session's top-level outline (a line scan) only.
import type { ServerContext } from '../server-context';
import { toDocumentSymbol, toSymbolInformation } from '../convert';
import { readyDocument } from './ready';

export function registerSymbolHandler(ctx: ServerContext): void {
  ctx.connection.onDocumentSymbol(async (params, token) => {
    const s = await readyDocument(ctx, params.textDocument.uri, token, true);
    if (!s) return [];
    const tooLarge = ctx.store.oversize(s.text) !== undefined;
    const symbols = tooLarge ? (s.session.outline?.(s.text) ?? []) : (s.session.symbols?.(s.text) ?? []);
    return ctx.workspace.hierarchicalSymbols
      ? symbols.map(toDocumentSymbol)
      : toSymbolInformation(params.textDocument.uri, symbols);
  });
}
