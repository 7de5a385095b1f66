// Shows an action's outcome the way the core formatted it: its notice as a message (a modal for
// an escalation), and for a prompt that did not go out, Retry and Open Prompt buttons so the
// prompt is never lost. The row and the log line were written by the operator already.
import * as vscode from 'vscode';
import type { ActionOutcome } from '../../../core/operations/action-outcome';
import { describeError } from '../../../core/error-message';
import type { CommandContext } from '../command-context';

export async function showOutcome(ctx: CommandContext, o: ActionOutcome): Promise<void> {
  const notice = o.notice;
  if (!notice) return;
  const text = `Session Ops: ${notice.text}`;
  if (o.undelivered) return offerRetry(ctx, o, text);
  switch (notice.level) {
    case 'escalation':
      await vscode.window.showWarningMessage(text, { modal: true, detail: notice.detail });
      return;
    case 'info':
      void vscode.window.showInformationMessage(text);
      return;
    case 'warning':
      void vscode.window.showWarningMessage(text);
      return;
    case 'error':
      void vscode.window.showErrorMessage(text);
  }
}

function offerRetry(ctx: CommandContext, o: ActionOutcome, text: string): void {
  const u = o.undelivered!;
  const state = o.sent === 'unknown' ? 'delivery unknown (the answer never came)' : 'not sent';
  ctx.log.warn(`prompt to ${o.sessionId} ${state}: ${o.message}`);
  const buttons = u.prompt ? ['Retry', 'Open Prompt'] : ['Retry'];
  // Not awaited: the command ends now; the prompt stays reachable from the message's buttons.
  void vscode.window.showErrorMessage(text, ...buttons).then(async (choice) => {
    try {
      if (choice === 'Retry') await showOutcome(ctx, (await ctx.operator.retry(o)).outcome);
      else if (choice === 'Open Prompt' && u.prompt) await openUndelivered(ctx, o);
    } catch (err) {
      ctx.log.error(`retry of the prompt to ${o.sessionId}: ${describeError(err)}`);
    }
  });
}

async function openUndelivered(ctx: CommandContext, o: ActionOutcome): Promise<void> {
  const u = o.undelivered!;
  const row = ctx.fleet.row(o.rowKey);
  if (!row || !u.prompt) return;
  await ctx.prompts.open(u.prompt, {
    backendKey: row.backendKey,
    directory: row.directory,
    sessionId: row.id,
    label: o.label,
    origin: u.promptOrigin,
    model: u.model,
    modelBasis: u.modelBasis,
  });
}

/** Runs an operator action with progress on the Sessions view, then shows its outcome. */
export async function runWithProgress(
  ctx: CommandContext,
  title: string,
  action: () => Promise<ActionOutcome>,
): Promise<ActionOutcome> {
  const o = await vscode.window.withProgress({ location: { viewId: 'sessionOps.sessions' }, title }, action);
  await showOutcome(ctx, o);
  return o;
}
