// Smoke: the extension activates in the real editor, its container and both views render, and
// every command it declares is registered.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { SessionOpsApi } from '../../../src/extension/extension';
import { query, screenshot, hasBrowser, waitFor } from './harness';

const EXTENSION_ID = 'session-ops.session-ops';

describe('smoke', () => {
  let api: SessionOpsApi;

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not installed in the extension host`);
    api = await ext.activate();
  });

  it('activates and reports its activation time', () => {
    assert.ok(api.activationMs > 0 && api.activationMs < 5_000, `activationMs=${api.activationMs}`);
  });

  it('registers every command it contributes', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
    const declared: string[] = ext.packageJSON.contributes.commands.map((c: { command: string }) => c.command);
    assert.ok(declared.length >= 8);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = declared.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `commands declared but not registered: ${missing.join(', ')}`);
  });

  it('shows the Session Ops container with the Sessions and Providers views', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.sessionOps');
    await vscode.commands.executeCommand('sessionOps.sessions.focus');
    assert.equal(api.sessions.treeView.visible, true, 'Sessions view is not visible');
    await vscode.commands.executeCommand('sessionOps.providers.focus');
    assert.equal(api.providers.treeView.visible, true, 'Providers view is not visible');
    if (hasBrowser()) {
      const headers = await waitFor('both view headers in the workbench', async () => {
        const titles = (await query('.pane-header .title')).map((n) => n.text.trim().toLowerCase());
        return titles.includes('sessions') && titles.includes('providers') ? titles : undefined;
      });
      assert.ok(headers.includes('sessions'));
      // With no backend configured the welcome content offers to add one.
      const welcome = await waitFor('the welcome content', async () => {
        const nodes = await query('.welcome-view-content');
        return nodes.some((n) => /Add Backend/.test(n.text)) ? nodes : undefined;
      });
      assert.ok(welcome.length >= 1);
    }
    await screenshot('smoke-session-ops-container');
  });
});
