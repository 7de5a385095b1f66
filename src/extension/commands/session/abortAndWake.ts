// Session Ops: Abort and Wake. Never on a session waiting for a person; a session without a
// settled hung verdict only after a modal.
import { abortAndWakeNeedsConfirmation, abortRefusal, QUALIFIES } from '../../../core/operations/targets';
import type { CommandContext, Target } from '../command-context';
import { confirmAuthority, confirmModal } from '../ui/confirm';
import { runWithProgress } from '../ui/show-outcome';
import { pickRow } from '../ui/rows';

export async function abortAndWake(ctx: CommandContext, target: Target): Promise<void> {
  const row = await pickRow(ctx, target, 'Abort and Wake', QUALIFIES.abortAndWake);
  if (!row) return;
  const refusal = abortRefusal(row);
  if (refusal) throw new Error(refusal);
  const confirm = abortAndWakeNeedsConfirmation(row);
  if (confirm && !(await confirmModal(confirm, 'Abort and Wake'))) return;
  const authority = await confirmAuthority(ctx, row);
  if (!authority) return;
  await runWithProgress(ctx, `aborting, then waking: ${row.title ?? row.id}`, () =>
    ctx.actors.for(row).wake(row, { abortFirst: true, authority }),
  );
}
