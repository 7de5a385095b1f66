// Daemon tokens (sessionOps.daemons) live only in SecretStorage, keyed by the daemon's normalized
// url (src/core/config/daemons.ts daemonTokenKey). Never written to settings, never logged.
import * as vscode from 'vscode';
import { daemonTokenKey } from '../core/config/daemons';

const PREFIX = 'sessionOps.daemonToken:';

export class DaemonTokens implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<string>();
  /** Fires with the daemon key whose token changed. */
  readonly onDidChange = this.emitter.event;
  private readonly off: vscode.Disposable;

  constructor(private readonly secrets: vscode.SecretStorage) {
    this.off = secrets.onDidChange((e) => {
      if (e.key.startsWith(PREFIX)) this.emitter.fire(e.key.slice(PREFIX.length));
    });
  }

  async get(url: string): Promise<string | null> {
    return (await this.secrets.get(PREFIX + daemonTokenKey(url))) ?? null;
  }

  async set(url: string, token: string): Promise<void> {
    await this.secrets.store(PREFIX + daemonTokenKey(url), token);
  }

  async delete(url: string): Promise<void> {
    await this.secrets.delete(PREFIX + daemonTokenKey(url));
  }

  dispose(): void {
    this.off.dispose();
    this.emitter.dispose();
  }
}
