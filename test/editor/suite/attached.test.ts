// A window attached to a real `session-ops watch` over real opencode (the scripted model), in the
// real editor: the Sessions view's rows show the daemon's /api/status badges; Wake from the tree's
// command is the daemon's act (its audit names the act token, the model gets one prompt); two
// windows attached to the daemon (this one and a second code-server with its own extension host,
// attached-second.test.ts, opened through the harness) run Wake on one session at the same moment
// (a barrier in the harness): one prompt is sent; a read token gives rows without act menus and a
// refused Wake with no POST.
// The token goes in through the test hook sessionOps.test.setDaemonToken (the same SecretStorage
// entry *Set Daemon Token...* writes): the command's password input box is not driven here.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { DaemonClient } from '../../../src/core/daemon/client';
import type { SessionRow } from '../../../src/core/monitor/row';
import type { SessionOpsApi } from '../../../src/extension/extension';
import type { SessionsNode } from '../../../src/extension/views/sessionsView';
import { findOpencodeBinary, launchSession, startOpencode, type OpencodeServer } from '../../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../../support/scripted-model';
import { startWatchCli, type WatchProcess } from '../../support/watch-process';
import { barrier, openSecondWindow, secondWindowExit, waitFor } from './harness';

const ACT = 'sot_editor-attached-act-token-aaaaaaaaaaaaaaaaaaa';
const SECOND = 'sot_editor-attached-second-window-token-bbbbbbbbbbb';
const READ = 'sot_editor-attached-read-token-ccccccccccccccccc';
const config = () => vscode.workspace.getConfiguration('sessionOps');
const setToken = (url: string, token: string) =>
  vscode.commands.executeCommand('sessionOps.test.setDaemonToken', url, token);

interface AuditEntry {
  who: { name: string };
  action: string;
  outcome: { sent: unknown };
}

describe('attached daemon', function () {
  this.timeout(120_000);
  let api: SessionOpsApi;
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let watch: WatchProcess | undefined;
  let tmp: string;
  let url: string;
  const ids: string[] = [];
  const prompts = () => model.requests.filter((r) => !r.auxiliary).length;

  /** The Sessions view's session nodes, walked from its root as the tree lists them. */
  async function sessionNodes(): Promise<SessionsNode[]> {
    const walk = async (node?: SessionsNode): Promise<SessionsNode[]> => {
      const children = await api.sessions.getChildren(node);
      const nested = await Promise.all(children.map((c) => walk(c)));
      return [...children.filter((c) => c.kind === 'session'), ...nested.flat()];
    };
    return walk();
  }
  const treeRow = async (id: string): Promise<{ node: SessionsNode; row: SessionRow } | undefined> => {
    for (const node of await sessionNodes()) {
      const row = api.sessions.row(node);
      if (row?.id === id) return { node, row };
    }
    return undefined;
  };
  const audit = async (): Promise<AuditEntry[]> =>
    (
      (await (await fetch(`${url}api/audit`, { headers: { authorization: `Bearer ${ACT}` } })).json()) as {
        entries: AuditEntry[];
      }
    ).entries;

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!;
    api = await ext.activate();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-attached-editor-'));
    const dir = path.join(tmp, 'work');
    mkdirSync(dir);
    model = await startScriptedModel();
    oc = await startOpencode({
      modelUrl: model.url,
      binary: findOpencodeBinary(process.env.SESSION_OPS_REPO_ROOT ?? process.cwd()),
    });
    ids.push(await launchSession(oc, dir, 'attached one', 'say hello'));
    ids.push(await launchSession(oc, dir, 'attached two', 'say goodbye'));
    watch = await startWatchCli(
      path.join(process.env.SESSION_OPS_REPO_ROOT ?? process.cwd(), 'dist', 'cli.js'),
      tmp,
      oc.baseUrl,
      dir,
      {
        tokens: [
          { name: 'window', scope: 'act', token: ACT },
          { name: 'second', scope: 'act', token: SECOND },
          { name: 'viewer', scope: 'read', token: READ },
        ],
      },
    );
    url = `${new URL(watch.metricsUrl).origin}/`;
    await setToken(url, ACT);
    await config().update('daemons', [{ url, name: 'team' }], vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('sessionOps.sessions.focus');
  });

  after(async () => {
    await config().update('daemons', undefined, vscode.ConfigurationTarget.Global);
    watch?.stop();
    await oc?.stop();
    await model?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("the Sessions view's rows show the daemon's /api/status badges", async () => {
    const status = await waitFor(
      'every session settled idle in the daemon and the tree',
      async () => {
        const doc = (await new DaemonClient({ url, token: ACT }).status()) as {
          backends: Array<{ documents: Array<{ sessions: Array<{ id: string; headline: string }> }> }>;
        };
        const sessions = doc.backends.flatMap((b) => b.documents.flatMap((d) => d.sessions));
        if (sessions.length !== ids.length || sessions.some((s) => s.headline !== 'idle')) return undefined;
        for (const s of sessions) if ((await treeRow(s.id))?.row.badge !== s.headline) return undefined;
        return sessions;
      },
      60_000,
      250,
    );
    assert.equal(api.monitor.rows().length, 0, 'the window samples nothing of its own');
    for (const s of status) {
      const shown = (await treeRow(s.id))!;
      assert.equal(shown.row.badge, s.headline, s.id);
      assert.doesNotMatch(String(api.sessions.getTreeItem(shown.node).contextValue), /readOnlySession/);
    }
  });

  it("Wake from the tree is the daemon's act: its audit names the act token, the model gets one prompt", async () => {
    const { node, row } = (await treeRow(ids[0]))!;
    const before = prompts();
    await vscode.commands.executeCommand('sessionOps.wake', node);
    // A daemon row's outcome comes back on the row (who acted), from the daemon's events.
    await waitFor(
      'who acted on the row',
      async () => (await treeRow(row.id))?.row.actedBy?.by === 'window',
      20_000,
      200,
    );
    await waitFor('the wake prompt at the model', () => prompts() > before, 30_000, 200);
    const sent = (await audit()).filter((e) => e.action === 'wake' && e.outcome.sent === true);
    assert.equal(sent.length, 1, JSON.stringify(sent));
    assert.equal(sent[0].who.name, 'window');
    assert.equal(prompts() - before, 1, 'one prompt at the backend');
  });

  it('two windows attached to the daemon run Wake on one session at once: one prompt, one sent in the audit', async () => {
    const { node } = await waitFor(
      'the second session idle in the tree',
      async () => {
        const t = await treeRow(ids[1]);
        return t?.row.badge === 'idle' ? t : undefined;
      },
      30_000,
      200,
    );
    const before = prompts();
    const sentBefore = (await audit()).filter((e) => e.outcome.sent === true).length;
    await openSecondWindow('attached-second', {
      SESSION_OPS_SECOND_DAEMON_URL: url,
      SESSION_OPS_SECOND_TOKEN: SECOND,
      SESSION_OPS_SECOND_SESSION: ids[1],
    });
    await barrier('wake', 2);
    await vscode.commands.executeCommand('sessionOps.wake', node);
    assert.equal(
      await secondWindowExit(),
      0,
      "the second window's suite failed (its lines are prefixed [second-window])",
    );
    await waitFor('the one wake prompt at the model', () => prompts() > before, 30_000, 200);
    const entries = await audit();
    const sent = entries.filter((e) => e.outcome.sent === true).slice(sentBefore);
    assert.equal(sent.length, 1, JSON.stringify(entries));
    assert.ok(['window', 'second'].includes(sent[0].who.name), JSON.stringify(sent));
    // The loser's act was refused by the daemon (busy: the session's lock; or not idle any more):
    // a busy refusal is not audited, so the audit holds the one sent wake and at most that refusal.
    assert.equal((await treeRow(ids[1]))?.row.actedBy?.by, sent[0].who.name, 'this row names who acted');
    assert.equal(prompts() - before, 1, 'one prompt at the backend');
  });

  it('a read token: rows without act menus, and Wake refused with no POST', async () => {
    await setToken(url, READ);
    const shown = await waitFor(
      'the rows read-only',
      async () => {
        const t = await treeRow(ids[0]);
        const cv = t && api.sessions.getTreeItem(t.node).contextValue;
        return cv && /readOnlySession/.test(cv) ? t : undefined;
      },
      30_000,
      200,
    );
    const before = prompts();
    const auditBefore = (await audit()).length;
    await vscode.commands.executeCommand('sessionOps.wake', shown.node);
    assert.equal((await audit()).length, auditBefore, 'no act reached the daemon');
    assert.equal(prompts(), before, 'no prompt at the backend');
  });
});
