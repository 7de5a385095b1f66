// Session Ops: Wake. One click: the prompt the state calls for, on the model the core chooses, then confirm.
import { QUALIFIES } from '../../../core/operations/targets';
import type { CommandContext, Target } from '../context';
import { confirmAuthority } from '../ui/confirm';
import { runWithProgress } from '../ui/outcome';
import { pickRow } from '../ui/rows';

export async function wake(ctx: CommandContext, target: Target): Promise<void> {
  const row = await pickRow(ctx, target, 'Wake', QUALIFIES.wake);
  if (!row || !(await confirmAuthority(ctx, row))) return;
  await runWithProgress(ctx, `waking: ${row.title ?? row.id}`, () => ctx.operator.wake(row));
}
