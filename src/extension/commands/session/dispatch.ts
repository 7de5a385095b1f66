// Session Ops: Dispatch Task... The task is written in a prompt document; the pre-dispatch check
// runs when it is sent (prompt/send.ts). On an attached daemon's row the models offered are the
// daemon's (its /api/providers) and the task is sent by the daemon.
import * as vscode from 'vscode';
import { QUALIFIES } from '../../../core/operations/targets';
import type { CommandContext, Target } from '../command-context';
import { pickModel } from '../ui/pickModel';
import { attachedOf, pickRow, refuseReadOnly } from '../ui/rows';

export async function dispatch(ctx: CommandContext, target: Target): Promise<void> {
  const row = await pickRow(ctx, target, 'Dispatch Task...', QUALIFIES.dispatch);
  if (!row) return;
  refuseReadOnly(ctx, row, 'Dispatch Task...');
  // The providers of whoever acts on the row: this window's reading, or the attached daemon's /api/providers.
  const listing = await ctx.actors.for(row).providers(row);
  const model = await pickModel(listing, row.quotaWall?.provider ?? null, 'Intended model for the task');
  if (!model) return;
  // The daemon's completion-report block names its own configuration's ticket and orchestrator: no ticket asked here.
  if (!attachedOf(ctx, row)) {
    const ticket = await vscode.window.showInputBox({
      title: 'Ticket reference for the completion report (optional)',
      value: ctx.authority.ticket(row.key) ?? '',
      ignoreFocusOut: true,
    });
    if (ticket === undefined) return;
    if (ticket.trim()) await ctx.authority.setTicket(row.key, ticket.trim());
  }
  await ctx.prompts.open(
    '<!-- Write the task here. The completion-report block (with the quota self-report clause) is appended when it is sent. -->\n',
    {
      backendKey: row.backendKey,
      directory: row.directory,
      sessionId: row.id,
      label: row.title ?? row.id,
      origin: 'dispatch',
      model,
      modelBasis: 'chosen by you',
      dispatch: true,
    },
  );
}
