// Starts the bundled language server (dist/server.js, its own process over IPC) the first time a
// YAML file or a source-analysis page is open, so that activation never pays for it. The client
// code lives in its own bundle (dist/client.js), loaded with require() only at that moment.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RoutingClient } from './client/client';
import { describeError } from '../core/error-message';

export class LanguageClientHost implements vscode.Disposable {
  private client: RoutingClient | undefined;
  private starting: Promise<RoutingClient> | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  private static wants(doc: vscode.TextDocument): boolean {
    if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled') return false;
    if (doc.languageId === 'yaml') return true;
    return /[\\/]source-analysis[\\/][^\\/]+$/i.test(doc.uri.fsPath);
  }

  startWhenNeeded(): void {
    if (vscode.workspace.textDocuments.some(LanguageClientHost.wants)) {
      void this.start();
      return;
    }
    const sub = vscode.workspace.onDidOpenTextDocument((doc) => {
      if (LanguageClientHost.wants(doc)) {
        sub.dispose();
        void this.start();
      }
    });
    this.disposables.push(sub);
  }

  /** Starts (once) and resolves with the running client. */
  start(): Promise<RoutingClient> {
    this.starting ??= (async () => {
      const started = performance.now();
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- the client bundle is loaded lazily, at run time, from dist
      const { createRoutingClient } = require(
        path.join(this.context.extensionPath, 'dist', 'client.js'),
      ) as typeof import('./client/client');
      const client = createRoutingClient(this.context, this.log);
      await client.start();
      this.client = client;
      this.log.info(`language server started in ${(performance.now() - started).toFixed(0)} ms`);
      return client;
    })().catch((err: unknown) => {
      this.starting = undefined;
      this.log.error(`language server failed to start: ${describeError(err)}`);
      throw err;
    });
    return this.starting;
  }

  get running(): boolean {
    return this.client !== undefined;
  }

  async restart(): Promise<void> {
    if (this.client) {
      await this.client.restart();
    } else {
      await this.start();
    }
  }

  /** Stops the language server (when it was started); resolves once it has exited. */
  async stop(): Promise<void> {
    const starting = this.starting;
    this.starting = undefined;
    const client = this.client ?? (await starting?.catch(() => undefined));
    this.client = undefined;
    await client?.stop();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    void this.stop().catch(() => undefined);
  }
}
