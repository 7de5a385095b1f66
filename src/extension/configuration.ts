// Reads the `sessionOps.*` settings and keeps the `sessionOps.configured` context key current.
// In an untrusted workspace VS Code already ignores workspace values of the restricted settings
// (package.json capabilities.untrustedWorkspaces); we additionally read `backends` from the
// user (global) scope only there, so a workspace can never redirect the extension.
import * as vscode from 'vscode';
import { parseBackendConfigs, type BackendConfig, type BackendConfigProblem } from '../core/config/backends';

const SECTION = 'sessionOps';

export class Configuration implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [this.emitter];
  private warned = new Set<string>();

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SECTION)) this.changed();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.changed()),
    );
    void this.updateContext();
  }

  private changed(): void {
    void this.updateContext();
    this.emitter.fire();
  }

  private async updateContext(): Promise<void> {
    await vscode.commands.executeCommand('setContext', 'sessionOps.configured', this.backends().length > 0);
  }

  private section(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  /** The raw `backends` value from the scopes this workspace is allowed to use. */
  private rawBackends(): unknown {
    const inspected = this.section().inspect<unknown>('backends');
    if (!vscode.workspace.isTrusted) return inspected?.globalValue ?? [];
    return this.section().get<unknown>('backends', []);
  }

  backends(): BackendConfig[] {
    const folders = (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => f.uri.fsPath);
    const { backends, problems } = parseBackendConfigs(this.rawBackends(), folders);
    this.report(problems);
    return backends;
  }

  private report(problems: BackendConfigProblem[]): void {
    for (const p of problems) {
      const key = `${p.index}:${p.message}`;
      if (this.warned.has(key)) continue;
      this.warned.add(key);
      this.log.warn(`sessionOps.backends[${p.index}]: ${p.message}`);
      void vscode.window.showWarningMessage(`Session Ops: backend ${p.index + 1}: ${p.message}`);
    }
  }

  sampleSpacingSeconds(): number {
    const v = this.section().get<number>('sampleSpacingSeconds', 45);
    return Number.isFinite(v) ? Math.min(60, Math.max(30, Math.round(v))) : 45;
  }

  resetWithinReachMs(): number {
    const v = this.section().get<number>('resetWithinReachMinutes', 120);
    return (Number.isFinite(v) && v >= 0 ? v : 120) * 60_000;
  }

  /** sessionOps.quotaWall.retryWaitMinutes (default 2), in ms. */
  retryWaitMs(): number {
    return this.minutes('quotaWall.retryWaitMinutes', 2, 0);
  }

  /** sessionOps.quotaWall.markMaxAgeMinutes (default 360), in ms. */
  markMaxAgeMs(): number {
    return this.minutes('quotaWall.markMaxAgeMinutes', 360, 1);
  }

  /** sessionOps.recovery.providers: the providers wake and recovery may choose ([] = all but the built-in `opencode`). */
  recoveryProviders(): string[] {
    const v = this.section().get<unknown>('recovery.providers', []);
    return Array.isArray(v)
      ? v.filter((x): x is string => typeof x === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(x))
      : [];
  }

  /** sessionOps.toolCeilingMinutes (default 30), in ms. */
  toolCeilingMs(): number {
    return this.minutes('toolCeilingMinutes', 30, 1);
  }

  private minutes(key: string, fallback: number, min: number): number {
    const v = this.section().get<number>(key, fallback);
    return (typeof v === 'number' && Number.isFinite(v) && v >= min ? v : fallback) * 60_000;
  }

  automatic(name: 'abortHung' | 'wakeIdle' | 'recoverQuotaWalls'): boolean {
    if (!vscode.workspace.isTrusted) {
      return this.section().inspect<boolean>(`automatic.${name}`)?.globalValue ?? false;
    }
    return this.section().get<boolean>(`automatic.${name}`, false);
  }

  useEventStream(): boolean {
    return this.section().get<boolean>('useEventStream', true);
  }

  notifications(): boolean {
    return this.section().get<boolean>('notifications', true);
  }

  /** Appends a backend to the user settings (never the workspace's: it must not choose servers). */
  async addBackend(backend: { name?: string; baseUrl: string; directories?: string[] }): Promise<void> {
    const current = this.section().inspect<unknown[]>('backends')?.globalValue ?? [];
    await this.section().update('backends', [...current, backend], vscode.ConfigurationTarget.Global);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
