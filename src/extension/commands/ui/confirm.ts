// Confirmations a person gives before an action: a modal with one button, and whom a prompt
// speaks for (a modal only when the worker names another orchestrator).
import * as vscode from 'vscode';
import type { SessionRow } from '../../../core/monitor/row';
import { speaksFor } from '../../../core/operations/targets';
import type { CommandContext } from '../context';

export async function confirmModal(text: string, button: string): Promise<boolean> {
  return (await vscode.window.showWarningMessage(text, { modal: true }, button)) === button;
}

export async function confirmAuthority(ctx: CommandContext, row: SessionRow): Promise<boolean> {
  const authority = ctx.operator.authority(row);
  const speaks = speaksFor(authority.orchestrator);
  ctx.log.info(`prompt to ${row.id} ${speaks}`);
  if (authority.warnings.length === 0) return true;
  return confirmModal(`${authority.warnings.join('\n')}\n\nThis prompt ${speaks}.`, 'Send Anyway');
}
