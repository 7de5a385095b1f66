// The backend a command acts on: the clicked backend row, the only one, or a pick.
import * as vscode from 'vscode';
import type { SessionsNode } from '../../views/sessionsView';
import type { CommandContext } from '../command-context';

export async function pickBackend({ configuration }: CommandContext, node?: SessionsNode) {
  if (node && 'backend' in node) return node.backend;
  const backends = configuration.backends();
  if (backends.length === 0) throw new Error('no backend is configured; run "Session Ops: Add Backend..." first');
  if (backends.length === 1) return backends[0];
  const pick = await vscode.window.showQuickPick(
    backends.map((b) => ({ label: b.name, description: b.baseUrl, backend: b })),
    { title: 'Backend' },
  );
  return pick?.backend;
}
