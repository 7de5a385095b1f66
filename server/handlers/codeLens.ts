// textDocument/codeLens: on each route key of a routing table (a Kind/* key under `routes`, and
// `default`), "Effective route" and "Dispatch a ticket on this route...". Their commands are the
// Session Ops extension's (sessionOps.showEffectiveRoute with [uri, key], sessionOps.dispatchTicket
// with [{routingFile: uri, label: key}]): another LSP client runs them only if it provides
// commands of those names. None on a document past the size limit.
import type { CodeLens } from 'vscode-languageserver/node';
import { MAX_LENS_KEYS } from '../../src/language/routing/limits';
import type { ServerContext } from '../server-context';
import { readyDocument } from './ready';

export const EFFECTIVE_ROUTE_COMMAND = 'sessionOps.showEffectiveRoute';
export const DISPATCH_TICKET_COMMAND = 'sessionOps.dispatchTicket';

export function registerCodeLensHandler(ctx: ServerContext): void {
  ctx.connection.onCodeLens(async (params, token): Promise<CodeLens[]> => {
    const uri = params.textDocument.uri;
    const s = await readyDocument(ctx, uri, token);
    if (!s || !s.session.routeLenses) return [];
    const keys = s.session.routeLenses(s.text);
    const lenses: CodeLens[] = keys.slice(0, MAX_LENS_KEYS).flatMap(({ key, range }) => [
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
    if (keys.length > MAX_LENS_KEYS) {
      // a lens without a command: the editor shows its title as text
      const rest = keys.length - MAX_LENS_KEYS;
      lenses.push({
        range: keys[MAX_LENS_KEYS].range,
        command: {
          title: `No lenses on this and the ${(rest - 1).toLocaleString('en-US')} route keys after it (lenses go on the first ${MAX_LENS_KEYS.toLocaleString('en-US')}); hover a route key for its effective route`,
          command: '',
        },
      });
    }
    return lenses;
  });
}
