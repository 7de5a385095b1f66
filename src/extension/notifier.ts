// Notifications when a session turns hung, hits a quota wall, or delivers a completion report,
// with the matching action as a button; at most one per session per transition (the monitor
// signals each badge change once).
import * as vscode from 'vscode';
import type { SessionMonitor, Transition } from '../core/monitor/sessionMonitor';
import type { Configuration } from './configuration';
import type { SessionsView } from './views/sessionsView';

export class Notifier implements vscode.Disposable {
  private readonly off: () => void;
  /** What was shown, for tests and the log: "<kind> <session id>". */
  readonly shown: string[] = [];

  constructor(
    monitor: SessionMonitor,
    private readonly sessions: SessionsView,
    private readonly configuration: Configuration,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.off = monitor.onTransition((t) => void this.notify(t));
  }

  private async notify(t: Transition): Promise<void> {
    const name = t.row.title ?? t.row.id;
    this.log.info(`session ${t.row.id} (${t.row.directory}): ${t.kind}`);
    if (!this.configuration.notifications()) return;
    this.shown.push(`${t.kind} ${t.row.id}`);
    const show = 'Show Session';
    let choice: string | undefined;
    if (t.kind === 'hung') {
      choice = await vscode.window.showWarningMessage(`Session "${name}" is hung: generating with steps, heartbeat and newest message all frozen across two samples.`, show, 'Copy ID');
    } else if (t.kind === 'quota-wall') {
      const q = t.row.quotaWall;
      choice = await vscode.window.showWarningMessage(
        `Session "${name}" hit a quota wall${q?.provider ? ` on ${q.provider}` : ''} (${q?.category ?? 'usage limit'}).`,
        show,
        'Copy ID',
      );
    } else {
      const r = t.row.report;
      choice = await vscode.window.showInformationMessage(`Session "${name}" reported ${r?.ticket ?? ''} ${r?.status ?? ''}${r?.summary ? `: ${r.summary}` : ''}`, 'Open Report', show);
      if (choice === 'Open Report') {
        await vscode.commands.executeCommand('sessionOps.openReport', t.row);
        return;
      }
    }
    if (choice === show) await this.sessions.reveal(t.row);
    if (choice === 'Copy ID') await vscode.env.clipboard.writeText(t.row.id);
  }

  dispose(): void {
    this.off();
  }
}
