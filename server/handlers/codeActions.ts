// textDocument/codeAction: the session's quick fixes.
import { CodeActionKind, type CodeAction } from 'vscode-languageserver/node';
import type { ServerContext } from '../server-context';
import { toLspDiagnostic } from '../convert';
import { readyDocument } from './ready';

export function registerCodeActionHandler(ctx: ServerContext): void {
  ctx.connection.onCodeAction(async (params, token) => {
    const s = await readyDocument(ctx, params.textDocument.uri, token);
    if (!s || !s.session.quickFixes) return [];
    const only = params.context.only;
    if (only && !only.some((k) => k === CodeActionKind.QuickFix || k === CodeActionKind.Empty)) return [];
    return s.session.quickFixes(s.text, params.range).map((f): CodeAction => ({
      title: f.title,
      kind: CodeActionKind.QuickFix,
      diagnostics: [toLspDiagnostic(f.diagnostic)],
      ...(f.isPreferred ? { isPreferred: true } : {}),
      edit: { changes: { [params.textDocument.uri]: f.edits } },
    }));
  });
}
