// Backend credentials live only in SecretStorage, keyed by the backend's normalized URL.
// They are never written to settings and never logged.
import * as vscode from 'vscode';
import { DEFAULT_USERNAME } from '../core/backend/credentials';

export interface Credentials {
  username: string;
  password: string;
}

const PREFIX = 'sessionOps.credentials:';

export class PasswordStore {
  private readonly emitter = new vscode.EventEmitter<string>();
  /** Fires with the backend key whose credentials changed. */
  readonly onDidChange = this.emitter.event;

  constructor(private readonly secrets: vscode.SecretStorage) {
    secrets.onDidChange((e) => {
      if (e.key.startsWith(PREFIX)) this.emitter.fire(e.key.slice(PREFIX.length));
    });
  }

  async get(backendKey: string): Promise<Credentials | undefined> {
    const raw = await this.secrets.get(PREFIX + backendKey);
    if (!raw) return undefined;
    try {
      const parsed = JSON.parse(raw) as Partial<Credentials>;
      if (typeof parsed.password === 'string') {
        return {
          username: typeof parsed.username === 'string' && parsed.username ? parsed.username : DEFAULT_USERNAME,
          password: parsed.password,
        };
      }
    } catch {
      // A value from an older format: treat it as the bare password.
    }
    return { username: DEFAULT_USERNAME, password: raw };
  }

  async set(backendKey: string, credentials: Credentials): Promise<void> {
    await this.secrets.store(PREFIX + backendKey, JSON.stringify(credentials));
  }

  async delete(backendKey: string): Promise<void> {
    await this.secrets.delete(PREFIX + backendKey);
  }
}
