// Session Ops: Add Backend... A base URL (clear-text http:// to another machine only after a
// modal), the working directories to watch, a name; written to the user settings.
import * as vscode from 'vscode';
import { isLoopbackHost, normalizeBaseUrl } from '../../../core/config/backends';
import type { CommandContext } from '../command-context';

export async function addBackend({ configuration }: CommandContext): Promise<void> {
  const input = await vscode.window.showInputBox({
    title: 'Add Session Backend',
    prompt: 'Base URL of the opencode server (or a backend speaking the spec dialect)',
    placeHolder: 'http://127.0.0.1:4096',
    ignoreFocusOut: true,
    validateInput: (value) => {
      try {
        normalizeBaseUrl(value);
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    },
  });
  if (!input) return;
  const url = normalizeBaseUrl(input);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    const go = await vscode.window.showWarningMessage(
      `${url.origin} is clear-text http:// to another machine: the password and prompts can be read on the way. Add it anyway?`,
      { modal: true },
      'Add Anyway',
    );
    if (go !== 'Add Anyway') return;
  }
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  let directories: string[] | undefined;
  if (folders.length > 0) {
    const picks = await vscode.window.showQuickPick(
      folders.map((f) => ({ label: f.name, description: f.uri.fsPath, picked: true })),
      { title: 'Working directories whose sessions to watch', canPickMany: true, ignoreFocusOut: true },
    );
    if (!picks) return;
    if (picks.length !== folders.length) directories = picks.map((p) => p.description!);
  } else {
    const dir = await vscode.window.showInputBox({
      title: 'Working directory on the backend machine',
      prompt: 'Absolute path',
      ignoreFocusOut: true,
    });
    if (!dir) return;
    directories = [dir];
  }
  const name = await vscode.window.showInputBox({ title: 'Name (optional)', value: url.host, ignoreFocusOut: true });
  await configuration.addBackend({
    ...(name && name !== url.host ? { name } : {}),
    baseUrl: url.href.replace(/\/$/, ''),
    ...(directories ? { directories } : {}),
  });
}
