// Sessions waiting for a person, in the real editor against the real opencode server: a pending
// permission (`bash` set to `ask`, a model that calls bash) and a pending question (the question
// tool) read `waiting` after two samples (never hung), the row says what is asked, the menu
// offers the answers and never Abort, and answering from the commands lets the session go on.
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SessionRow } from '../../../src/core/monitor/row';
import type { SessionOpsApi } from '../../../src/extension/extension';
import { findOpencodeBinary, launchSession, startOpencode, type OpencodeServer } from '../../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../../support/scripted-model';
import { click, hasBrowser, press, query, rows, screenshot, settleWithin, waitFor } from './harness';

const MIN_SPACING_MS = 3_000;
const configureMonitor = (settings: { minSpacingMs?: number | null }) =>
  vscode.commands.executeCommand('sessionOps.test.configureMonitor', settings);
const config = () => vscode.workspace.getConfiguration('sessionOps');

describe('Sessions waiting for a person (real opencode)', function () {
  this.timeout(300_000);
  let api: SessionOpsApi;
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let dir: string;
  const byId = (id: string): SessionRow | undefined => api.monitor.rows().find((r) => r.id === id);

  const launch = (title: string, text: string): Promise<string> => launchSession(oc, dir, title, text);

  const settled = (id: string, what: string, pred: (r: SessionRow) => boolean, timeoutMs = 90_000) =>
    waitFor(
      what,
      async () => {
        const r = byId(id);
        if (r && pred(r)) return r;
        await vscode.commands.executeCommand('sessionOps.refresh');
        return undefined;
      },
      timeoutMs,
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}\n${api.monitor
          .rows()
          .map((r) => `${r.title}: ${r.badge} (${r.pending ?? r.action})`)
          .join('\n')}`,
        { cause: err },
      );
    });

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!;
    api = await ext.activate();
    await configureMonitor({ minSpacingMs: MIN_SPACING_MS });
    model = await startScriptedModel();
    oc = await startOpencode({
      modelUrl: model.url,
      binary: findOpencodeBinary(process.env.SESSION_OPS_REPO_ROOT ?? process.cwd()),
      configure: (c) => ({ ...c, permission: { bash: 'ask' } }),
    });
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-waiting-'));
    model.when('[perm]', {
      kind: 'tool-calls',
      calls: [{ tool: 'bash', args: { command: 'ls -la', description: 'list the files' } }],
      then: 'listed the files',
    });
    model.when('[ask]', {
      kind: 'tool-calls',
      calls: [
        {
          tool: 'question',
          args: {
            questions: [
              {
                question: 'Which colour?',
                header: 'Colour',
                options: [
                  { label: 'Red', description: 'warm' },
                  { label: 'Blue', description: 'cool' },
                ],
              },
            ],
          },
        },
      ],
      then: 'painted it',
    });
    await config().update(
      'backends',
      [{ name: 'opencode', baseUrl: oc.baseUrl, directories: [dir] }],
      vscode.ConfigurationTarget.Global,
    );
    await vscode.commands.executeCommand('sessionOps.sessions.focus');
  });

  // No widget left open by an earlier test may take the keyboard or the quick input.
  beforeEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    await vscode.commands.executeCommand('notifications.clearAll');
  });

  after(async () => {
    await config().update('backends', undefined, vscode.ConfigurationTarget.Global);
    await oc?.stop();
    await model?.stop();
    await configureMonitor({ minSpacingMs: null });
  });

  it('a pending permission reads waiting (never hung), says what is asked, and Allow Once lets it go on', async () => {
    const id = await launch('needs permission', 'list [perm]');
    const row = await settled(id, 'the waiting verdict', (r) => r.verdict === 'waiting');
    assert.equal(row.action, 'answer');
    assert.equal(row.badge, 'waiting');
    assert.equal(row.waiting?.kind, 'permission');
    assert.match(row.waiting?.title ?? '', /bash ls -la/);
    assert.ok(api.sessions.attentionCount() >= 1, 'counts toward the attention badge');
    if (hasBrowser()) {
      await api.sessions.reveal(row);
      await waitFor(
        'the waiting row',
        async () => (await rows(/^needs permission, waiting/)).length === 1,
        30_000,
      ).catch(async (err: Error) => {
        await screenshot('waiting-row-missing');
        const labels = (await rows()).map((r) => r.ariaLabel).join('\n');
        throw new Error(`${err.message}; rendered rows:\n${labels}`, { cause: err });
      });
      await click('.monaco-list-row[aria-label^="needs permission"]', 'right');
      const items = await waitFor(
        'the answers in the context menu',
        async () => {
          const labels = (await query('.context-view .action-label')).map((n) => n.text ?? '');
          return labels.includes('Allow Once') ? labels : undefined;
        },
        15_000,
      );
      assert.ok(items.includes('Allow Always') && items.includes('Reject'), items.join(', '));
      assert.ok(
        !items.includes('Abort') && !items.includes('Abort and Wake'),
        `never Abort on a waiting session: ${items.join(', ')}`,
      );
      await screenshot('waiting-permission-menu');
      await press('Escape');
    }
    // The abort-and-wake path refuses in the core: nothing is aborted, the request stays.
    await assert.rejects(
      Promise.resolve(api.operator.wake({ target: row, abortFirst: true, automatic: true })),
      /waiting for a person/,
    );
    await vscode.commands.executeCommand('sessionOps.allowOnce', row);
    assert.equal(api.operations.get(row.key)?.outcome, 'answered');
    await settled(
      id,
      'the session going on after Allow Once',
      (r) => r.badge !== 'waiting' && r.evidence.latest.newestRole === 'assistant',
      60_000,
    );
  });

  it('a pending question reads waiting, and Answer... picks an option and lets it go on', async () => {
    const id = await launch('has a question', 'paint [ask]');
    const row = await settled(
      id,
      'the waiting verdict',
      (r) => r.verdict === 'waiting' && r.waiting?.kind === 'question',
    );
    assert.match(row.waiting?.title ?? '', /Colour/);
    const pending = vscode.commands.executeCommand('sessionOps.answerQuestion', row);
    // The quick pick of the options: choose the first ("Red").
    await waitFor(
      'the options pick',
      async () =>
        !hasBrowser() ||
        (await query('.quick-input-widget:not([style*="display: none"]) .monaco-list-row')).length >= 2,
      15_000,
    );
    if (hasBrowser()) await screenshot('waiting-question-pick');
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await settleWithin(pending, 30_000, 'Answer...');
    assert.match(api.operations.get(row.key)?.text ?? '', /answered: Red/);
    await settled(id, 'the question answered', (r) => r.badge !== 'waiting', 60_000);
  });
});
