// Re-tasking a worker from the editor: a dispatch to a worker whose newest assignment names
// another orchestrator asks, in a modal, whether this session holds the orchestrating authority
// (authority rule 1): declined, nothing is sent; "I Hold the Authority", the task goes out. VS Code
// refuses to show modal dialogs in extension tests, so the test hook sessionOps.test.answerModals
// answers in place of the person and records the modal's text and button. A dispatch refused by
// the pre-dispatch check (its provider is quota-marked) offers "Dispatch on X instead" in a
// notification, clicked in the browser (code-server harness): the same task goes out on X.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { SessionRow } from '../../../src/core/monitor/row';
import type { SessionOpsApi } from '../../../src/extension/extension';
import { startSpecServer, type SpecServer } from '../../support/spec-server';
import { click, hasBrowser, query, screenshot, waitFor } from './harness';

const DIR = '/work/retask';
const MIN_SPACING_MS = 3_000;
const configureMonitor = (settings: { minSpacingMs?: number | null }) =>
  vscode.commands.executeCommand('sessionOps.test.configureMonitor', settings);
const config = () => vscode.workspace.getConfiguration('sessionOps');
const models = (...ids: string[]) => Object.fromEntries(ids.map((id) => [id, { id, name: id }]));
/** What the test hook recorded of a confirmation modal and the answer it gave in place of a person. */
interface ShownModal {
  text: string;
  button: string;
  answer: string | null;
}
/** Scripts the answers to the next modals (null: dismissed; none: modals are shown again); returns those shown since the last call. */
const answerModals = async (answers?: Array<string | null>) =>
  (await vscode.commands.executeCommand<ShownModal[]>('sessionOps.test.answerModals', answers)) ?? [];
const TOAST = '.notifications-toasts .notification-list-item';

describe('Re-tasking a worker: the authority modal and Dispatch on X instead', function () {
  this.timeout(180_000);
  let api: SessionOpsApi;
  let spec: SpecServer;
  const listed = (title: string) =>
    waitFor(
      `the row of "${title}"`,
      async () => {
        const r = api.monitor.rows().find((row) => row.title === title);
        if (r && r.state === 'idle') return r;
        await vscode.commands.executeCommand('sessionOps.refresh');
        return undefined;
      },
      60_000,
    );
  const openDispatch = (row: SessionRow, task: string, providerID: string, modelID: string) =>
    api.prompts.open(task, {
      backendKey: row.backendKey,
      directory: row.directory,
      sessionId: row.id,
      label: row.title ?? row.id,
      origin: 'dispatch',
      model: { providerID, modelID },
      modelBasis: 'test',
      dispatch: true,
    });
  const promptsTo = (id: string) => spec.prompts.filter((p) => p.sessionId === id);

  before(async () => {
    if (!hasBrowser())
      throw new Error('these tests click a modal and a notification: they need the code-server harness');
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!;
    api = await ext.activate();
    await configureMonitor({ minSpacingMs: MIN_SPACING_MS });
    spec = await startSpecServer();
    spec.answerPrompts = { delayMs: 300, text: 'On it.' };
    spec.setProviders(
      [
        { id: 'anthropic', name: 'Anthropic', models: models('claude') },
        { id: 'openai', name: 'OpenAI', models: models('gpt-x') },
        { id: 'local', name: 'Local', models: models('m1') },
      ],
      ['anthropic', 'openai', 'local'],
    );
    const d = spec.directory(DIR);
    // Assigned by another orchestrator: its newest message is that orchestrator's assignment.
    const assigned = d.addSession({ title: 'assigned worker', state: 'idle' });
    d.addMessage(assigned, {
      role: 'user',
      text: 'Ticket RT-7: port the ledger export. Report to orchestrator ses_elsewhere1 when done.',
    });
    const free = d.addSession({ title: 'free worker', state: 'idle' });
    d.addMessage(free, { role: 'assistant', text: 'Ready.', info: { providerID: 'openai', modelID: 'gpt-x' } });
    await config().update(
      'backends',
      [{ name: 'retask', baseUrl: spec.url, directories: [DIR] }],
      vscode.ConfigurationTarget.Global,
    );
    await vscode.commands.executeCommand('sessionOps.sessions.focus');
  });

  beforeEach(async () => {
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  after(async () => {
    await answerModals();
    await vscode.commands.executeCommand('notifications.clearAll');
    await config().update('backends', undefined, vscode.ConfigurationTarget.Global);
    await spec?.stop();
    await configureMonitor({ minSpacingMs: null });
  });

  it('a dispatch to a worker another orchestrator assigned asks "I Hold the Authority": declined sends nothing, confirmed sends the task', async () => {
    const row = await listed('assigned worker');
    assert.equal(api.operator.authority(row).named, 'ses_elsewhere1', 'the row carries the assignment');
    const doc = await openDispatch(row, 'Also write the CSV importer (RETASK-1).', 'openai', 'gpt-x');
    const modalOf = (shown: ShownModal[], answer: string | null) => {
      assert.equal(shown.length, 1, JSON.stringify(shown));
      assert.equal(shown[0].button, 'I Hold the Authority');
      assert.equal(shown[0].answer, answer);
      assert.match(
        shown[0].text,
        /^authority rule 1: the worker's newest assignment names orchestrator ses_elsewhere1/,
      );
      assert.match(shown[0].text, /Confirm only if this session holds the orchestrating authority now\.$/);
    };

    await answerModals([null]);
    await vscode.commands.executeCommand('sessionOps.sendPrompt', doc.uri);
    modalOf(await answerModals(['I Hold the Authority']), null);
    assert.equal(promptsTo(row.id).length, 0, 'declined: nothing sent');
    assert.ok(api.prompts.target(doc.uri), 'the task stays in its document');

    await vscode.commands.executeCommand('sessionOps.sendPrompt', doc.uri);
    modalOf(await answerModals(), 'I Hold the Authority');
    assert.equal(api.operations.get(row.key)?.outcome, 'confirmed', JSON.stringify(api.operations.get(row.key)));
    const sent = promptsTo(row.id);
    assert.equal(sent.length, 1, 'one dispatch');
    assert.match(sent[0].payload.parts[0].text, /RETASK-1/);
    assert.equal(api.prompts.target(doc.uri), undefined, 'a sent task cannot be sent twice');
  });

  it('a dispatch refused on a quota-marked provider offers "Dispatch on X instead"; the button dispatches there', async () => {
    if (!hasBrowser()) throw new Error('this test clicks a notification button: it needs the code-server harness');
    spec.setQuota('anthropic', { markedAt: Date.now() - 60_000, resetAt: Date.now() + 30 * 60_000 });
    await vscode.commands.executeCommand('sessionOps.refresh');
    const row = await listed('free worker');
    const doc = await openDispatch(row, 'Port the report generator (INSTEAD-1).', 'anthropic', 'claude');
    await vscode.commands.executeCommand('sessionOps.sendPrompt', doc.uri);
    const refused = api.operations.get(row.key);
    assert.equal(refused?.outcome, 'refused', JSON.stringify(refused));
    assert.equal(promptsTo(row.id).length, 0, 'refused: nothing sent');

    const button = await waitFor(
      'the Dispatch on X instead button',
      async () =>
        (await query(`${TOAST} .monaco-button`))
          .map((n) => n.text.trim())
          .find((t) => /^Dispatch on \S+ instead$/.test(t)),
      15_000,
    );
    const instead = /^Dispatch on (\S+) instead$/.exec(button)![1];
    assert.ok(['openai', 'local'].includes(instead), `a connected provider without a mark: ${instead}`);
    await screenshot('retask-dispatch-instead');
    await click(`${TOAST} .monaco-button:has-text("${button}")`);
    const sent = await waitFor('the dispatch on the other provider', () => promptsTo(row.id)[0], 30_000);
    assert.equal(sent.payload.model?.providerID, instead, 'sent on the provider the button named');
    assert.match(sent.payload.parts[0].text, /INSTEAD-1/);
    await waitFor('the row says dispatched', () => api.operations.get(row.key)?.outcome === 'confirmed', 15_000);
    assert.equal(api.prompts.target(doc.uri), undefined, 'the document was sent');
  });
});
