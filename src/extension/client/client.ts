// The language client bundle (dist/client.js): loaded lazily by LanguageClientHost.
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

export interface RoutingClient {
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** A request to the server (e.g. sessionOps/portAnalysis). */
  request<R>(method: string, params: unknown): Promise<R>;
  /** Listens to a notification from the server (e.g. sessionOps/portAnalysisChanged). */
  onNotification(method: string, handler: (params: unknown) => void): vscode.Disposable;
  readonly client: LanguageClient;
}

function redhatYamlPresent(): boolean {
  return vscode.extensions.getExtension('redhat.vscode-yaml') !== undefined;
}

export function createRoutingClient(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): RoutingClient {
  const module = context.asAbsolutePath('dist/server.js');
  const pageWatchers = [vscode.workspace.createFileSystemWatcher('**/source-analysis/*'), vscode.workspace.createFileSystemWatcher('**/source-analysis')];
  context.subscriptions.push(...pageWatchers);
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
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
    initializationOptions: {
      extraGlobs: vscode.workspace.getConfiguration('sessionOps').get<string[]>('routing.extraGlobs', []),
      redhatYamlPresent: redhatYamlPresent(),
      schemaDiagnostics: vscode.workspace.getConfiguration('sessionOps').get<string>('routing.schemaDiagnostics', 'auto'),
      pages: { sourceRoot: vscode.workspace.getConfiguration('sessionOps').get<string>('pages.sourceRoot', '') },
    },
  };
  const client = new LanguageClient('sessionOps', 'Session Ops Language Server', serverOptions, clientOptions);
  // Red Hat's YAML extension installed or removed: the server hands over (or takes back) what
  // both would report, so diagnostics are never doubled.
  const watch = vscode.extensions.onDidChange(() => {
    if (client.isRunning()) void client.sendNotification('sessionOps/environment', { redhatYamlPresent: redhatYamlPresent() });
  });
  context.subscriptions.push(watch);
  return {
    client,
    start: () => client.start(),
    stop: () => client.stop(),
    restart: () => client.restart(),
    request: <R>(method: string, params: unknown) => client.sendRequest<R>(method, params),
    onNotification: (method, handler) => client.onNotification(method, handler),
  };
}
