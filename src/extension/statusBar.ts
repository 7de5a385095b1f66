// A status bar summary of the sessions (counts per badge that matter); click focuses the view.
import * as vscode from 'vscode';
import { joinKey } from '../core/keys';
import { needsAttention } from '../core/monitor/row';
import type { FleetSource } from '../core/monitor/fleet-source';
import { Coalesce } from '../core/timing';
import { ATTENTION_DELAY_MS, type SessionsView } from './views/sessionsView';

export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private readonly off: () => void;
  /** Counted once per burst of changes (every directory sampled is a change), not once per change. */
  private readonly updateSoon = new Coalesce(ATTENTION_DELAY_MS, () => this.update());

  constructor(
    private readonly monitor: FleetSource,
    private readonly sessions: SessionsView,
    /** Who acts automatically on which fleet (src/core/daemon/who-acts.ts), shown in the tooltip. */
    private readonly whoActs: () => string = () => '',
  ) {
    this.item = vscode.window.createStatusBarItem('sessionOps.summary', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Session Ops';
    this.item.command = 'sessionOps.sessions.focus';
    this.off = monitor.onDidChange(() => this.updateSoon.trigger());
    this.update();
  }

  /** The summary text, e.g. "12 sessions, 1 hung, 2 quota walls, 1 report". Counted once per rows array. */
  summary(): string {
    const rows = this.monitor.rows();
    const errors = this.monitor.backends().filter((b) => b.status === 'error').length;
    if (this.counted?.rows === rows && this.counted.errors === errors) return this.counted.text;
    let hung = 0;
    let walls = 0;
    let reports = 0;
    let idle = 0;
    for (const r of rows) {
      if (r.badge === 'hung') hung++;
      else if (r.badge === 'quota-wall') walls++;
      else if (r.badge.startsWith('report-')) reports++;
      else if (r.badge === 'idle' && needsAttention(r)) idle++;
    }
    const parts = [`${rows.length} session${rows.length === 1 ? '' : 's'}`];
    if (hung) parts.push(`${hung} hung`);
    if (walls) parts.push(`${walls} quota wall${walls === 1 ? '' : 's'}`);
    if (idle) parts.push(`${idle} to wake`);
    if (reports) parts.push(`${reports} report${reports === 1 ? '' : 's'}`);
    if (errors) parts.push(`${errors} backend${errors === 1 ? '' : 's'} unreachable`);
    this.counted = { rows, errors, text: parts.join(', ') };
    return this.counted.text;
  }

  private counted: { rows: readonly unknown[]; errors: number; text: string } | null = null;
  /** What the item shows now: each property set is a message to the workbench, so only changes are sent. */
  private shown = '';

  update(): void {
    if (this.monitor.backends().length === 0) {
      if (this.shown !== 'hidden') this.item.hide();
      this.shown = 'hidden';
      return;
    }
    const rows = this.monitor.rows();
    const attention = this.sessions.attentionCount();
    const errors = this.monitor.backends().some((b) => b.status === 'error');
    const icon = errors ? '$(error)' : attention ? '$(bell-dot)' : '$(pulse)';
    const text = `${icon} ${rows.length}${attention ? ` · ${attention}` : ''}`;
    const who = this.whoActs();
    const summary = `Session Ops: ${this.summary()}${who ? `\n${who}` : ''}`;
    const warn = Boolean(attention || errors);
    const look = joinKey(text, summary, String(warn));
    if (look === this.shown) return;
    this.shown = look;
    this.item.text = text;
    this.item.tooltip = summary;
    this.item.accessibilityInformation = { label: summary };
    this.item.backgroundColor = warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    this.item.show();
  }

  dispose(): void {
    this.off();
    this.updateSoon.cancel();
    this.item.dispose();
  }
}
