// Session Ops: Abort. A session without a settled hung verdict is aborted only after a modal.
import { abortNeedsConfirmation, QUALIFIES } from '../../../core/operations/targets';
import type { CommandContext, Target } from '../command-context';
import { confirmModal } from '../ui/confirm';
import { runWithProgress } from '../ui/show-outcome';
import { pickRow } from '../ui/rows';

export async function abort(ctx: CommandContext, target: Target): Promise<void> {
  const row = await pickRow(ctx, target, 'Abort', QUALIFIES.abort);
  if (!row) return;
  const confirm = abortNeedsConfirmation(row);
  if (confirm && !(await confirmModal(confirm, 'Abort'))) return;
  await runWithProgress(ctx, `aborting: ${row.title ?? row.id}`, () => ctx.actors.for(row).abort(row));
}
