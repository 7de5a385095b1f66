// Registers the session action commands (titles in package.json are part of the interface).
import * as vscode from 'vscode';
import type { SessionRow } from '../../core/monitor/row';
import type { SessionsNode } from '../views/sessionsView';
import type { Answers } from './answers';
import type { SessionActions } from './sessionActions';

type Target = SessionsNode | SessionRow | undefined;

export function registerActionCommands(
  register: (id: string, fn: (...args: never[]) => unknown) => void,
  actions: SessionActions,
  answers: Answers,
): void {
  register('sessionOps.abort', (t: Target) => actions.abort(t));
  register('sessionOps.wake', (t: Target) => actions.wake(t));
  register('sessionOps.abortAndWake', (t: Target) => actions.wake(t, { abortFirst: true }));
  register('sessionOps.recover', (t: Target) => actions.recover(t));
  register('sessionOps.wakeWithPrompt', (t: Target) => actions.wakeWithPrompt(t));
  register('sessionOps.dispatch', (t: Target) => actions.dispatch(t));
  register('sessionOps.sendPrompt', (uri?: vscode.Uri) => actions.sendPrompt(uri));
  register('sessionOps.choosePromptModel', (uri?: vscode.Uri) => actions.choosePromptModel(uri));
  register('sessionOps.cancelScheduledRetry', (t: Target) => actions.cancelScheduled(t));
  register('sessionOps.setOrchestrator', () => actions.setOrchestrator());
  register('sessionOps.allowOnce', (t: Target) => answers.permission(t, 'once'));
  register('sessionOps.allowAlways', (t: Target) => answers.permission(t, 'always'));
  register('sessionOps.rejectPermission', (t: Target) => answers.permission(t, 'reject'));
  register('sessionOps.answerQuestion', (t: Target) => answers.question(t));
}
