// Every command of the extension, from one table: its id (titles and menus are in package.json)
// and the function that runs it. Each runs guarded: a problem is logged and shown as a message,
// never thrown into the extension host.
import * as vscode from 'vscode';
import { describeError } from '../../core/error-message';
import { addBackend } from './backend/add';
import { clearPassword } from './backend/clearPassword';
import { retryBackend } from './backend/retry';
import { setPassword } from './backend/setPassword';
import type { CommandContext } from './command-context';
import { setDaemonToken } from './daemon/setToken';
import { setOrchestrator } from './orchestrator/set';
import { answerPermission } from './permission/answer';
import { choosePromptModel } from './prompt/chooseModel';
import { sendPrompt } from './prompt/send';
import { answerQuestion } from './question/answer';
import { dispatchTicket } from './routing/dispatchTicket';
import { showEffectiveRoute } from './routing/showEffectiveRoute';
import { abort } from './session/abort';
import { abortAndWake } from './session/abortAndWake';
import { cancelScheduledRetry } from './session/cancelScheduledRetry';
import { copySessionId } from './session/copyId';
import { dispatch } from './session/dispatch';
import { openReport } from './session/openReport';
import { recover } from './session/recover';
import { refresh } from './session/refresh';
import { wake } from './session/wake';
import { wakeWithPrompt } from './session/wakeWithPrompt';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- command handlers take whatever VS Code passes (tree items, URIs)
type Run = (ctx: CommandContext, ...args: any[]) => unknown;

export const COMMANDS: Readonly<Record<string, Run>> = {
  'sessionOps.refresh': refresh,
  'sessionOps.retryBackend': retryBackend,
  'sessionOps.openReport': openReport,
  'sessionOps.showLog': (ctx) => ctx.log.show(),
  'sessionOps.restartLanguageServer': (ctx) => ctx.languageClient.restart(),
  'sessionOps.addBackend': addBackend,
  'sessionOps.setPassword': setPassword,
  'sessionOps.clearPassword': clearPassword,
  'sessionOps.setDaemonToken': setDaemonToken,
  'sessionOps.abort': abort,
  'sessionOps.wake': wake,
  'sessionOps.abortAndWake': abortAndWake,
  'sessionOps.recover': recover,
  'sessionOps.wakeWithPrompt': wakeWithPrompt,
  'sessionOps.dispatch': dispatch,
  'sessionOps.dispatchTicket': dispatchTicket,
  'sessionOps.showEffectiveRoute': (_ctx, table, key) => showEffectiveRoute(table, key),
  'sessionOps.sendPrompt': sendPrompt,
  'sessionOps.choosePromptModel': choosePromptModel,
  'sessionOps.cancelScheduledRetry': cancelScheduledRetry,
  'sessionOps.setOrchestrator': setOrchestrator,
  'sessionOps.allowOnce': (ctx, target) => answerPermission(ctx, target, 'once'),
  'sessionOps.allowAlways': (ctx, target) => answerPermission(ctx, target, 'always'),
  'sessionOps.rejectPermission': (ctx, target) => answerPermission(ctx, target, 'reject'),
  'sessionOps.answerQuestion': answerQuestion,
  'sessionOps.copySessionId': (_ctx, node) => copySessionId(node),
};

export function registerCommands(context: vscode.ExtensionContext, ctx: CommandContext): void {
  for (const [id, run] of Object.entries(COMMANDS)) {
    const guarded = async (...args: unknown[]) => {
      try {
        return await run(ctx, ...args);
      } catch (err) {
        const message = describeError(err);
        ctx.log.error(`${id}: ${message}`);
        void vscode.window.showErrorMessage(`Session Ops: ${message}`);
        return undefined;
      }
    };
    context.subscriptions.push(vscode.commands.registerCommand(id, guarded));
  }
}
