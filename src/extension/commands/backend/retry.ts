// Retry on a backend's error row: a new client for that backend; elsewhere, sample everything now.
import type { SessionsNode } from '../../views/sessionsView';
import type { CommandContext } from '../command-context';

export async function retryBackend(ctx: CommandContext, node?: SessionsNode): Promise<void> {
  if (node && 'backend' in node) ctx.monitor.resetClient(node.backend.key);
  else await ctx.monitor.refresh(true);
}
