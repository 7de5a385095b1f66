// Allow Once, Allow Always, Reject: the answer to a session waiting for a permission.
import type { PermissionReply } from '../../../core/operations/operator';
import type { CommandContext, Target } from '../command-context';
import { showOutcome } from '../ui/show-outcome';
import { waitingRow } from '../ui/waiting';

export async function answerPermission(ctx: CommandContext, target: Target, reply: PermissionReply): Promise<void> {
  const row = await waitingRow(ctx, target, 'permission');
  await showOutcome(ctx, await ctx.actors.for(row).answer(row, { permission: reply }));
}
