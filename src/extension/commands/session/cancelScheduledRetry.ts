// Session Ops: Cancel Scheduled Retry.
import type { CommandContext, Target } from '../command-context';
import { rowOf } from '../ui/rows';

export function cancelScheduledRetry(ctx: CommandContext, target: Target): void {
  const row = rowOf(ctx, target);
  if (row) ctx.operator.cancelScheduled(row.key);
}
