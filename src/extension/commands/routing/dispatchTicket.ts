// Session Ops: Dispatch Ticket... The routing table (sessionOps.routingFile, or the table whose
// CodeLens was clicked) decides the ticket's route: a session, the ticket id, its Kind label
// (from the table's route keys), the intended model; the composed task opens as a prompt document
// with the effective route summarised at its top, sent (with the pre-dispatch check and the
// completion-report block, and the route's effort as the model's variant where the backend takes
// one) from the document like Dispatch Task... (prompt/send.ts).
import * as vscode from 'vscode';
import { QUALIFIES } from '../../../core/operations/targets';
import { routeSummaryComment } from '../../../core/prompt/route-summary';
import { resolveTable } from '../../../language/routing/resolve';
import { routeChoices } from '../../../language/routing/routing-file';
import { composeRouteTask } from '../../../core/prompt/route-task';
import { readRoutingTable } from '../../routing/routingTables';
import type { CommandContext, Target } from '../command-context';
import { pickModel } from '../ui/pickModel';
import { pickRow } from '../ui/rows';

/** What the CodeLens "Dispatch a ticket on this route..." passes: the table and the route key. */
export interface DispatchTicketArgs {
  routingFile?: string;
  label?: string;
}

const isArgs = (a: unknown): a is DispatchTicketArgs =>
  typeof a === 'object' && a !== null && ('routingFile' in a || 'label' in a);

export async function dispatchTicket(ctx: CommandContext, arg?: DispatchTicketArgs | Target): Promise<void> {
  const args = isArgs(arg) ? arg : {};
  const target = isArgs(arg) ? undefined : arg;
  // The table first: an invalid or missing one is said before anything is asked.
  const { uri, table } = await readRoutingTable(
    ctx.configuration,
    args.routingFile ? vscode.Uri.parse(args.routingFile) : undefined,
  );
  const keys = routeChoices(table);
  if (keys.length === 0) throw new Error(`the routing table ${vscode.workspace.asRelativePath(uri)} has no route`);
  if (args.label !== undefined && !keys.includes(args.label))
    throw new Error(`the routing table ${vscode.workspace.asRelativePath(uri)} has no route ${args.label}`);
  const row = await pickRow(ctx, target, 'Dispatch Ticket...', QUALIFIES.dispatch);
  if (!row) return;
  const ticket = (
    await vscode.window.showInputBox({
      title: 'Ticket id',
      prompt: 'The ticket the worker takes; its completion report names it',
      value: ctx.authority.ticket(row.key) ?? '',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? 'a ticket id is needed' : undefined),
    })
  )?.trim();
  if (!ticket) return;
  let label = args.label;
  if (label === undefined) {
    const pick = await vscode.window.showQuickPick(
      keys.map((k) => ({
        label: k,
        description: k === 'default' ? 'no Kind/* label with a route of its own' : undefined,
      })),
      { title: `Kind label of ${ticket}`, ignoreFocusOut: true },
    );
    if (!pick) return;
    label = pick.label;
  }
  const listing = await ctx.operator.providers(row);
  const model = await pickModel(listing, row.quotaWall?.provider ?? null, `Intended model for ${ticket}`);
  if (!model) return;
  const record = listing.providers.find((p) => p.id === model.providerID);
  const resolved = resolveTable(table, label === 'default' ? [] : [label], {
    modelVariants: record?.variants?.[model.modelID] ?? null,
  });
  if (resolved.kind === 'ambiguous') throw new Error(`ambiguous labels: ${resolved.labels.join(', ')}`);
  if (resolved.kind === 'invalid') throw new Error('the routing table does not pass validation');
  const route = resolved.route;
  await ctx.authority.setTicket(row.key, ticket);
  const text = [
    routeSummaryComment(route, ticket, vscode.workspace.asRelativePath(uri)),
    composeRouteTask({ route, ticket }),
    '',
  ].join('\n');
  await ctx.prompts.open(text, {
    backendKey: row.backendKey,
    directory: row.directory,
    sessionId: row.id,
    label: row.title ?? row.id,
    origin: 'dispatch',
    model,
    modelBasis: 'chosen by you',
    dispatch: true,
    effort: route.effort,
  });
}
