// Source-analysis pages in the real editor, against the workspace's two ports
// (test/editor/workspace/ports): billing (six valid pages) and ledger (an invalid behavior type on
// 10-fidelity-baseline, no 05-error-handling page). The broken page's diagnostics at their rows
// (API and Problems view), hover and go-to-definition across pages, document symbols, and the
// Port analysis view: ports > pages with problem counts > chunks > FIDs, in the tree API and as
// rendered, a FID opening the baseline at its row. Screenshot: test-results/port-analysis-view.png.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { SessionOpsApi } from '../../../src/extension/extension';
import type { PortNode } from '../../../src/extension/views/portAnalysisItems';
import { click, hasBrowser, query, rows, screenshot, waitFor } from './harness';

const SOURCE = 'session-ops.pages';

describe('source-analysis pages and the Port analysis view', function () {
  this.timeout(180_000);
  let api: SessionOpsApi;
  const page = (port: string, name: string) =>
    vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'ports', port, 'source-analysis', `${name}.md`);
  const ours = (uri: vscode.Uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === SOURCE);
  const open = async (uri: vscode.Uri) =>
    vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: false });
  const lineOf = (doc: vscode.TextDocument, needle: string) =>
    doc
      .getText()
      .split('\n')
      .findIndex((l) => l.includes(needle));
  const at = (doc: vscode.TextDocument, needle: string, offset = 1) => {
    const line = lineOf(doc, needle);
    return new vscode.Position(line, doc.lineAt(line).text.indexOf(needle) + offset);
  };
  const hoverText = (hovers: vscode.Hover[]) =>
    hovers
      .flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : '')))
      .join('\n---\n');

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!;
    api = await ext.activate();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closePanel');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it("shows the broken page's diagnostics at their rows, in the API and in the Problems view", async () => {
    const uri = page('ledger', '10-fidelity-baseline');
    const editor = await open(uri);
    const doc = editor.document;
    const diags = await waitFor('the page diagnostics', () => (ours(uri).length >= 2 ? ours(uri) : undefined), 60_000);
    const invalid = diags.find((d) => d.code === 'page.invalid-type');
    assert.ok(invalid, diags.map((d) => d.code).join(', '));
    assert.equal(invalid.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(invalid.range.start.line, lineOf(doc, 'FID-002'));
    assert.equal(doc.getText(invalid.range), 'sad path');
    const missing = diags.find((d) => d.code === 'page.missing-page');
    assert.ok(missing);
    assert.equal(missing.severity, vscode.DiagnosticSeverity.Warning);
    assert.equal(missing.range.start.line, 0, 'folder-level diagnostics sit on the first line of 10-fidelity-baseline');
    assert.match(missing.message, /no 05-error-handling page/);
    assert.equal(diags.length, 2);
    if (hasBrowser()) {
      await vscode.commands.executeCommand('workbench.actions.view.problems');
      const line = invalid.range.start.line + 1;
      const col = invalid.range.start.character + 1;
      const marker = await waitFor('the marker row in the Problems view', async () => {
        const r = await rows(/"sad path" is not a behavior type/);
        return r.length > 0 ? r : undefined;
      });
      assert.match(
        marker[0].ariaLabel ?? '',
        new RegExp(`^Error: "sad path" is not a behavior type.* at line ${line} and character ${col}\\b`),
      );
      assert.equal((await rows(/no 05-error-handling page/)).length, 1);
      await screenshot('pages-problems');
      await vscode.commands.executeCommand('workbench.action.closePanel');
    }
  });

  it('hovers a FID with its inventory row and an error code with its row of 05, from another page', async () => {
    const logic = (await open(page('billing', '04-business-logic'))).document;
    const fidHover = await waitFor('the FID hover', async () => {
      const h = await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        logic.uri,
        at(logic, 'FID-004', 2),
      );
      const text = hoverText(h ?? []);
      return /FID-004/.test(text) ? text : undefined;
    });
    assert.match(fidHover, /\*\*FID-004\*\* · edge case · chunk `payments`/);
    assert.match(fidHover, /A repeated idempotency key records one payment/);
    assert.match(fidHover, /test_payments\.py::test_idempotent/);
    assert.match(fidHover, /10-fidelity-baseline\.md, line 10/);
    const codeHover = hoverText(
      await vscode.commands.executeCommand<vscode.Hover[]>(
        'vscode.executeHoverProvider',
        logic.uri,
        at(logic, 'REF_422', 3),
      ),
    );
    assert.match(codeHover, /\*\*REF_422\*\* · HTTP 422/);
    assert.match(codeHover, /Refund exceeds the payment/);
    // Go to definition: the code's row on 05.
    const defs = await vscode.commands.executeCommand<(vscode.Location | vscode.LocationLink)[]>(
      'vscode.executeDefinitionProvider',
      logic.uri,
      at(logic, 'PAY_402', 2),
    );
    const def = defs
      .map((d) => ('targetUri' in d ? { uri: d.targetUri, range: d.targetRange } : d))
      .find((d) => d.uri.path.endsWith('/05-error-handling.md'));
    assert.ok(def, `definitions: ${defs.length}`);
    const errors = await vscode.workspace.openTextDocument(def.uri);
    assert.equal(errors.getText(def.range), 'PAY_402');
    assert.equal(def.range.start.line, lineOf(errors, '| PAY_402 |'));
  });

  it('outlines a page: FIDs and chunks among the document symbols', async () => {
    const uri = page('billing', '10-fidelity-baseline');
    await open(uri);
    const symbols = await waitFor('our document symbols', async () => {
      const s = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>(
        'vscode.executeDocumentSymbolProvider',
        uri,
      );
      const all = flatten(s ?? []);
      return all.some((x) => x.name === 'FID-001') ? all : undefined;
    });
    const fids = symbols.filter((s) => s.kind === vscode.SymbolKind.EnumMember);
    assert.deepEqual(
      fids.map((s) => s.name),
      ['FID-001', 'FID-002', 'FID-003', 'FID-004', 'FID-005'],
    );
    assert.match(fids[2].detail, /happy path · payments · Paying the amount due/);
    assert.deepEqual(
      symbols.filter((s) => s.kind === vscode.SymbolKind.Package).map((s) => s.name),
      ['invoices', 'payments', 'refunds'],
    );
  });

  it('the Port analysis view shows ports > pages with problem counts > chunks > FIDs, from the language server', async () => {
    const view = api.portAnalysis;
    await vscode.commands.executeCommand('workbench.view.extension.sessionOps');
    await vscode.commands.executeCommand('sessionOps.portAnalysis.focus');
    await waitFor('the Port analysis view visible', () => view.treeView.visible);
    await waitFor('the port analysis data', () => view.data !== undefined, 60_000);
    // The tree API.
    const ports = await view.getChildren();
    const label = (n: PortNode) => {
      const item = view.getTreeItem(n);
      return `${typeof item.label === 'string' ? item.label : item.label?.label} | ${item.description}`;
    };
    assert.deepEqual(ports.map(label), [
      'billing | 6 pages · no problems',
      'ledger | 5 of 6 pages, 1 missing · 1 error',
    ]);
    const [billing, ledger] = ports;
    const ledgerPages = await view.getChildren(ledger);
    assert.deepEqual(ledgerPages.map(label), [
      '01-source-overview | no problems',
      '02-public-api | no problems',
      '03-data-model | no problems',
      '04-business-logic | no problems',
      '05-error-handling | missing',
      '10-fidelity-baseline | 1 error',
    ]);
    const missing = view.getTreeItem(ledgerPages[4]);
    assert.equal((missing.iconPath as vscode.ThemeIcon).id, 'warning');
    assert.equal(missing.command, undefined);
    const opens = view.getTreeItem(ledgerPages[5]).command;
    assert.equal(opens?.command, 'vscode.open');
    assert.equal((opens?.arguments?.[0] as vscode.Uri).path, page('ledger', '10-fidelity-baseline').path);
    const billingPages = await view.getChildren(billing);
    const chunks = await view.getChildren(billingPages[5]);
    assert.deepEqual(chunks.map(label), ['invoices | 2 FIDs', 'payments | 2 FIDs', 'refunds | 1 FID']);
    const fids = await view.getChildren(chunks[1]);
    assert.deepEqual(fids.map(label), [
      'FID-003 | Paying the amount due marks the invoice paid · happy path',
      'FID-004 | A repeated idempotency key records one payment · edge case',
    ]);
    const fidCommand = view.getTreeItem(fids[0]).command!;
    assert.equal(fidCommand.command, 'vscode.open');
    assert.equal(
      (fidCommand.arguments?.[1] as vscode.TextDocumentShowOptions).selection?.start.line,
      8,
      'FID-003 is on line 9 of the baseline',
    );
    assert.deepEqual((await view.getChildren(ledgerPages[5])).map(label), ['entries | 3 FIDs', 'accounts | 1 FID']);
    // A refresh of the root between a node's fetch and a reveal of it (as a save or the server's
    // notification causes) leaves every parent known: reveal walks up through getParent.
    await view.getChildren();
    assert.equal(view.getParent(fids[0])?.key, chunks[1].key);
    assert.equal(view.getParent(chunks[1])?.key, billingPages[5].key);
    assert.equal(view.getParent(billingPages[5])?.key, billing.key);
    assert.equal(view.getParent(billing), undefined);

    if (!hasBrowser()) return;
    // Room for the tree: fold the Sessions and Providers panes while it is looked at.
    const folded: string[] = [];
    try {
      for (const title of ['Sessions', 'Providers']) {
        const header = `.pane-header[aria-label="${title} Section"]`;
        const h = await query(header);
        if (h.length === 1 && /\bexpanded\b/.test(h[0].className)) {
          await click(header);
          folded.push(header);
        }
      }
      await view.treeView.reveal(fids[0], { select: false, focus: false, expand: true });
      await waitFor(
        'the rendered port rows',
        async () =>
          (await rows(/^port billing, 6 pages · no problems$/)).length === 1 &&
          (await rows(/^port ledger, 5 of 6 pages, 1 missing · 1 error$/)).length === 1,
      );
      await waitFor(
        'the rendered page rows',
        async () =>
          (await rows(/^10-fidelity-baseline, (no problems|1 error)$/)).length === 2 &&
          (await rows(/^02-public-api, no problems$/)).length === 2,
      );
      await waitFor('the missing page row', async () => (await rows(/^05-error-handling, missing$/)).length === 1);
      await waitFor(
        'the chunk rows',
        async () => (await rows(/^chunk (invoices|payments|refunds), \d FIDs?$/)).length === 3,
      );
      await waitFor(
        'the FID rows of payments',
        async () => (await rows(/^FID-00[34], .* · (happy path|edge case)$/)).length === 2,
      );
      await screenshot('port-analysis-view');
      // Clicking a FID opens the baseline at its row.
      await click('.monaco-list-row[aria-label^="FID-003, Paying"]');
      const editor = await waitFor('the baseline opened at FID-003', () => {
        const e = vscode.window.activeTextEditor;
        return e && e.document.uri.path === page('billing', '10-fidelity-baseline').path && e.selection.start.line === 8
          ? e
          : undefined;
      });
      assert.match(editor.document.lineAt(editor.selection.start.line).text, /^\| FID-003 \|/);
    } finally {
      for (const header of folded) await click(header);
    }
  });

  it('refreshes when a page is saved: fixing the broken page clears its count', async () => {
    const view = api.portAnalysis;
    const uri = page('ledger', '10-fidelity-baseline');
    const editor = await open(uri);
    const line = lineOf(editor.document, 'sad path');
    const col = editor.document.lineAt(line).text.indexOf('sad path');
    const before = await vscode.workspace.fs.readFile(uri);
    try {
      await editor.edit((e) => e.replace(new vscode.Range(line, col, line, col + 'sad path'.length), 'error path'));
      await editor.document.save();
      await waitFor(
        'the ledger baseline without errors in the view',
        () => {
          const ledger = view.data?.folders.find((f) => f.portName === 'ledger');
          return ledger?.pages[5].errors === 0 ? true : undefined;
        },
        30_000,
      );
      const ports = await view.getChildren();
      assert.match(view.getTreeItem(ports[1]).description as string, /^5 of 6 pages, 1 missing · no problems$/);
      await waitFor('no error left on the page', () =>
        ours(uri).every((d) => d.severity !== vscode.DiagnosticSeverity.Error),
      );
    } finally {
      await vscode.workspace.fs.writeFile(uri, before);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    // Restore the pane's initial state (collapsed) for the tests that follow.
    if (hasBrowser()) {
      const header = '.pane-header[aria-label="Port Analysis Section"]';
      const h = await query(header);
      if (h.length === 1 && /\bexpanded\b/.test(h[0].className)) await click(header);
    }
  });
});

function flatten(list: vscode.DocumentSymbol[]): vscode.DocumentSymbol[] {
  return list.flatMap((s) => [s, ...flatten(s.children ?? [])]);
}
