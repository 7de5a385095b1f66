// Choose Model... on a prompt document: any model of a connected provider that is not marked and
// not this session's quota wall (an attached daemon's row: the models its /api/providers reports usable).
import type * as vscode from 'vscode';
import type { CommandContext } from '../command-context';
import { pickModel } from '../ui/pickModel';

export async function choosePromptModel(ctx: CommandContext, uri?: vscode.Uri): Promise<void> {
  const doc = uri ?? ctx.prompts.active()?.uri;
  const target = doc && ctx.prompts.target(doc);
  if (!doc || !target) throw new Error('open a prompt document first');
  const row = ctx.fleet.rows().find((r) => r.backendKey === target.backendKey && r.id === target.sessionId);
  if (!row) throw new Error(`session ${target.sessionId} is no longer listed`);
  const model = await pickModel(
    await ctx.actors.for(row).providers(row),
    row.quotaWall?.provider ?? null,
    `Model for "${target.label}"`,
  );
  if (model) ctx.prompts.setModel(doc, model, 'chosen by you');
}
