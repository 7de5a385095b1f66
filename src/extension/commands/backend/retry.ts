// Retry on a backend's error row: a new client for that backend (for an attached daemon's row, a
// new connection to the daemon); elsewhere, sample everything now.
import type { SessionsNode } from '../../views/sessionsView';
import type { CommandContext } from '../command-context';

export async function retryBackend(ctx: CommandContext, node?: SessionsNode): Promise<void> {
  const attached = node && 'backend' in node ? ctx.fleet.backend(node.backend.key)?.attached : undefined;
  if (attached) ctx.fleet.restart(attached.daemonKey);
  else if (node && 'backend' in node) ctx.monitor.resetClient(node.backend.key);
  else await ctx.monitor.refresh(true);
}
