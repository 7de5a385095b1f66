// Session Ops: Wake with Prompt... Compose the wake (or quota-wall, or fact-baseline) prompt, open
// it for review; it is sent from the document (prompt/send.ts). On an attached daemon's row nothing
// is composed here (that reads the backend): the person writes the prompt, and the daemon sends it
// on the model picked from its /api/providers, or, none picked, on the one its rules choose.
import * as vscode from 'vscode';
import type { PromptTemplate, FactBaselineFacts } from '../../../core/actions';
import { QUALIFIES } from '../../../core/operations/targets';
import type { CommandContext, Target } from '../command-context';
import { askFacts } from '../ui/askFacts';
import { confirmRetask } from '../ui/confirm';
import type { SessionRow } from '../../../core/monitor/row';
import { attachedOf, pickRow, refuseReadOnly } from '../ui/rows';

export async function wakeWithPrompt(ctx: CommandContext, target: Target): Promise<void> {
  const row = await pickRow(ctx, target, 'Wake with Prompt...', QUALIFIES.wakeWithPrompt);
  if (!row) return;
  refuseReadOnly(ctx, row, 'Wake with Prompt...');
  const daemon = attachedOf(ctx, row);
  if (daemon) return wakeAttached(ctx, row, daemon.daemonName);
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

/** An attached daemon's row: a prompt document to write, sent by the daemon (prompt/send.ts through the row's actor). */
async function wakeAttached(ctx: CommandContext, row: SessionRow, daemonName: string): Promise<void> {
  await ctx.prompts.open(
    `<!-- Write the prompt for "${(row.title ?? row.id).replace(/-->/g, '')}" here. Daemon ${daemonName.replace(/-->/g, '')} sends it (its send guard and authority); Choose Model... names the model, else the daemon's rules choose one. -->\n`,
    {
      backendKey: row.backendKey,
      directory: row.directory,
      sessionId: row.id,
      label: row.title ?? row.id,
      origin: 'custom',
      model: null,
      modelBasis: `daemon ${daemonName} chooses (or Choose Model...)`,
      abortFirst: row.state === 'generating',
    },
  );
}
