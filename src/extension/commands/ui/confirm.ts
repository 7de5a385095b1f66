// Confirmations a person gives before an action: a modal with one button, and whom a prompt
// speaks for (a modal only when the worker names another orchestrator; for a fact baseline or a
// dispatch, authority rule 1: the person confirms holding the orchestrating authority).
import * as vscode from 'vscode';
import { retaskReason } from '../../../core/actions/authority';
import type { Authority } from '../../../core/actions';
import type { SessionRow } from '../../../core/monitor/row';
import { speaksFor } from '../../../core/operations/targets';
import type { CommandContext } from '../command-context';

/** A modal shown while the editor tests script the answers (VS Code refuses modal dialogs in extension tests). */
export interface ScriptedModal {
  text: string;
  button: string;
}

/** Answers modals in place of a person; set only by the editor tests' hook (testHooks.ts). */
let modalScript: ((modal: ScriptedModal) => string | undefined) | null = null;

export function scriptModals(answer: ((modal: ScriptedModal) => string | undefined) | null): void {
  modalScript = answer;
}

export async function confirmModal(text: string, button: string): Promise<boolean> {
  if (modalScript) return modalScript({ text, button }) === button;
  return (await vscode.window.showWarningMessage(text, { modal: true }, button)) === button;
}

/** Whom the prompt speaks for, once the person accepted it (null: declined); the act is given it. */
export async function confirmAuthority(
  ctx: CommandContext,
  row: SessionRow,
  authority: Authority = ctx.actors.for(row).authority(row),
): Promise<Authority | null> {
  const speaks = speaksFor(authority.orchestrator);
  ctx.log.info(`prompt to ${row.id} ${speaks}`);
  if (authority.warnings.length === 0) return authority;
  return (await confirmModal(`${authority.warnings.join('\n')}\n\nThis prompt ${speaks}.`, 'Send Anyway'))
    ? authority
    : null;
}

/**
 * Before a fact baseline or a dispatch: null when the person declines; else whom the prompt
 * speaks for (asked once; the act is given it) and `held`: true when they confirmed holding the
 * orchestrating authority against a worker assigned by another orchestrator.
 */
export async function confirmRetask(
  ctx: CommandContext,
  row: SessionRow,
  template: 'fact-baseline' | 'dispatch',
): Promise<{ held: boolean; authority: Authority } | null> {
  // An attached daemon's row: its operator holds the authority and reads the worker's record (nothing read here).
  if (ctx.fleet.backend(row.backendKey)?.attached) {
    const authority = await confirmAuthority(ctx, row);
    return authority ? { held: false, authority } : null;
  }
  const shown = ctx.operator.authority(row);
  // Rule 1 whatever the newest message is: the worker's durable record (dispatch record, first user message) too.
  const recorded = await ctx.operator.recordedAuthority(row, false, shown);
  if (!recorded.mismatch) return (await confirmAuthority(ctx, row, shown)) ? { held: false, authority: shown } : null;
  const text = `${retaskReason(recorded, template) ?? ''}\n\nConfirm only if this session holds the orchestrating authority now.`;
  return (await confirmModal(text, 'I Hold the Authority')) ? { held: true, authority: shown } : null;
}
