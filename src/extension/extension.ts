// The extension host entry. It only wires the pure core (src/core) to VS Code: views, commands,
// settings, secrets and the language client. Activation stays cheap: nothing is fetched until a
// Session Ops view is visible, and the language client (a bundle of its own) is loaded only when
// a routing file or analysis page opens.
import * as vscode from 'vscode';
import { BackendClient } from '../core/backend';
import { SessionMonitor } from '../core/monitor/sessionMonitor';
import { AutomaticPolicy } from '../core/operations/automatic';
import { OperationBook } from '../core/operations/book';
import { Answers } from './actions/answers';
import { AutomaticRunner } from './actions/automaticRunner';
import { PromptDocuments } from './actions/promptDocuments';
import { SessionActions } from './actions/sessionActions';
import { registerCommands } from './commands';
import { Configuration } from './configuration';
import { LanguageClientHost } from './languageClientHost';
import { Notifier } from './notifier';
import { PasswordStore } from './passwordStore';
import { StatusBar } from './statusBar';
import { createTestHooks } from './testHooks';
import { PortAnalysisView } from './views/portAnalysisView';
import { ProvidersView } from './views/providersView';
import { SessionsView } from './views/sessionsView';

/** What the extension hands to other extensions and to its own editor tests. */
export interface SessionOpsApi {
  readonly activationMs: number;
  readonly configuration: Configuration;
  readonly passwords: PasswordStore;
  readonly monitor: SessionMonitor;
  readonly sessions: SessionsView;
  readonly providers: ProvidersView;
  readonly statusBar: StatusBar;
  readonly notifier: Notifier;
  readonly languageClient: LanguageClientHost;
  readonly portAnalysis: PortAnalysisView;
  readonly operations: OperationBook;
  readonly actions: SessionActions;
  readonly prompts: PromptDocuments;
  readonly automatic: AutomaticRunner;
  readonly answers: Answers;
}

/** The running extension's language client host, for deactivate(). */
let languageClientHost: LanguageClientHost | undefined;

export function activate(context: vscode.ExtensionContext): SessionOpsApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Session Ops', { log: true });
  context.subscriptions.push(log);

  const configuration = new Configuration(log);
  const passwords = new PasswordStore(context.secrets);
  const testHooks = createTestHooks(); // inert unless the editor test runner asked for them
  const monitor = new SessionMonitor({
    ...(testHooks.enabled ? { now: testHooks.now } : {}),
    createClient: (config, credentials, marks) =>
      new BackendClient({
        baseUrl: config.baseUrl,
        username: credentials?.username,
        password: credentials?.password,
        marks,
      }),
    getCredentials: (config) => passwords.get(config.key),
    ...configuration.monitorSettings(),
    log: (level, message) => log[level](message),
  });
  context.subscriptions.push({ dispose: () => monitor.dispose() }, testHooks.register(monitor));
  const operations = new OperationBook();
  const sessions = new SessionsView(monitor, operations);
  const providers = new ProvidersView(monitor);
  const statusBar = new StatusBar(monitor, sessions);
  const notifier = new Notifier(monitor, sessions, configuration, log);
  const languageClient = new LanguageClientHost(context, log);
  languageClientHost = languageClient;
  context.subscriptions.push(configuration, sessions, providers, statusBar, notifier, languageClient);
  const portAnalysis = new PortAnalysisView(languageClient, log); // asks the language server once visible
  context.subscriptions.push(portAnalysis);
  const prompts = new PromptDocuments();
  const actions = new SessionActions({
    monitor,
    sessions,
    configuration,
    operations,
    prompts,
    workspaceState: context.workspaceState,
    log,
  });
  const automatic = new AutomaticRunner(monitor, actions, configuration, operations, log);
  const answers = new Answers(monitor, sessions, operations, log);
  context.subscriptions.push(prompts, actions, automatic);

  // Sample only while someone looks (or an automatic action is armed).
  const updateActivity = () => {
    monitor.setActive(
      sessions.treeView.visible || providers.treeView.visible || AutomaticPolicy.armed(automatic.settings()),
    );
  };
  const applyConfiguration = () => {
    monitor.updateOptions(configuration.monitorSettings());
    monitor.setBackends(configuration.backends());
    statusBar.update();
    updateActivity();
  };
  context.subscriptions.push(
    sessions.treeView.onDidChangeVisibility(updateActivity),
    providers.treeView.onDidChangeVisibility(updateActivity),
    configuration.onDidChange(applyConfiguration),
    passwords.onDidChange((backendKey) => monitor.resetClient(backendKey)),
  );
  monitor.setBackends(configuration.backends());
  updateActivity();

  registerCommands(context, { configuration, passwords, monitor, sessions, log, languageClient, actions, answers });
  languageClient.startWhenNeeded();

  const activationMs = performance.now() - started;
  log.info(`Session Ops ${context.extension.packageJSON.version} activated in ${activationMs.toFixed(1)} ms`);
  return {
    activationMs,
    configuration,
    passwords,
    monitor,
    sessions,
    providers,
    statusBar,
    notifier,
    languageClient,
    portAnalysis,
    operations,
    actions,
    prompts,
    automatic,
    answers,
  };
}

/** Resolves once the language server has stopped, so that VS Code waits for it. */
export function deactivate(): Thenable<void> | undefined {
  const host = languageClientHost;
  languageClientHost = undefined;
  return host?.stop();
}
