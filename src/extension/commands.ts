// Command registrations. Each handler adapts user input to the core and reports problems as
// clear messages; none may throw into the extension host.
import * as vscode from 'vscode';
import { isLoopbackHost, normalizeBaseUrl } from '../core/config/backends';
import type { SessionRow } from '../core/monitor/row';
import type { SessionMonitor } from '../core/monitor/sessionMonitor';
import type { Answers } from './actions/answers';
import { registerActionCommands } from './actions/register';
import type { SessionActions } from './actions/sessionActions';
import type { Configuration } from './configuration';
import type { LanguageClientHost } from './languageClientHost';
import { DEFAULT_USERNAME, type PasswordStore } from './passwordStore';
import type { SessionsNode, SessionsView } from './views/sessionsView';

export interface CommandDeps {
  configuration: Configuration;
  passwords: PasswordStore;
  monitor: SessionMonitor;
  sessions: SessionsView;
  languageClient: LanguageClientHost;
  log: vscode.LogOutputChannel;
  actions: SessionActions;
  answers: Answers;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- command handlers take whatever VS Code passes (tree items, URIs)
type Handler = (...args: any[]) => unknown;

export function registerCommands(context: vscode.ExtensionContext, deps: CommandDeps): void {
  const { log } = deps;
  const guard =
    (id: string, fn: Handler): Handler =>
    async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.error(`${id}: ${message}`);
        void vscode.window.showErrorMessage(`Session Ops: ${message}`);
        return undefined;
      }
    };
  const register = (id: string, fn: Handler) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, guard(id, fn)));

  register('sessionOps.refresh', () =>
    vscode.window.withProgress({ location: { viewId: 'sessionOps.sessions' }, title: 'Sampling sessions' }, () =>
      deps.monitor.refresh(true),
    ),
  );
  register('sessionOps.retryBackend', (node?: SessionsNode) => {
    if (node && 'backend' in node) deps.monitor.resetClient(node.backend.key);
    else return deps.monitor.refresh(true);
    return undefined;
  });
  register('sessionOps.openReport', (target?: SessionsNode | SessionRow) => openReport(deps, target));
  register('sessionOps.showLog', () => log.show());
  register('sessionOps.restartLanguageServer', () => deps.languageClient.restart());
  register('sessionOps.addBackend', () => addBackend(deps));
  register('sessionOps.setPassword', (node?: SessionsNode) => setPassword(deps, node));
  register('sessionOps.clearPassword', (node?: SessionsNode) => clearPassword(deps, node));
  registerActionCommands(register, deps.actions, deps.answers);
  register('sessionOps.copySessionId', async (node?: SessionsNode) => {
    if (node?.kind !== 'session') throw new Error('select a session first');
    await vscode.env.clipboard.writeText(node.sessionId);
    vscode.window.setStatusBarMessage(`Copied ${node.sessionId}`, 3000);
  });
}

async function addBackend({ configuration }: CommandDeps): Promise<void> {
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

async function pickBackend({ configuration }: CommandDeps, node?: SessionsNode) {
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

async function setPassword(deps: CommandDeps, node?: SessionsNode): Promise<void> {
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

async function clearPassword(deps: CommandDeps, node?: SessionsNode): Promise<void> {
  const backend = await pickBackend(deps, node);
  if (!backend) return;
  await deps.passwords.delete(backend.key);
  deps.log.info(`credentials for ${backend.baseUrl} removed`);
  deps.sessions.refresh();
}

async function openReport(deps: CommandDeps, target?: SessionsNode | SessionRow): Promise<void> {
  const row = !target ? undefined : 'kind' in target ? deps.sessions.row(target) : target;
  const kept = row && deps.sessions.reportOf(row);
  if (!row || !kept) throw new Error('this session has no completion report');
  const r = kept.report;
  const cell = (v: string | null) => (v ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const lines = [
    `# Completion report: ${cell(r.ticket)}`,
    '',
    '| Field | Value |',
    '|---|---|',
    `| session | \`${row.id}\` |`,
    `| directory | ${cell(row.directory)} |`,
    `| ticket | ${cell(r.ticket)} |`,
    `| label | ${cell(r.label)} |`,
    `| status | ${r.status} |`,
    `| pr | ${r.pr && /^https?:\/\/[^\s<>()]+$/.test(r.pr) ? `<${r.pr}>` : cell(r.pr)} |`,
    `| reason | ${cell(r.reason)} |`,
    `| summary | ${cell(r.summary)} |`,
    '',
    row.report ? '## Newest message' : '## The message the report came in (a newer message has arrived since)',
    '',
    '~~~~text',
    (kept.text ?? '').replace(/~~~~/g, '~ ~ ~ ~'),
    '~~~~',
    '',
  ];
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: lines.join('\n') });
  await vscode.window.showTextDocument(doc, { preview: true });
  deps.sessions.markReportSeen(row);
}
