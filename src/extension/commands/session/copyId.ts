// Copy Session ID.
import * as vscode from 'vscode';
import type { SessionsNode } from '../../views/sessionsView';

export async function copySessionId(node?: SessionsNode): Promise<void> {
  if (node?.kind !== 'session') throw new Error('select a session first');
  await vscode.env.clipboard.writeText(node.sessionId);
  vscode.window.setStatusBarMessage(`Copied ${node.sessionId}`, 3000);
}
