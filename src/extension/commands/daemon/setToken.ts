// Session Ops: Set Daemon Token... The Bearer token of an attached daemon (sessionOps.daemons),
// kept in the editor's secret storage by the daemon's url: never in settings, never logged.
import * as vscode from 'vscode';
import type { DaemonConfig } from '../../../core/config/daemons';
import type { SessionsNode } from '../../views/sessionsView';
import type { CommandContext } from '../command-context';

/** A token as `session-ops token add` prints it: `sot_` and 43 base64url characters. */
const TOKEN = /^sot_[A-Za-z0-9_-]{43}$/;

export function tokenProblem(value: string): string | null {
  return TOKEN.test(value.trim())
    ? null
    : 'a daemon token is "sot_" and 43 base64url characters (session-ops token add)';
}

async function pickDaemon(ctx: CommandContext, node?: SessionsNode): Promise<DaemonConfig | undefined> {
  const daemons = ctx.configuration.daemons();
  if (node && 'backend' in node) {
    const key = ctx.fleet.backend(node.backend.key)?.attached?.daemonKey;
    const hit = daemons.find((d) => d.key === key);
    if (hit) return hit;
  }
  if (daemons.length === 0) throw new Error('no daemon is configured: add one to the sessionOps.daemons setting first');
  if (daemons.length === 1) return daemons[0];
  const pick = await vscode.window.showQuickPick(
    daemons.map((d) => ({ label: d.name, description: d.url, daemon: d })),
    { title: 'Daemon' },
  );
  return pick?.daemon;
}

export async function setDaemonToken(ctx: CommandContext, node?: SessionsNode): Promise<void> {
  const daemon = await pickDaemon(ctx, node);
  if (!daemon) return;
  const token = await vscode.window.showInputBox({
    title: `Token for daemon ${daemon.name}`,
    prompt:
      "From `session-ops token add NAME --scope act|read`; kept in the editor's secret storage, never in settings",
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v === '' ? null : tokenProblem(v)),
  });
  if (!token) return;
  await ctx.daemonTokens.set(daemon.url, token.trim());
  ctx.log.info(`token for daemon ${daemon.url} updated`);
}
