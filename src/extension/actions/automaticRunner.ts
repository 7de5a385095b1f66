// Runs automatic mode: after each monitor change, asks the pure AutomaticPolicy what to do with
// each row and does it through the same SessionActions as a click. Off by default; trusted
// workspaces only (Configuration.automatic reads only user settings in Restricted Mode and the
// policy refuses when untrusted); every automatic action is logged and shown once.
import * as vscode from 'vscode';
import type { SessionMonitor } from '../../core/monitor/sessionMonitor';
import type { OperationBook } from '../../core/operations/book';
import { AutomaticPolicy, type AutomaticSettings } from '../../core/operations/automatic';
import type { Configuration } from '../configuration';
import type { SessionActions } from './sessionActions';

export class AutomaticRunner implements vscode.Disposable {
  readonly policy = new AutomaticPolicy();
  private readonly off: () => void;

  constructor(
    private readonly monitor: SessionMonitor,
    private readonly actions: SessionActions,
    private readonly configuration: Configuration,
    private readonly operations: OperationBook,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.off = monitor.onDidChange(() => this.consider());
  }

  settings(): AutomaticSettings {
    return {
      abortHung: this.configuration.automatic('abortHung'),
      wakeIdle: this.configuration.automatic('wakeIdle'),
      recoverQuotaWalls: this.configuration.automatic('recoverQuotaWalls'),
    };
  }

  consider(): void {
    const settings = this.settings();
    if (!AutomaticPolicy.armed(settings)) return;
    const trusted = vscode.workspace.isTrusted;
    for (const row of this.monitor.rows()) {
      const action = this.policy.decide(row, settings, {
        trusted,
        busy: this.operations.busy(row.key) || this.operations.scheduled(row.key),
      });
      if (!action) continue;
      this.policy.record(row);
      const name = row.title ?? row.id;
      this.log.info(
        `automatic ${action} on ${row.id} (${row.directory}): verdict ${row.verdict}, action ${row.action}`,
      );
      void vscode.window.showInformationMessage(`Session Ops (automatic): ${action} on "${name}".`);
      const run =
        action === 'recover'
          ? this.actions.recover(row, { automatic: true })
          : this.actions.wake(row, { abortFirst: action === 'abort-and-wake', automatic: true });
      void Promise.resolve(run).catch((err) =>
        this.log.error(`automatic ${action} on ${row.id}: ${err instanceof Error ? err.message : String(err)}`),
      );
    }
  }

  dispose(): void {
    this.off();
  }
}
