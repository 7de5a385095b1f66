// The language client bundle (dist/client.js): loaded lazily by LanguageClientHost.
import { TIMING } from '../../core/settings/timing';
import * as vscode from 'vscode';
import {
  CancellationTokenSource,
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { withDeadline } from '../../core/timing';
import { EnvironmentNotification, type NotificationType, type RequestType } from '../../shared/protocol';
import { SERVER_EXEC_ARGV } from '../../shared/serverProcess';
import { initializationOptionsFrom, type InitializationOptions } from '../../shared/settings';

const REQUEST_DEADLINE_MS = TIMING.languageRequestDeadlineMs;

export interface RoutingClient {
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** A request to the server (src/shared/protocol, e.g. PortAnalysisRequest); fails after REQUEST_DEADLINE_MS. */
  request<P, R>(type: RequestType<P, R, void>, params: P): Promise<R>;
  /** Listens to a notification from the server (src/shared/protocol, e.g. PortAnalysisChangedNotification). */
  onNotification<P>(type: NotificationType<P>, handler: (params: P) => void): vscode.Disposable;
  readonly client: LanguageClient;
}

function redhatYamlPresent(): boolean {
  return vscode.extensions.getExtension('redhat.vscode-yaml') !== undefined;
}

export function createRoutingClient(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): RoutingClient {
  const module = context.asAbsolutePath('dist/server.js');
  const pageWatchers = [
    vscode.workspace.createFileSystemWatcher('**/source-analysis/*'),
    vscode.workspace.createFileSystemWatcher('**/source-analysis'),
  ];
  context.subscriptions.push(...pageWatchers);
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc, options: { execArgv: [...SERVER_EXEC_ARGV] } },
    debug: {
      module,
      transport: TransportKind.ipc,
      options: { execArgv: [...SERVER_EXEC_ARGV, '--nolazy', '--inspect=6019'] },
    },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'untitled', language: 'yaml' },
      { scheme: 'file', pattern: '**/source-analysis/*' },
    ],
    // Page files changed on disk: the server re-reads the page sets (cross-page checks, Port analysis).
    synchronize: { configurationSection: 'sessionOps', fileEvents: pageWatchers },
    outputChannel: log,
    initializationOptions: initializationOptions(),
  };
  const client = new LanguageClient('sessionOps', 'Session Ops Language Server', serverOptions, clientOptions);
  // Red Hat's YAML extension installed or removed: the server hands over (or takes back) what
  // both would report, so diagnostics are never doubled.
  const watch = vscode.extensions.onDidChange(() => {
    if (client.isRunning())
      void client.sendNotification(EnvironmentNotification.method, { redhatYamlPresent: redhatYamlPresent() });
  });
  context.subscriptions.push(watch);
  return {
    client,
    start: () => client.start(),
    stop: () => client.stop(),
    restart: () => client.restart(),
    // By method name: the type objects may come from the extension bundle's own copy of
    // vscode-jsonrpc, whose parameter-structure markers this bundle's copy would not recognise.
    request: (type, params) => requestWithDeadline(client, type.method, params),
    onNotification: (type, handler) => client.onNotification(type.method, handler),
  };
}

function initializationOptions(): InitializationOptions {
  const config = vscode.workspace.getConfiguration('sessionOps');
  return initializationOptionsFrom((key) => config.get(key), redhatYamlPresent());
}

async function requestWithDeadline<R>(client: LanguageClient, method: string, params: unknown): Promise<R> {
  const cancel = new CancellationTokenSource();
  try {
    return await withDeadline(client.sendRequest<R>(method, params, cancel.token), REQUEST_DEADLINE_MS, () => {
      cancel.cancel();
      return new Error(`${method}: no answer from the language server within ${REQUEST_DEADLINE_MS / 1000} s`);
    });
  } finally {
    cancel.dispose();
  }
}
