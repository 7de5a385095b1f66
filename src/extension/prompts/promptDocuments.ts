// Prompt previews: a composed prompt opens as an untitled Markdown document the user can edit,
// with CodeLenses (and an editor title button) to send it to its session with the chosen model,
// or to choose another model first. A prompt that could not be sent opens here again, so it is
// never lost. The document holds only the prompt text; where it goes is kept beside it.
import * as vscode from 'vscode';
import type { ModelRef } from '../../core/model';
import type { PromptOrigin } from '../../core/operations/action-outcome';

/** Where a prompt document goes when sent. */
export interface PromptTarget {
  backendKey: string;
  directory: string;
  sessionId: string;
  /** Shown in the lens: the session's title or id. */
  label: string;
  origin: PromptOrigin;
  model: ModelRef | null;
  /** Why this model was chosen (or why none could be). */
  modelBasis: string | null;
  agent?: string;
  /** Abort and confirm idle before sending (hung sessions). */
  abortFirst?: boolean;
  /** Dispatch: the task text (the completion-report block is appended by the core). */
  dispatch?: boolean;
  /** Dispatch by route (Dispatch Ticket...): the route's effort, sent as the model's variant of that name where the backend takes one. */
  effort?: string | null;
}

export const PROMPT_CONTEXT_KEY = 'sessionOps.promptDocument';

export class PromptDocuments implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly targets = new Map<string, PromptTarget>();
  private readonly lensEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensEmitter.event;
  private readonly disposables: vscode.Disposable[] = [this.lensEmitter];

  constructor() {
    this.disposables.push(
      vscode.languages.registerCodeLensProvider({ scheme: 'untitled', language: 'markdown' }, this),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      vscode.workspace.onDidCloseTextDocument((doc) => this.targets.delete(doc.uri.toString())),
    );
    this.updateContext();
  }

  /** Opens the prompt text for review; returns the document. */
  async open(text: string, target: PromptTarget): Promise<vscode.TextDocument> {
    const doc = await vscode.workspace.openTextDocument({ language: 'markdown', content: text });
    this.targets.set(doc.uri.toString(), target);
    await vscode.window.showTextDocument(doc, { preview: false });
    this.lensEmitter.fire();
    this.updateContext();
    return doc;
  }

  target(uri: vscode.Uri): PromptTarget | undefined {
    return this.targets.get(uri.toString());
  }

  setModel(uri: vscode.Uri, model: ModelRef, basis: string): void {
    const t = this.targets.get(uri.toString());
    if (!t) return;
    this.targets.set(uri.toString(), { ...t, model, modelBasis: basis });
    this.lensEmitter.fire();
  }

  /** The prompt went out: the document stays open for reference but cannot be sent twice. */
  sent(uri: vscode.Uri): void {
    this.targets.delete(uri.toString());
    this.lensEmitter.fire();
    this.updateContext();
  }

  /** The active editor's prompt document, if it is one. */
  active(): vscode.TextDocument | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    return doc && this.targets.has(doc.uri.toString()) ? doc : undefined;
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const t = this.targets.get(doc.uri.toString());
    if (!t) return [];
    const range = new vscode.Range(0, 0, 0, 0);
    const model = t.model ? `${t.model.providerID}/${t.model.modelID}` : 'no model yet';
    const verb = t.dispatch ? 'Dispatch' : t.abortFirst ? 'Abort and send' : 'Send';
    return [
      new vscode.CodeLens(range, {
        title: `$(send) ${verb} to "${t.label}" on ${model}`,
        command: 'sessionOps.sendPrompt',
        arguments: [doc.uri],
      }),
      new vscode.CodeLens(range, {
        title: '$(symbol-class) Choose Model...',
        command: 'sessionOps.choosePromptModel',
        arguments: [doc.uri],
      }),
    ];
  }

  private updateContext(): void {
    void vscode.commands.executeCommand('setContext', PROMPT_CONTEXT_KEY, this.active() !== undefined);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
