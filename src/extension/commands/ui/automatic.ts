// What a person sees of automatic mode: each automatic start once as a message, and the outcome
// of every automatic action (or fired retry) the way a click's outcome is shown.
import * as vscode from 'vscode';
import type { CommandContext } from '../command-context';
import { showOutcome } from './show-outcome';

export function showAutomatic(ctx: CommandContext): vscode.Disposable {
  const offStart = ctx.operator.onDidStartAutomatic((action, row) => {
    void vscode.window.showInformationMessage(`Session Ops (automatic): ${action} on "${row.title ?? row.id}".`);
  });
  const offAct = ctx.operator.onDidAct((o) => {
    if (o.automatic) void showOutcome(ctx, o);
  });
  return {
    dispose: () => {
      offStart();
      offAct();
    },
  };
}
