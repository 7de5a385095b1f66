// The extension host entry. It only wires the pure core (src/core) to VS Code: views, commands,
// settings, secrets and the language client. Activation stays cheap: nothing is fetched until a
// Session Ops view is visible, and the language client (a bundle of its own) is loaded only when
// a routing file or analysis page opens.
import * as vscode from 'vscode';
import { BackendClient } from '../core/backend';
import { AttachedDaemon } from '../core/daemon/attached-daemon';
import { DaemonActor } from '../core/daemon/daemon-actor';
import { FleetUnion } from '../core/daemon/fleet-union';
import { whoActs } from '../core/daemon/who-acts';
import { automaticSwitches } from '../core/settings/operator-settings';
import { Actors, LocalActor } from '../core/operations/actor';
import { SessionMonitor } from '../core/monitor/sessionMonitor';
import type { OperationBook } from '../core/operations/book';
import { Operator } from '../core/operations/operator';
import { operatorStateFor } from '../core/operations/state-store-operator';
import type { CommandContext } from './commands/command-context';
import { registerCommands } from './commands/registry';
import { showAutomatic } from './commands/ui/automatic';
import { Configuration } from './configuration';
import { DaemonTokens } from './daemonTokens';
import { LanguageClientHost } from './languageClientHost';
import { Notifier } from './notifier';
import { PasswordStore } from './passwordStore';
import { PromptDocuments } from './prompts/promptDocuments';
import { EffectiveRouteDocuments } from './routing/effectiveRouteDocuments';
import { WorkspaceAuthority } from './prompts/workspaceAuthority';
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
  /** What the views show: the monitor's backends and the attached daemons' (sessionOps.daemons). */
  readonly fleet: FleetUnion;
  readonly sessions: SessionsView;
  readonly providers: ProvidersView;
  readonly statusBar: StatusBar;
  readonly notifier: Notifier;
  readonly languageClient: LanguageClientHost;
  readonly portAnalysis: PortAnalysisView;
  /** What Session Ops is doing to each session (the operator's book). */
  readonly operations: OperationBook;
  readonly operator: Operator;
  readonly prompts: PromptDocuments;
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
    clock: testHooks.clock,
    createClient: (config, credentials, marks) =>
      new BackendClient({
        baseUrl: config.baseUrl,
        username: credentials?.username,
        password: credentials?.password,
        marks,
        surface: config.surface,
      }),
    getCredentials: (config) => passwords.get(config.key),
    ...configuration.monitorSettings(),
    log: (level, message) => log[level](message),
  });
  context.subscriptions.push({ dispose: () => monitor.dispose() }, testHooks.register(monitor));
  // Attached daemons (sessionOps.daemons): shown beside the monitor's backends, never sampled here,
  // and never handed to the operator (automatic mode acts only on what this window samples).
  const daemonTokens = new DaemonTokens(context.secrets);
  const fleet = new FleetUnion(
    monitor,
    (config, hooks) =>
      new AttachedDaemon({
        config,
        token: () => daemonTokens.get(config.url),
        clock: testHooks.clock,
        log: (level, message) => log[level](message),
        coalesceMs: testHooks.daemonCoalesceMs(),
        ...hooks,
      }),
  );
  context.subscriptions.push(
    daemonTokens,
    { dispose: () => fleet.dispose() },
    testHooks.registerDaemonTokens(daemonTokens),
  );
  const authority = new WorkspaceAuthority(context.workspaceState);
  const operator = new Operator({
    monitor,
    settings: configuration.operatorSettings(),
    log: (level, message) => log[level](message),
    authority: (row) => authority.of(row),
    trusted: () => vscode.workspace.isTrusted,
    state: operatorStateFor(process.env, testHooks.clock.now),
    clock: testHooks.clock,
  });
  context.subscriptions.push({ dispose: () => operator.dispose() });
  const operations = operator.book;
  const sessions = new SessionsView(fleet, operations, operator.reports, (row) =>
    fleet.daemonOf(row.backendKey) ? null : operator.automaticSkip(row),
  );
  const providers = new ProvidersView(fleet);
  const statusBar = new StatusBar(fleet, sessions, () =>
    whoActs(
      { switches: automaticSwitches(configuration.operatorSettings()), sampledBackends: monitor.backends().length },
      fleet.attachedDaemons().map((d) => d.config),
    ),
  );
  const notifier = new Notifier(fleet, sessions, configuration, log);
  const languageClient = new LanguageClientHost(context, log);
  languageClientHost = languageClient;
  context.subscriptions.push(configuration, sessions, providers, statusBar, notifier, languageClient);
  const portAnalysis = new PortAnalysisView(languageClient, log); // asks the language server once visible
  context.subscriptions.push(portAnalysis);
  const prompts = new PromptDocuments();
  context.subscriptions.push(prompts, new EffectiveRouteDocuments(configuration));
  const actors = new Actors(new LocalActor(operator), (row) => {
    const daemon = fleet.daemonOf(row.backendKey);
    return daemon ? new DaemonActor(daemon) : undefined;
  });
  const commands: CommandContext = {
    operator,
    actors,
    monitor,
    fleet,
    sessions,
    configuration,
    passwords,
    daemonTokens,
    prompts,
    authority,
    languageClient,
    log,
  };
  context.subscriptions.push(showAutomatic(commands));

  // Sample only while someone looks (or an automatic action is armed).
  const updateActivity = () => {
    const looking = sessions.treeView.visible || providers.treeView.visible;
    monitor.setActive(looking || operator.armed());
    fleet.setActive(looking);
  };
  const applyConfiguration = () => {
    monitor.updateOptions(configuration.monitorSettings());
    operator.updateSettings(configuration.operatorSettings());
    sessions.setShowCost(configuration.operatorSettings().showCost);
    monitor.setBackends(configuration.backends());
    fleet.setDaemons(configuration.daemons());
    statusBar.update();
    updateActivity();
  };
  context.subscriptions.push(
    sessions.treeView.onDidChangeVisibility(updateActivity),
    providers.treeView.onDidChangeVisibility(updateActivity),
    configuration.onDidChange(applyConfiguration),
    passwords.onDidChange((backendKey) => monitor.resetClient(backendKey)),
    daemonTokens.onDidChange((daemonKey) => fleet.restart(daemonKey)),
  );
  monitor.setBackends(configuration.backends());
  fleet.setDaemons(configuration.daemons());
  sessions.setShowCost(configuration.operatorSettings().showCost);
  updateActivity();

  registerCommands(context, commands);
  languageClient.startWhenNeeded();

  const activationMs = performance.now() - started;
  log.info(`Session Ops ${context.extension.packageJSON.version} activated in ${activationMs.toFixed(1)} ms`);
  return {
    activationMs,
    configuration,
    passwords,
    monitor,
    fleet,
    sessions,
    providers,
    statusBar,
    notifier,
    languageClient,
    portAnalysis,
    operations,
    operator,
    prompts,
  };
}

/** Resolves once the language server has stopped, so that VS Code waits for it. */
export function deactivate(): Thenable<void> | undefined {
  const host = languageClientHost;
  languageClientHost = undefined;
  return host?.stop();
}
