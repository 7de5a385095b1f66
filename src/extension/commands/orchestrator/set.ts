// Session Ops: Set Orchestrator... The session that holds the orchestrating authority; wake and
// dispatch prompts speak for it (remembered for this workspace).
import * as vscode from 'vscode';
import type { CommandContext } from '../command-context';

export async function setOrchestrator(ctx: CommandContext): Promise<void> {
  const value = await vscode.window.showInputBox({
    title: 'Orchestrator session id',
    prompt:
      'The session that holds the orchestrating authority; wake and dispatch prompts speak for it (remembered for this workspace). Empty to clear.',
    value: ctx.authority.orchestrator() ?? '',
    ignoreFocusOut: true,
  });
  if (value === undefined) return;
  await ctx.authority.setOrchestrator(value.trim() || null);
}
