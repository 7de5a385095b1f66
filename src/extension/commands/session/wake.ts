// Session Ops: Wake. One click: the prompt the state calls for, on the model the core chooses, then confirm.
import { QUALIFIES } from '../../../core/operations/targets';
import type { CommandContext, Target } from '../command-context';
import { confirmAuthority } from '../ui/confirm';
import { runWithProgress } from '../ui/show-outcome';
import { pickRow } from '../ui/rows';

export async function wake(ctx: CommandContext, target: Target): Promise<void> {
  const row = await pickRow(ctx, target, 'Wake', QUALIFIES.wake);
  if (!row) return;
  // Whom the prompt speaks for, as the person saw it: the act uses it and does not ask again.
  const authority = await confirmAuthority(ctx, row);
  if (!authority) return;
  await runWithProgress(ctx, `waking: ${row.title ?? row.id}`, () => ctx.actors.for(row).wake(row, { authority }));
}
