// Answer...: a quick pick of a pending question's options (or free text where it allows it), one
// question after the other; the answers go to the session in one reply.
import * as vscode from 'vscode';
import type { CommandContext, Target } from '../command-context';
import { showOutcome } from '../ui/show-outcome';
import { waitingRow } from '../ui/waiting';

export async function answerQuestion(ctx: CommandContext, target: Target): Promise<void> {
  const row = await waitingRow(ctx, target, 'question');
  const detail = row.waiting.detail;
  if (detail.kind !== 'question') throw new Error('not a question');
  const answers: string[][] = [];
  for (const q of detail.questions) {
    const custom = '$(edit) Type an answer...';
    const items: vscode.QuickPickItem[] = q.options.map((o) => ({
      label: o.label,
      detail: o.description ?? undefined,
    }));
    if (q.custom || items.length === 0) items.push({ label: custom, alwaysShow: true });
    const picked = q.multiple
      ? await vscode.window.showQuickPick(items, {
          title: q.header ?? 'Answer',
          placeHolder: q.question,
          canPickMany: true,
          ignoreFocusOut: true,
        })
      : await vscode.window
          .showQuickPick(items, { title: q.header ?? 'Answer', placeHolder: q.question, ignoreFocusOut: true })
          .then((p) => (p ? [p] : undefined));
    if (!picked || picked.length === 0) return;
    const labels: string[] = [];
    for (const p of picked) {
      if (p.label !== custom) {
        labels.push(p.label);
        continue;
      }
      const text = await vscode.window.showInputBox({
        title: q.header ?? 'Answer',
        prompt: q.question,
        ignoreFocusOut: true,
      });
      if (!text) return;
      labels.push(text);
    }
    answers.push(labels);
  }
  await showOutcome(ctx, await ctx.actors.for(row).answer(row, { question: answers }));
}
