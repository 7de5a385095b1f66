// Session Ops: Recover on Another Provider (the spec's recovery procedure after a quota wall).
import { QUALIFIES } from '../../../core/operations/targets';
import type { CommandContext, Target } from '../command-context';
import { confirmAuthority } from '../ui/confirm';
import { runWithProgress } from '../ui/show-outcome';
import { pickRow } from '../ui/rows';

export async function recover(ctx: CommandContext, target: Target): Promise<void> {
  const row = await pickRow(ctx, target, 'Recover on Another Provider', QUALIFIES.recover);
  if (!row) return;
  // Whom the prompt speaks for, as the person saw it: the act uses it and does not ask again.
  const authority = await confirmAuthority(ctx, row);
  if (!authority) return;
  await runWithProgress(ctx, `recovering: ${row.title ?? row.id}`, () =>
    ctx.actors.for(row).recover(row, { authority }),
  );
}
