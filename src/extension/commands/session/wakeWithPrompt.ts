// Session Ops: Wake with Prompt... Compose the wake (or quota-wall, or fact-baseline) prompt, open
// it for review; it is sent from the document (prompt/send.ts).
import * as vscode from 'vscode';
import type { PromptTemplate, FactBaselineFacts } from '../../../core/actions';
import { QUALIFIES } from '../../../core/operations/targets';
import type { CommandContext, Target } from '../command-context';
import { askFacts } from '../ui/askFacts';
import { confirmRetask } from '../ui/confirm';
import { pickRow } from '../ui/rows';

export async function wakeWithPrompt(ctx: CommandContext, target: Target): Promise<void> {
  const row = await pickRow(ctx, target, 'Wake with Prompt...', QUALIFIES.wakeWithPrompt);
  if (!row) return;
  const kindPick = await vscode.window.showQuickPick(
    [
      {
        label: row.quotaWall ? 'Quota-wall wake prompt' : 'Wake prompt',
        compose: ctx.operator.wakeTemplate(row),
        description: 'uncommitted files, anti-re-hang clause, completion-report protocol',
      },
      {
        label: 'Fact baseline...',
        compose: 'fact-baseline' as PromptTemplate,
        description: "the worker's worldview is stale: authoritative facts you enter",
      },
    ],
    { title: `Wake "${row.title ?? row.id}" with` },
  );
  if (!kindPick) return;
  let baseline: FactBaselineFacts | undefined;
  let held = false;
  if (kindPick.compose === 'fact-baseline') {
    const confirmed = await confirmRetask(ctx, row, 'fact-baseline');
    if (confirmed === null) return;
    held = confirmed.held;
    baseline = await askFacts(ctx.monitor.clock.now());
    if (!baseline) return;
  }
  const choice = await ctx.operator.chooseModel(row);
  const composed = await ctx.operator.compose(row, kindPick.compose, choice.model, baseline, held);
  if (!composed.ok) throw new Error(composed.problem);
  await ctx.prompts.open(composed.text, {
    backendKey: row.backendKey,
    directory: row.directory,
    sessionId: row.id,
    label: row.title ?? row.id,
    origin: kindPick.compose,
    model: choice.model,
    modelBasis: choice.basis,
    abortFirst: row.state === 'generating',
  });
}
