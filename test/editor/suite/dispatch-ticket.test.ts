// Dispatch by route in the real editor (issue 31 item 4): a routing table named by
// sessionOps.routingFile; the language server's CodeLenses on its route keys (Effective route
// opens the resolved route, cap applied, as a read-only document); Dispatch Ticket... from the
// palette: session, ticket id, Kind label and model picked in the rendered quick input, the
// composed task opened as a prompt document with the effective route summarised on top; Send ->
// the task (without the summary) and the completion-report block naming the ticket reach the
// backend, confirmed on the row. The lens "Dispatch a ticket on this route..." prefills the label.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { SessionOpsApi } from '../../../src/extension/extension';
import { startSpecServer, type SpecServer } from '../../support/spec-server';
import { fill, hasBrowser, query, screenshot, settleWithin, type, waitFor } from './harness';

const DIR = '/work/dispatch-ticket';
const MIN_SPACING_MS = 3_000;
const TABLE = [
  'version: 1',
  'default:',
  '  entry: {skill: null, mode: null}',
  'preflight:',
  '  max_items: 1',
  'routes:',
  '  Kind/Bug:',
  '    entry: {skill: implement, mode: bugfix}',
  '    skip: [review-dag]',
  '    keep_gates: [review-code, verify]',
  '    preflight:',
  '      - {id: reproduce-first, item: Reproduce it with a failing test., evidence: retro C12, added_cycle: C12}',
  '      - {id: old-check, item: An old check., evidence: retro C3, added_cycle: C3}',
  '    notes: Keep the diff small.',
  '    effort: high',
  '  Kind/Chore:',
  '    entry: {skill: implement, mode: refactor}',
  '',
].join('\n');
const BUG_LINE = 6;
const configureMonitor = (settings: { minSpacingMs?: number | null }) =>
  vscode.commands.executeCommand('sessionOps.test.configureMonitor', settings);
const config = () => vscode.workspace.getConfiguration('sessionOps');
const models = (...ids: string[]) => Object.fromEntries(ids.map((id) => [id, { id, name: id }]));
const INPUT = '.quick-input-widget:not([style*="display: none"]) input';
const TITLE = '.quick-input-widget:not([style*="display: none"]) .quick-input-title';

describe('Dispatch Ticket... and the route-key CodeLenses', function () {
  this.timeout(180_000);
  let api: SessionOpsApi;
  let spec: SpecServer;
  let table: vscode.Uri;

  /** Waits for the quick input titled `title`, types `text` into it and accepts the selected item (or the box). */
  async function answer(title: RegExp, text: string, box = false): Promise<void> {
    await waitFor(
      `the quick input "${title.source}"`,
      async () => (await query(TITLE)).some((n) => title.test(n.text)) && (await query(INPUT)).length > 0,
      15_000,
    );
    await fill(INPUT, text, box);
    if (!box) {
      await waitFor(
        `the item ${text}`,
        async () =>
          (await query('.quick-input-widget:not([style*="display: none"]) .monaco-list-row')).some((n) =>
            n.text.includes(text),
          ),
        10_000,
      );
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    }
  }

  const idleRow = (title: string) =>
    waitFor(
      `the idle row of "${title}"`,
      async () => {
        const r = api.monitor.rows().find((row) => row.title === title);
        if (r && r.state === 'idle') return r;
        await vscode.commands.executeCommand('sessionOps.refresh');
        return undefined;
      },
      60_000,
    );

  before(async () => {
    if (!hasBrowser())
      throw new Error('these tests answer the quick inputs in the browser: they need the code-server harness');
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!;
    api = await ext.activate();
    await configureMonitor({ minSpacingMs: MIN_SPACING_MS });
    const folder = vscode.workspace.workspaceFolders![0].uri;
    table = vscode.Uri.joinPath(folder, 'tickets', 'team.routing.yaml');
    await vscode.workspace.fs.writeFile(table, Buffer.from(TABLE, 'utf8'));
    await config().update('routingFile', 'tickets/team.routing.yaml', vscode.ConfigurationTarget.Global);
    spec = await startSpecServer();
    spec.answerPrompts = { delayMs: 300, text: 'On it.' };
    spec.setProviders(
      [
        { id: 'openai', name: 'OpenAI', models: models('gpt-x') },
        { id: 'local', name: 'Local', models: models('m1') },
      ],
      ['openai', 'local'],
    );
    const d = spec.directory(DIR);
    for (const title of ['ticket worker', 'lens worker']) {
      const id = d.addSession({ title, state: 'idle' });
      d.addMessage(id, { role: 'assistant', text: 'Ready.', info: { providerID: 'openai', modelID: 'gpt-x' } });
    }
    await config().update(
      'backends',
      [{ name: 'tickets', baseUrl: spec.url, directories: [DIR] }],
      vscode.ConfigurationTarget.Global,
    );
    await vscode.commands.executeCommand('sessionOps.sessions.focus');
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await config().update('backends', undefined, vscode.ConfigurationTarget.Global);
    await config().update('routingFile', undefined, vscode.ConfigurationTarget.Global);
    await spec?.stop();
    await configureMonitor({ minSpacingMs: null });
  });

  it('the language server puts Effective route on each route key; it opens the resolved route, cap applied, read-only', async () => {
    const doc = await vscode.workspace.openTextDocument(table);
    await vscode.window.showTextDocument(doc, { preview: false });
    const lenses = await waitFor(
      'the route-key lenses',
      async () => {
        const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', table);
        const ours = all.filter((l) => l.command?.command === 'sessionOps.showEffectiveRoute');
        return ours.length === 3 ? all : undefined;
      },
      60_000,
    );
    const onBug = lenses.filter((l) => l.range.start.line === BUG_LINE).map((l) => l.command?.title);
    assert.deepEqual(onBug, ['Effective route', 'Dispatch a ticket on this route...']);
    await waitFor(
      'the lenses rendered above Kind/Bug',
      async () => (await query('.contentWidgets .codelens-decoration a')).some((n) => n.text === 'Effective route'),
      45_000,
    );
    await screenshot('routing-codelens');
    const lens = lenses.find((l) => l.range.start.line === BUG_LINE && l.command?.title === 'Effective route')!;
    await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
    const shown = await waitFor(
      'the effective route document',
      () => vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'session-ops-route')?.document,
      15_000,
    );
    const text = shown.getText();
    assert.match(text, /^Effective route of Kind\/Bug in tickets\/team\.routing\.yaml\n/);
    assert.match(
      text,
      /Route: Kind\/Bug\nEntry: skill implement, mode bugfix\nSkip: review-dag\nKeep gates: review-code, verify\n/,
    );
    assert.match(text, /Preflight \(1 of 2 kept by preflight\.max_items\):\n {2}- reproduce-first: /);
    assert.match(text, /Dropped by preflight\.max_items \(oldest added_cycle first\):\n {2}- old-check: /);
    // Read-only: a key typed into its editor changes nothing, and the editor says why.
    await vscode.window.showTextDocument(shown, { preview: true, preserveFocus: false });
    await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
    await waitFor(
      'the focused effective route editor',
      async () => (await query('.editor-group-container .monaco-editor.focused')).length > 0,
      10_000,
    );
    await type('x');
    await waitFor(
      'the read-only message',
      async () => (await query('.monaco-editor-overlaymessage')).some((n) => /read-only/i.test(n.text)),
      10_000,
    );
    assert.equal(shown.getText(), text, 'the effective route document is read-only');
    assert.equal(shown.isDirty, false);
    await screenshot('routing-effective-route');
  });

  it('Dispatch Ticket... from the palette: session, ticket, Kind label, model; the document shows the route; Send confirms the task with the report block', async () => {
    const row = await idleRow('ticket worker');
    await idleRow('lens worker');
    const pending = vscode.commands.executeCommand('sessionOps.dispatchTicket');
    await answer(/^Dispatch Ticket\.\.\./, 'ticket worker');
    await answer(/^Ticket id/, 'BUG-77', true);
    await answer(/^Kind label of BUG-77/, 'Kind/Bug');
    await answer(/^Intended model for BUG-77/, 'openai/gpt-x');
    await settleWithin(pending, 30_000, 'Dispatch Ticket...');
    const doc = vscode.window.activeTextEditor!.document;
    const target = api.prompts.target(doc.uri);
    assert.ok(target?.dispatch, 'a dispatch prompt document');
    assert.equal(target.sessionId, row.id);
    assert.deepEqual(target.model, { providerID: 'openai', modelID: 'gpt-x' });
    const text = doc.getText();
    assert.match(text, /^<!-- Dispatch of ticket BUG-77 by tickets\/team\.routing\.yaml\nRoute: Kind\/Bug\n/);
    assert.match(text, /Dropped by preflight\.max_items/);
    assert.match(
      text,
      /-->\nStart: ticket BUG-77 takes the Kind\/Bug route of the routing table: enter the implement skill, mode bugfix\.\n/,
    );
    await waitFor(
      'the Send lens',
      async () =>
        (await query('.contentWidgets .codelens-decoration a')).some((n) => /Dispatch to "ticket worker"/.test(n.text)),
      15_000,
    );
    await screenshot('dispatch-ticket-document');
    await vscode.commands.executeCommand('sessionOps.sendPrompt', doc.uri);
    await waitFor('the row says dispatched', () => api.operations.get(row.key)?.outcome === 'confirmed', 30_000);
    const sent = spec.prompts.filter((p) => p.sessionId === row.id);
    assert.equal(sent.length, 1);
    const body = sent[0].payload.parts[0].text;
    assert.doesNotMatch(body, /<!--|Dropped by preflight/, 'the summary comment is not sent');
    assert.match(body, /^Start: ticket BUG-77 takes the Kind\/Bug route/);
    assert.match(body, /Gates:\n- skip: review-dag\n- keep \(never skip these\): review-code, verify/);
    assert.match(body, /1\. \[reproduce-first\] Reproduce it with a failing test\. \(evidence: retro C12\)/);
    assert.doesNotMatch(body, /old-check/);
    assert.match(
      body,
      /report line: ticket=BUG-77[\s\S]*reason=quota-exhausted/,
      'the completion-report block names the ticket, quota clause included',
    );
  });

  it('Dispatch a ticket on this route... prefills the Kind label: only session, ticket and model are asked', async () => {
    const row = await idleRow('lens worker');
    const pending = vscode.commands.executeCommand('sessionOps.dispatchTicket', {
      routingFile: table.toString(),
      label: 'Kind/Chore',
    });
    await answer(/^Dispatch Ticket\.\.\./, 'lens worker');
    await answer(/^Ticket id/, 'CHORE-3', true);
    await answer(/^Intended model for CHORE-3/, 'local/m1');
    await settleWithin(pending, 30_000, 'Dispatch a ticket on this route...');
    const doc = vscode.window.activeTextEditor!.document;
    assert.equal(api.prompts.target(doc.uri)?.sessionId, row.id);
    assert.match(
      doc.getText(),
      /Start: ticket CHORE-3 takes the Kind\/Chore route of the routing table: enter the implement skill, mode refactor\./,
    );
  });
});
