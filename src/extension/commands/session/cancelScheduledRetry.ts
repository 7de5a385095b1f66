// Session Ops: Cancel Scheduled Retry.
import type { CommandContext, Target } from '../command-context';
import { rowOf } from '../ui/rows';

export async function cancelScheduledRetry(ctx: CommandContext, target: Target): Promise<void> {
  const row = rowOf(ctx, target);
  if (row) await ctx.actors.for(row).cancelRetry(row);
}
