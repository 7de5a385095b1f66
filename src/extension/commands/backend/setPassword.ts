// Session Ops: Set Password... The user name and password of a backend, kept in the editor's secret storage.
import * as vscode from 'vscode';
import { DEFAULT_USERNAME } from '../../../core/backend/credentials';
import type { SessionsNode } from '../../views/sessionsView';
import type { CommandContext } from '../command-context';
import { pickBackend } from '../ui/backends';

export async function setPassword(deps: CommandContext, node?: SessionsNode): Promise<void> {
  const backend = await pickBackend(deps, node);
  if (!backend) return;
  const username = await vscode.window.showInputBox({
    title: `User name for ${backend.name}`,
    value: (await deps.passwords.get(backend.key))?.username ?? DEFAULT_USERNAME,
    ignoreFocusOut: true,
  });
  if (username === undefined) return;
  const password = await vscode.window.showInputBox({
    title: `Password for ${backend.name}`,
    prompt: "Kept in the editor's secret storage, never in settings",
    password: true,
    ignoreFocusOut: true,
  });
  if (!password) return;
  await deps.passwords.set(backend.key, { username: username || DEFAULT_USERNAME, password });
  deps.log.info(`credentials for ${backend.baseUrl} updated`);
  deps.sessions.refresh();
}
