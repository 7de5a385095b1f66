// A status bar summary of the sessions (counts per badge that matter); click focuses the view.
import * as vscode from 'vscode';
import { needsAttention } from '../core/monitor/row';
import type { SessionMonitor } from '../core/monitor/sessionMonitor';
import type { SessionsView } from './views/sessionsView';

export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private readonly off: () => void;

  constructor(
    private readonly monitor: SessionMonitor,
    private readonly sessions: SessionsView,
  ) {
    this.item = vscode.window.createStatusBarItem('sessionOps.summary', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Session Ops';
    this.item.command = 'sessionOps.sessions.focus';
    this.off = monitor.onDidChange(() => this.update());
    this.update();
  }

  /** The summary text, e.g. "12 sessions, 1 hung, 2 quota walls, 1 report". */
  summary(): string {
    const rows = this.monitor.rows();
    const count = (pred: (b: string) => boolean) => rows.filter((r) => pred(r.badge)).length;
    const hung = count((b) => b === 'hung');
    const walls = count((b) => b === 'quota-wall');
    const reports = count((b) => b.startsWith('report-'));
    const idle = rows.filter((r) => r.badge === 'idle' && needsAttention(r)).length;
    const errors = this.monitor.backends().filter((b) => b.status === 'error').length;
    const parts = [`${rows.length} session${rows.length === 1 ? '' : 's'}`];
    if (hung) parts.push(`${hung} hung`);
    if (walls) parts.push(`${walls} quota wall${walls === 1 ? '' : 's'}`);
    if (idle) parts.push(`${idle} to wake`);
    if (reports) parts.push(`${reports} report${reports === 1 ? '' : 's'}`);
    if (errors) parts.push(`${errors} backend${errors === 1 ? '' : 's'} unreachable`);
    return parts.join(', ');
  }

  update(): void {
    if (this.monitor.backends().length === 0) {
      this.item.hide();
      return;
    }
    const rows = this.monitor.rows();
    const attention = this.sessions.attentionCount();
    const errors = this.monitor.backends().some((b) => b.status === 'error');
    const icon = errors ? '$(error)' : attention ? '$(bell-dot)' : '$(pulse)';
    this.item.text = `${icon} ${rows.length}${attention ? ` · ${attention}` : ''}`;
    this.item.tooltip = `Session Ops: ${this.summary()}`;
    this.item.accessibilityInformation = { label: `Session Ops: ${this.summary()}` };
    this.item.backgroundColor = attention || errors ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.off();
    this.item.dispose();
  }
}
