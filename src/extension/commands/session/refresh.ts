// Session Ops: Refresh. Samples every session now, with progress on the Sessions view.
import * as vscode from 'vscode';
import type { CommandContext } from '../command-context';

export function refresh(ctx: CommandContext): Thenable<unknown> {
  return vscode.window.withProgress({ location: { viewId: 'sessionOps.sessions' }, title: 'Sampling sessions' }, () =>
    ctx.monitor.refresh(true),
  );
}
