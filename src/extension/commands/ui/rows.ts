// The session a command acts on: the clicked node, a given row (as the monitor reads it now), or
// a pick among the sessions that qualify.
import * as vscode from 'vscode';
import type { SessionRow } from '../../../core/monitor/row';
import type { AttachedInfo } from '../../../core/monitor/types';
import type { CommandContext, Target } from '../command-context';

export function rowOf(ctx: CommandContext, target: Target): SessionRow | undefined {
  if (!target) return undefined;
  if ('kind' in target) return ctx.sessions.row(target);
  return ctx.fleet.row(target.key) ?? target;
}

export async function pickRow(
  ctx: CommandContext,
  target: Target,
  title: string,
  qualifies: (r: SessionRow) => boolean,
): Promise<SessionRow | undefined> {
  if (target) {
    const row = rowOf(ctx, target);
    if (!row) throw new Error('select a session first');
    return row;
  }
  const rows = ctx.fleet.rows().filter(qualifies);
  if (rows.length === 0) throw new Error(`no session qualifies for "${title}" right now`);
  const pick = await vscode.window.showQuickPick(
    rows.map((r) => ({ label: r.title ?? r.id, description: `${r.badge} · ${r.id}`, detail: r.directory, row: r })),
    { title, matchOnDescription: true },
  );
  return pick?.row;
}

/** The row a prompt document goes to, as the monitor lists it now. */
export function promptRow(ctx: CommandContext, target: { backendKey: string; directory: string; sessionId: string }) {
  const row = ctx.fleet
    .rows()
    .find((r) => r.backendKey === target.backendKey && r.directory === target.directory && r.id === target.sessionId);
  if (!row) throw new Error(`session ${target.sessionId} is no longer listed`);
  return row;
}

/** The attached daemon a row is shown from (its fleet, its acts), or undefined for a row this window samples. */
export function attachedOf(ctx: CommandContext, row: SessionRow): AttachedInfo | undefined {
  return ctx.fleet.backend(row.backendKey)?.attached;
}

/** Refuses, before anything is read or sent, a prompt act on a row of a daemon attached with a token that may only read. */
export function refuseReadOnly(ctx: CommandContext, row: SessionRow, title: string): void {
  const a = attachedOf(ctx, row);
  if (a && a.scope !== 'act')
    throw new Error(
      `${title}: ${a.scope === 'read' ? `the token for daemon ${a.daemonName} may only read` : `daemon ${a.daemonName} is not connected`}: nothing is sent`,
    );
}
