// The language client bundle (dist/client.js): loaded lazily by LanguageClientHost.
import * as vscode from 'vscode';
import { LanguageClient, TransportKind, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

export interface RoutingClient {
  start(): Promise<void>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  readonly client: LanguageClient;
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
      redhatYamlPresent: vscode.extensions.getExtension('redhat.vscode-yaml') !== undefined,
    },
  };
  const client = new LanguageClient('sessionOps', 'Session Ops Language Server', serverOptions, clientOptions);
  return {
    client,
    start: () => client.start(),
    stop: () => client.stop(),
    restart: () => client.restart(),
  };
}
