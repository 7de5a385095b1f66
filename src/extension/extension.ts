// The extension host entry. It only wires the pure core (src/core) to VS Code: views, commands,
// settings, secrets and the language client. Activation stays cheap: nothing is fetched and the
// language client (a bundle of its own) is loaded only when a routing file or analysis page opens.
import * as vscode from 'vscode';
import { registerCommands } from './commands';
import { Configuration } from './configuration';
import { LanguageClientHost } from './languageClientHost';
import { PasswordStore } from './passwordStore';
import { ProvidersView } from './views/providersView';
import { SessionsView } from './views/sessionsView';

/** What the extension hands to other extensions and to its own editor tests. */
export interface SessionOpsApi {
  readonly activationMs: number;
  readonly configuration: Configuration;
  readonly passwords: PasswordStore;
  readonly sessions: SessionsView;
  readonly providers: ProvidersView;
  readonly languageClient: LanguageClientHost;
}

export function activate(context: vscode.ExtensionContext): SessionOpsApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Session Ops', { log: true });
  context.subscriptions.push(log);

  const configuration = new Configuration(log);
  const passwords = new PasswordStore(context.secrets);
  const sessions = new SessionsView(configuration, passwords, log);
  const providers = new ProvidersView(sessions);
  const languageClient = new LanguageClientHost(context, log);
  context.subscriptions.push(configuration, sessions, providers, languageClient);

  registerCommands(context, { configuration, passwords, sessions, log, languageClient });
  languageClient.startWhenNeeded();

  const activationMs = performance.now() - started;
  log.info(`Session Ops ${context.extension.packageJSON.version} activated in ${activationMs.toFixed(1)} ms`);
  return { activationMs, configuration, passwords, sessions, providers, languageClient };
}

export function deactivate(): Thenable<void> | undefined {
  return undefined;
}
