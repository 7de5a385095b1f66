// The session a permission or question answer goes to: the clicked one, or a pick among the
// sessions waiting for that kind of answer.
import * as vscode from 'vscode';
import type { SessionRow } from '../../../core/monitor/row';
import type { CommandContext, Target } from '../command-context';
import { rowOf } from './rows';

export type WaitingRow = SessionRow & { waiting: NonNullable<SessionRow['waiting']> };

export async function waitingRow(
  ctx: CommandContext,
  target: Target,
  kind: 'permission' | 'question',
): Promise<WaitingRow> {
  let row = rowOf(ctx, target);
  if (!target) {
    const waiting = ctx.fleet.rows().filter((r) => r.waiting?.kind === kind);
    if (waiting.length === 0) throw new Error(`no session is waiting for a ${kind}`);
    const pick = await vscode.window.showQuickPick(
      waiting.map((r) => ({ label: r.title ?? r.id, description: r.waiting!.title, row: r })),
      { title: kind === 'permission' ? 'Session waiting for a permission' : 'Session waiting for an answer' },
    );
    row = pick?.row;
    if (!row) throw new Error('no session chosen');
  }
  if (!row?.waiting || row.waiting.kind !== kind)
    throw new Error(`"${row?.title ?? row?.id ?? 'this session'}" is not waiting for a ${kind}`);
  return row as WaitingRow;
}
