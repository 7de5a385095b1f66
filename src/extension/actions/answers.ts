// Answers for sessions waiting for a person (stock opencode): Allow Once, Allow Always, Reject for
// a pending permission; Answer... (a quick pick of the options, or free text where the question
// allows it) for a pending question. The backend client sends the reply; the row's operation
// says what was answered, and the session is sampled again at once.
import * as vscode from 'vscode';
import type { SessionRow } from '../../core/monitor/row';
import type { SessionMonitor } from '../../core/monitor/sessionMonitor';
import type { OperationBook } from '../../core/operations/book';
import type { SessionsNode, SessionsView } from '../views/sessionsView';

type Target = SessionsNode | SessionRow | undefined;
export type PermissionAnswer = 'once' | 'always' | 'reject';

export class Answers {
  constructor(
    private readonly monitor: SessionMonitor,
    private readonly sessions: SessionsView,
    private readonly operations: OperationBook,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  private async row(
    target: Target,
    kind: 'permission' | 'question',
  ): Promise<SessionRow & { waiting: NonNullable<SessionRow['waiting']> }> {
    let row: SessionRow | undefined;
    if (target && 'kind' in target) row = this.sessions.row(target);
    else if (target) row = this.monitor.rows().find((r) => r.key === target.key) ?? target;
    else {
      const waiting = this.monitor.rows().filter((r) => r.waiting?.kind === kind);
      if (waiting.length === 0) throw new Error(`no session is waiting for a ${kind}`);
      const pick = await vscode.window.showQuickPick(
        waiting.map((r) => ({ label: r.title ?? r.id, description: r.waiting!.title, row: r })),
        { title: kind === 'permission' ? 'Session waiting for a permission' : 'Session waiting for an answer' },
      );
      row = pick?.row;
      if (!row) throw new Error('no session chosen');
    }
    if (!row?.waiting || row.waiting.kind !== kind)
      throw new Error(`"${row?.title ?? row?.id ?? 'this session'}" is not waiting for a ${kind}`);
    return row as SessionRow & { waiting: NonNullable<SessionRow['waiting']> };
  }

  async permission(target: Target, reply: PermissionAnswer): Promise<void> {
    const row = await this.row(target, 'permission');
    const client = await this.monitor.client(row.backendKey);
    const label = reply === 'once' ? 'allowed once' : reply === 'always' ? 'allowed always' : 'rejected';
    this.operations.start(row.key, 'answer', 'answering');
    try {
      await client.replyPermission(row.directory, row.waiting.requestID, reply);
      this.operations.finish(row.key, 'answered', `${row.waiting.title}: ${label}`);
      this.log.info(`permission ${row.waiting.requestID} of ${row.id}: ${label}`);
    } catch (err) {
      this.operations.finish(row.key, 'failed', `answer not sent: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    } finally {
      this.monitor.nudge(row.backendKey, row.directory);
    }
  }

  async question(target: Target): Promise<void> {
    const row = await this.row(target, 'question');
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
    const client = await this.monitor.client(row.backendKey);
    this.operations.start(row.key, 'answer', 'answering');
    try {
      await client.replyQuestion(row.directory, row.waiting.requestID, answers);
      this.operations.finish(row.key, 'answered', `answered: ${answers.map((a) => a.join(', ')).join('; ')}`);
      this.log.info(`question ${row.waiting.requestID} of ${row.id} answered`);
    } catch (err) {
      this.operations.finish(row.key, 'failed', `answer not sent: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    } finally {
      this.monitor.nudge(row.backendKey, row.directory);
    }
  }
}
