// textDocument/documentSymbol: hierarchical when the client takes it, else flat.
import type { ServerContext } from '../context';
import { toDocumentSymbol, toSymbolInformation } from '../convert';

export function registerSymbolHandler(ctx: ServerContext): void {
  ctx.connection.onDocumentSymbol((params) => {
    const s = ctx.store.sessionFor(params.textDocument.uri);
    if (!s || !s.session.symbols) return [];
    const symbols = s.session.symbols(s.text);
    return ctx.workspace.hierarchicalSymbols
      ? symbols.map(toDocumentSymbol)
      : toSymbolInformation(params.textDocument.uri, symbols);
  });
}
