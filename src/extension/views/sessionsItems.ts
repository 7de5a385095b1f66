// The tree items of the Sessions view, built from a node and what the monitor and the operator
// say about it. Plain functions: the view decides when an item is built.
import * as vscode from 'vscode';
import { dialectDisplayName } from '../../core/backend/dialects';
import { backendContextValue, contextValueOf } from '../../core/monitor/context-values';
import { badgeLook, tooltipMarkdown, type TooltipExtras } from '../../core/monitor/present';
import type { SessionRow } from '../../core/monitor/row';
import type { BackendState } from '../../core/monitor/sessionMonitor';
import type { SessionsNode } from './sessionsNodes';

type NodeOf<K extends SessionsNode['kind']> = Extract<SessionsNode, { kind: K }>;

export function directoryItem(
  node: NodeOf<'directory'>,
  state: vscode.TreeItemCollapsibleState,
  spent: string,
): vscode.TreeItem {
  const item = new vscode.TreeItem(node.directory, state);
  item.id = node.key;
  if (spent) item.description = spent;
  item.iconPath = vscode.ThemeIcon.Folder;
  item.contextValue = contextValueOf('directory', []);
  return item;
}

export function messageItem(node: NodeOf<'message'>): vscode.TreeItem {
  const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
  item.id = node.key;
  if (node.error) {
    item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
    item.contextValue = contextValueOf('backendError', []);
    item.tooltip = new vscode.MarkdownString().appendText(node.text);
    item.command = { command: 'sessionOps.retryBackend', title: 'Retry', arguments: [node] };
  } else if (node.warning) {
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('editorWarning.foreground'));
    item.contextValue = contextValueOf('message', []);
    item.tooltip = new vscode.MarkdownString().appendText(node.text);
  } else {
    item.iconPath = new vscode.ThemeIcon('info');
    item.contextValue = contextValueOf('message', []);
  }
  return item;
}

export function backendItem(
  node: NodeOf<'backend'>,
  state: BackendState | undefined,
  attention: (row: SessionRow) => boolean,
  collapsible: vscode.TreeItemCollapsibleState,
  spent: string,
): vscode.TreeItem {
  const item = new vscode.TreeItem(node.backend.name, collapsible);
  item.id = node.key;
  const rows = state?.directories.flatMap((d) => d.rows) ?? [];
  const needing = rows.filter(attention).length;
  const bits = [node.backend.baseUrl];
  if (state?.status === 'ok')
    bits.push(`${rows.length} session${rows.length === 1 ? '' : 's'}${needing ? `, ${needing} need attention` : ''}`);
  const dialect = dialectDisplayName(state?.dialect ?? null);
  if (dialect) bits.push(dialect);
  if (spent) bits.push(spent);
  item.description = bits.join(' · ');
  if (state?.status === 'error') {
    item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'));
  } else if (node.backend.insecure) {
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('editorWarning.foreground'));
  } else {
    item.iconPath = new vscode.ThemeIcon('server');
  }
  item.contextValue = backendContextValue({
    error: state?.status === 'error',
    insecure: Boolean(node.backend.insecure),
    attached: state?.attached !== undefined,
  });
  const tip = new vscode.MarkdownString();
  tip.appendMarkdown(`**${escape(node.backend.name)}**  \n`).appendText(node.backend.baseUrl);
  if (node.backend.insecure) tip.appendMarkdown('\n\n$(warning) clear-text http:// to another machine');
  if (state?.error) tip.appendMarkdown('\n\n').appendText(state.error);
  if (state?.eventStream) tip.appendMarkdown(`\n\nEvent stream: ${state.eventStream}`);
  if (state?.attached)
    tip
      .appendMarkdown('\n\n')
      .appendText(
        `Attached: shown from daemon ${state.attached.daemonName} (${state.attached.daemonKey}), which samples and acts` +
          (state.attached.scope === 'read' ? '; this token may only read' : ''),
      );
  tip.supportThemeIcons = true;
  item.tooltip = tip;
  return item;
}

/** A session row: badge icon, title, the look's description and menu flags; the tooltip comes when hovered. */
export function sessionItem(
  node: NodeOf<'session'>,
  row: SessionRow | undefined,
  look: { description: string; contextValue: string } | null,
  collapsible: vscode.TreeItemCollapsibleState,
): vscode.TreeItem {
  const item = new vscode.TreeItem(row?.title || node.sessionId, collapsible);
  item.id = node.key;
  if (!row || !look) return item;
  const badge = badgeLook(row.badge);
  item.iconPath = badgeIcon(row.badge, badge);
  item.description = look.description;
  item.contextValue = look.contextValue;
  item.accessibilityInformation = {
    label: `${row.title ?? row.id}, ${badge.label}${item.description ? `, ${item.description}` : ''}`,
  };
  if (row.report) item.command = { command: 'sessionOps.openReport', title: 'Open Report', arguments: [node] };
  return item;
}

/** One icon per badge, shared by every row with it (a refresh of thousands of rows builds no icon). */
const badgeIcons = new Map<string, vscode.ThemeIcon>();

function badgeIcon(badge: SessionRow['badge'], look: { icon: string; color: string }): vscode.ThemeIcon {
  let icon = badgeIcons.get(badge);
  if (!icon) {
    icon = new vscode.ThemeIcon(look.icon, new vscode.ThemeColor(look.color));
    badgeIcons.set(badge, icon);
  }
  return icon;
}

/** A session's tooltip: plain markdown, never trusted, so links or commands in server text stay inert. */
export function sessionTooltip(row: SessionRow, now: number, extras: TooltipExtras = {}): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString(tooltipMarkdown(row, now, extras));
  tooltip.isTrusted = false;
  tooltip.supportHtml = false;
  return tooltip;
}

function escape(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, (c) => `\\${c}`);
}
