// The language client bundle (dist/client.js): loaded lazily by LanguageClientHost.
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

export interface RoutingClient {
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  readonly client: LanguageClient;
}

function redhatYamlPresent(): boolean {
  return vscode.extensions.getExtension('redhat.vscode-yaml') !== undefined;
}

export function createRoutingClient(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): RoutingClient {
  const module = context.asAbsolutePath('dist/server.js');
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
    synchronize: { configurationSection: 'sessionOps' },
    outputChannel: log,
    initializationOptions: {
      extraGlobs: vscode.workspace.getConfiguration('sessionOps').get<string[]>('routing.extraGlobs', []),
      redhatYamlPresent: redhatYamlPresent(),
      schemaDiagnostics: vscode.workspace.getConfiguration('sessionOps').get<string>('routing.schemaDiagnostics', 'auto'),
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
  };
}
