// textDocument/codeLens: on each route key of a routing table (a Kind/* key under `routes`, and
// `default`), "Effective route" and "Dispatch a ticket on this route...". Their commands are the
// Session Ops extension's (sessionOps.showEffectiveRoute with [uri, key], sessionOps.dispatchTicket
// with [{routingFile: uri, label: key}]): another LSP client runs them only if it provides
// commands of those names. None on a document past the size limit.
import type { CodeLens } from 'vscode-languageserver/node';
import type { ServerContext } from '../context';
import { readyDocument } from './ready';

export const EFFECTIVE_ROUTE_COMMAND = 'sessionOps.showEffectiveRoute';
export const DISPATCH_TICKET_COMMAND = 'sessionOps.dispatchTicket';

export function registerCodeLensHandler(ctx: ServerContext): void {
  ctx.connection.onCodeLens(async (params, token): Promise<CodeLens[]> => {
    const uri = params.textDocument.uri;
    const s = await readyDocument(ctx, uri, token);
    if (!s || !s.session.routeLenses) return [];
    return s.session.routeLenses(s.text).flatMap(({ key, range }) => [
      { range, command: { title: 'Effective route', command: EFFECTIVE_ROUTE_COMMAND, arguments: [uri, key] } },
      {
        range,
        command: {
          title: 'Dispatch a ticket on this route...',
          command: DISPATCH_TICKET_COMMAND,
          arguments: [{ routingFile: uri, label: key }],
        },
      },
    ]);
  });
}
