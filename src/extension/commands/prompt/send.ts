// The Send button of a prompt document: a reviewed wake prompt goes out through the same guard as
// a click; a dispatch runs the pre-dispatch check and, refused, offers the provider to use instead.
import * as vscode from 'vscode';
import type { Authority } from '../../../core/actions';
import { isFactBaselineDocument } from '../../../core/prompt/wake-rules';
import type { CommandContext } from '../command-context';
import { confirmAuthority, confirmRetask } from '../ui/confirm';
import { runWithProgress, showOutcome } from '../ui/show-outcome';
import { promptRow } from '../ui/rows';

export async function sendPrompt(ctx: CommandContext, uri?: vscode.Uri): Promise<void> {
  const doc = uri
    ? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString())
    : ctx.prompts.active();
  if (!doc) throw new Error('open a prompt document first (Wake with Prompt... or Dispatch Task...)');
  const target = ctx.prompts.target(doc.uri);
  if (!target)
    throw new Error(
      'this document is not a prompt waiting to be sent (it was sent already, or not opened by Session Ops)',
    );
  const row = promptRow(ctx, target);
  const text = doc.getText().replace(/^<!--[\s\S]*?-->\n?/, '');
  if (text.trim() === '') throw new Error('the prompt is empty');
  const label = row.title ?? row.id;
  if (target.dispatch) {
    const confirmed = await confirmRetask(ctx, row, 'dispatch');
    if (confirmed === null) return;
    const { held, authority } = confirmed;
    const model = target.model;
    if (!model) throw new Error('choose a model first');
    // Through the row's actor: this window's operator, or the attached daemon's POST dispatch.
    const o = await vscode.window.withProgress(
      { location: { viewId: 'sessionOps.sessions' }, title: `dispatching: ${label}` },
      () =>
        ctx.actors.for(row).dispatch(row, {
          task: text,
          model,
          holdsAuthority: held,
          authority,
          variant: target.effort ?? null,
        }),
    );
    if (o.outcome === 'confirmed') return ctx.prompts.sent(doc.uri);
    if (o.outcome === 'busy' || !o.instead) return showOutcome(ctx, o);
    const instead = o.instead;
    const button = `Dispatch on ${instead.providerID} instead`;
    // Not awaited: the task stays in its document; the button switches its model and sends it.
    void vscode.window.showWarningMessage(`Session Ops: ${o.notice?.text}`, button).then((choice) => {
      if (choice !== button) return;
      ctx.prompts.setModel(doc.uri, instead, `instead of ${model.providerID} (pre-dispatch check)`);
      return sendPrompt(ctx, doc.uri);
    });
    return;
  }
  // A fact baseline (composed, or any document holding one) re-tasks the worker: authority rule 1.
  let held = false;
  let authority: Authority | undefined;
  if (target.origin === 'fact-baseline' || isFactBaselineDocument(text)) {
    const confirmed = await confirmRetask(ctx, row, 'fact-baseline');
    if (confirmed === null) return;
    held = confirmed.held;
    authority = confirmed.authority;
  } else {
    // Whom the prompt speaks for, as the person saw it: the act uses it and does not ask again.
    const shown = await confirmAuthority(ctx, row);
    if (!shown) return;
    authority = shown;
  }
  const o = await runWithProgress(ctx, `sending: ${label}`, () =>
    ctx.actors.for(row).send(row, {
      text,
      model: target.model,
      abortFirst: target.abortFirst ?? false,
      promptOrigin: target.origin,
      holdsAuthority: held,
      authority,
    }),
  );
  if (o.outcome === 'confirmed' || o.outcome === 'not-confirmed') ctx.prompts.sent(doc.uri);
}
