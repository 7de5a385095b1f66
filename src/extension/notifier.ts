// Notifications when sessions turn hung, hit a quota wall, wait for a person, or deliver a
// completion report, with the matching action as a button; at most one per session per
// transition (the monitor signals each badge change once). Transitions arriving together (many
// sessions turning hung in one round) are grouped: one notification per kind, not one each.
import { TIMING } from '../core/settings/timing';
import { formatUsd } from '../core/cost/rollup';
import { describeError } from '../core/error-message';
import * as vscode from 'vscode';
import type { FleetSource } from '../core/monitor/fleet-source';
import type { Transition } from '../core/monitor/sessionMonitor';
import { Coalesce } from '../core/timing';
import type { Configuration } from './configuration';
import type { SessionsView } from './views/sessionsView';

const GROUP_WINDOW_MS = TIMING.notificationGroupMs;

export class Notifier implements vscode.Disposable {
  private readonly off: () => void;
  /** What was notified, for tests and the log: "<kind> <session id>" (one entry per session). */
  readonly shown: string[] = [];
  /** Notifications actually displayed (a group counts once). */
  displayed = 0;
  private queue: Transition[] = [];
  private readonly grouping = new Coalesce(GROUP_WINDOW_MS, () => this.flush());

  constructor(
    monitor: FleetSource,
    private readonly sessions: SessionsView,
    private readonly configuration: Configuration,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.off = monitor.onTransition((t) => this.enqueue(t));
  }

  /** sessionOps.notifications, read once per group (hundreds of transitions can arrive in one round). */
  private enabled: boolean | undefined;

  /** Every transition of the group, logged when the group is flushed (not in the monitor's stretch that raised it). */
  private toLog: Transition[] = [];

  private enqueue(t: Transition): void {
    this.toLog.push(t);
    this.enabled ??= this.configuration.notifications();
    if (this.enabled) {
      this.shown.push(`${t.kind} ${t.row.id}`);
      this.queue.push(t);
    }
    this.grouping.trigger();
  }

  private flush(): void {
    this.enabled = undefined;
    for (const t of this.toLog) this.log.info(`session ${t.row.id} (${t.row.directory}): ${t.kind}`);
    this.toLog = [];
    const batch = this.queue;
    this.queue = [];
    const byKind = new Map<string, Transition[]>();
    for (const t of batch) {
      const group = byKind.get(t.kind);
      if (group) group.push(t);
      else byKind.set(t.kind, [t]);
    }
    for (const group of byKind.values()) {
      this.displayed++;
      void (group.length === 1 ? this.notifyOne(group[0]) : this.notifyGroup(group)).catch((err) =>
        this.log.error(`notification: ${describeError(err)}`),
      );
    }
  }

  private async notifyGroup(group: Transition[]): Promise<void> {
    const names = group.map((t) => `"${t.row.title ?? t.row.id}"`);
    const list = names.length > 4 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
    const what: Record<string, string> = {
      hung: 'are hung',
      'quota-wall': 'hit a quota wall',
      report: 'delivered completion reports',
      waiting: 'are waiting for you',
      'budget-80': 'reached 80 % of their budget',
      'budget-100': 'reached their budget',
    };
    const text = `${group.length} sessions ${what[group[0].kind] ?? `changed (${group[0].kind})`}: ${list}.`;
    const show = 'Show Sessions';
    const choice =
      group[0].kind === 'report'
        ? await vscode.window.showInformationMessage(text, show)
        : await vscode.window.showWarningMessage(text, show);
    if (choice === show) await this.sessions.reveal(group[0].row);
  }

  private async notifyOne(t: Transition): Promise<void> {
    const name = t.row.title ?? t.row.id;
    const show = 'Show Session';
    let choice: string | undefined;
    if (t.kind === 'hung') {
      choice = await vscode.window.showWarningMessage(
        `Session "${name}" is hung: generating with steps, heartbeat and newest message all frozen across two samples.`,
        show,
        'Copy ID',
      );
    } else if (t.kind === 'quota-wall') {
      const q = t.row.quotaWall;
      choice = await vscode.window.showWarningMessage(
        `Session "${name}" hit a quota wall${q?.provider ? ` on ${q.provider}` : ''} (${q?.category ?? 'usage limit'}).`,
        show,
        'Copy ID',
      );
    } else if (t.kind === 'report') {
      const r = t.row.report;
      choice = await vscode.window.showInformationMessage(
        `Session "${name}" reported ${r?.ticket ?? ''} ${r?.status ?? ''}${r?.summary ? `: ${r.summary}` : ''}`,
        'Open Report',
        show,
      );
      if (choice === 'Open Report') {
        await vscode.commands.executeCommand('sessionOps.openReport', t.row);
        return;
      }
    } else if (t.kind === 'budget-80' || t.kind === 'budget-100') {
      choice = await vscode.window.showWarningMessage(
        `Session "${name}" ${t.kind === 'budget-100' ? 'reached its budget' : 'reached 80 % of its budget'}: ${budgetText(t.row, this.configuration.operatorSettings()['budget.sessionUsd'])}.`,
        show,
        'Copy ID',
      );
    } else {
      const asked = t.row.waiting?.title;
      choice = await vscode.window.showWarningMessage(
        `Session "${name}" is waiting for you${asked ? `: ${asked}` : ''}.`,
        show,
      );
    }
    if (choice === show) await this.sessions.reveal(t.row);
    if (choice === 'Copy ID') await vscode.env.clipboard.writeText(t.row.id);
  }

  dispose(): void {
    this.grouping.cancel();
    this.toLog = [];
    this.off();
  }
}

/** "$0.8000 of $1.0000" (the budget as the settings say it now). */
function budgetText(row: Transition['row'], budgetUsd: number): string {
  const cost = row.cost ? formatUsd(row.cost.usd) : 'cost unknown';
  return budgetUsd > 0 ? `${cost} of ${formatUsd(budgetUsd)}` : cost;
}
