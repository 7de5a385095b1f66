// Restricted Mode: a workspace whose .vscode/settings.json names its own backend and turns on an
// automatic action, and points Dispatch Ticket... at a routing table of its choosing. Session Ops
// activates (limited support) but uses none of them.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { SessionOpsApi } from '../../../src/extension/extension';
import { hasBrowser, query, screenshot, waitFor } from './harness';

describe('untrusted workspace', () => {
  let api: SessionOpsApi;

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops');
    assert.ok(ext);
    api = await ext.activate();
  });

  it('runs in Restricted Mode', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('ignores the workspace backends and automatic actions', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const raw = Buffer.from(
      await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder, '.vscode', 'settings.json')),
    ).toString('utf8');
    assert.match(raw, /203\.0\.113\.7/, 'the hostile workspace setting is there');
    assert.deepEqual(api.configuration.backends(), []);
    assert.equal(api.configuration.automatic('abortHung'), false);
    assert.match(raw, /attacker\/routing\.yaml/, 'the hostile routing file setting is there');
    assert.equal(
      api.configuration.editorSettings().routingFile,
      'routing.yaml',
      'the workspace cannot point Dispatch Ticket elsewhere',
    );
    assert.ok(
      api.configuration.routingFileCandidates().every((c) => c.startsWith(folder.fsPath)),
      'only the workspace folder is looked in',
    );
    assert.deepEqual(api.monitor.backends(), []);
    assert.equal(api.monitor.isActive, false);
  });

  it('shows the Restricted Mode welcome and never contacts the workspace server', async () => {
    await vscode.commands.executeCommand('sessionOps.sessions.focus');
    if (hasBrowser()) {
      await waitFor('the Restricted Mode welcome', async () =>
        (await query('.welcome-view-content')).some((n) => /Restricted Mode/.test(n.text)),
      );
    }
    assert.equal(api.monitor.rows().length, 0);
    await screenshot('untrusted-workspace');
  });

  it('a user-level backend still works in Restricted Mode', async () => {
    await vscode.workspace
      .getConfiguration('sessionOps')
      .update(
        'backends',
        [{ name: 'mine', baseUrl: 'http://127.0.0.1:9', directories: ['/tmp'] }],
        vscode.ConfigurationTarget.Global,
      );
    await waitFor('the user backend', () => api.configuration.backends().length === 1);
    assert.equal(api.configuration.backends()[0].name, 'mine');
    await vscode.workspace
      .getConfiguration('sessionOps')
      .update('backends', undefined, vscode.ConfigurationTarget.Global);
  });
});
