// Maps the `sessionOps.*` settings onto the core's settings models (no default is written here:
// they live in src/core/settings/operator-settings.ts and src/core/config/backends.ts) and keeps
// the `sessionOps.configured` context key current.
// In an untrusted workspace VS Code already ignores workspace values of the restricted settings
// (package.json capabilities.untrustedWorkspaces); we additionally read `backends` from the
// user (global) scope only there, so a workspace can never redirect the extension.
import * as vscode from 'vscode';
import { parseBackendConfigs, type BackendConfig, type BackendConfigProblem } from '../core/config/backends';
import { parseDaemonConfigs, type DaemonConfig } from '../core/config/daemons';
import { joinKey } from '../core/keys';
import { routingFileCandidates } from '../language/routing/routing-file';
import { coerceSetting } from '../core/settings/definition';
import { readEditorSettings, RESTRICTED_EDITOR_SETTINGS, type EditorSettings } from '../core/settings/editor-settings';
import {
  automaticSwitches,
  monitorSettings,
  readOperatorSettings,
  RESTRICTED_OPERATOR_SETTINGS,
  type AutomaticSwitches,
  type MonitorSettings,
  type OperatorSettings,
} from '../core/settings/operator-settings';
import { LANGUAGE_SERVER_SETTINGS } from '../shared/settings';

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
    await vscode.commands.executeCommand(
      'setContext',
      'sessionOps.configured',
      this.backends().length > 0 || this.daemons().length > 0,
    );
  }

  private section(): vscode.WorkspaceConfiguration {
    return vscode.workspace.getConfiguration(SECTION);
  }

  /** The raw `backends` value from the scopes this workspace is allowed to use. */
  private rawBackends(): unknown {
    if (!vscode.workspace.isTrusted) return this.section().inspect<unknown>('backends')?.globalValue;
    return this.section().get<unknown>('backends');
  }

  backends(): BackendConfig[] {
    const folders = (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => f.uri.fsPath);
    const { backends, problems } = parseBackendConfigs(this.rawBackends(), folders);
    this.report(problems);
    return backends;
  }

  /**
   * The daemons this window attaches to (sessionOps.daemons). As `backends`, read from the user
   * (global) scope only in an untrusted workspace: a workspace can never attach the window to a daemon.
   */
  daemons(): DaemonConfig[] {
    const raw = vscode.workspace.isTrusted
      ? this.section().get<unknown>('daemons')
      : this.section().inspect<unknown>('daemons')?.globalValue;
    const { daemons, problems } = parseDaemonConfigs(raw);
    this.report(problems, 'daemons', 'daemon');
    return daemons;
  }

  private report(problems: BackendConfigProblem[], setting = 'backends', what = 'backend'): void {
    for (const p of problems) {
      const key = joinKey(setting, String(p.index), p.message);
      if (this.warned.has(key)) continue;
      this.warned.add(key);
      this.log.warn(`sessionOps.${setting}[${p.index}]: ${p.message}`);
      void vscode.window.showWarningMessage(`Session Ops: ${what} ${p.index + 1}: ${p.message}`);
    }
  }

  /**
   * The operator settings (src/core/settings/operator-settings.ts) from `sessionOps.*`. In an
   * untrusted workspace a restricted setting is read from the user's own settings only.
   */
  operatorSettings(): OperatorSettings {
    const section = this.section();
    const trusted = vscode.workspace.isTrusted;
    return readOperatorSettings((key) =>
      !trusted && RESTRICTED_OPERATOR_SETTINGS.has(key) ? section.inspect(key)?.globalValue : section.get(key),
    );
  }

  /** The operator settings in milliseconds, as the monitor takes them. */
  monitorSettings(): MonitorSettings {
    return monitorSettings(this.operatorSettings());
  }

  automatic(name: keyof AutomaticSwitches): boolean {
    return automaticSwitches(this.operatorSettings())[name];
  }

  notifications(): boolean {
    return this.operatorSettings().notifications;
  }

  /**
   * The editor's own settings (src/core/settings/editor-settings.ts). In an untrusted workspace a
   * restricted one (routingFile) is read from the user's own settings only: the workspace cannot
   * point Dispatch Ticket... at another table.
   */
  editorSettings(): EditorSettings {
    const section = this.section();
    const trusted = vscode.workspace.isTrusted;
    return readEditorSettings((key) =>
      !trusted && RESTRICTED_EDITOR_SETTINGS.has(key) ? section.inspect(key)?.globalValue : section.get(key),
    );
  }

  /** Where sessionOps.routingFile may be, in order: under each workspace folder, or the absolute path. */
  routingFileCandidates(): string[] {
    const folders = (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f) => f.uri.fsPath);
    return routingFileCandidates(this.editorSettings().routingFile, folders);
  }

  /** The largest routing table read (sessionOps.maxDocumentMB), in bytes. */
  maxDocumentBytes(): number {
    const mb = coerceSetting(LANGUAGE_SERVER_SETTINGS.maxDocumentMB, this.section().get<unknown>('maxDocumentMB'));
    return mb * 1024 * 1024;
  }

  /** Appends a backend to the user settings (never the workspace's: it must not choose servers). */
  async addBackend(backend: { name?: string; baseUrl: string; directories?: string[] }): Promise<void> {
    const current = this.section().inspect<unknown>('backends')?.globalValue;
    const list = Array.isArray(current) ? current : [];
    await this.section().update('backends', [...list, backend], vscode.ConfigurationTarget.Global);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
