// Session Ops: Open Report. The session's completion report as a Markdown table with the message
// it came in; opening it harvests the report (it no longer needs attention).
import * as vscode from 'vscode';
import type { CommandContext, Target } from '../command-context';
import { rowOf } from '../ui/rows';

export async function openReport(deps: CommandContext, target: Target): Promise<void> {
  const row = rowOf(deps, target);
  const kept = row && deps.operator.reports.reportOf(row);
  if (!row || !kept) throw new Error('this session has no completion report');
  const r = kept.report;
  const cell = (v: string | null) => (v ?? '').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const lines = [
    `# Completion report: ${cell(r.ticket)}`,
    '',
    '| Field | Value |',
    '|---|---|',
    `| session | \`${row.id}\` |`,
    `| directory | ${cell(row.directory)} |`,
    `| ticket | ${cell(r.ticket)} |`,
    `| label | ${cell(r.label)} |`,
    `| status | ${r.status} |`,
    `| pr | ${r.pr && /^https?:\/\/[^\s<>()]+$/.test(r.pr) ? `<${r.pr}>` : cell(r.pr)} |`,
    `| reason | ${cell(r.reason)} |`,
    `| summary | ${cell(r.summary)} |`,
    '',
    row.report ? '## Newest message' : '## The message the report came in (a newer message has arrived since)',
    '',
    '~~~~text',
    (kept.text ?? '').replace(/~~~~/g, '~ ~ ~ ~'),
    '~~~~',
    '',
  ];
  const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: lines.join('\n') });
  await vscode.window.showTextDocument(doc, { preview: true });
  deps.sessions.markReportSeen(row);
}
