// The second window of the attached-daemon suite (attached.test.ts opens it through the harness:
// another code-server, its own extension host and secret storage). It attaches to the same daemon
// with its own act token, waits for the session's row, meets the first window at a barrier and
// runs Wake on the row from its tree at the same moment; the first window checks that one prompt
// was sent. Environment: SESSION_OPS_SECOND_DAEMON_URL, SESSION_OPS_SECOND_TOKEN,
// SESSION_OPS_SECOND_SESSION.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { SessionOpsApi } from '../../../src/extension/extension';
import type { SessionsNode } from '../../../src/extension/views/sessionsView';
import { barrier, waitFor } from './harness';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: this suite runs only as attached.test.ts's second window`);
  return v;
};

describe('attached daemon: the second window', function () {
  this.timeout(180_000);
  const url = env('SESSION_OPS_SECOND_DAEMON_URL');
  const id = env('SESSION_OPS_SECOND_SESSION');
  let api: SessionOpsApi;

  const treeNode = async (): Promise<SessionsNode | undefined> => {
    const walk = async (node?: SessionsNode): Promise<SessionsNode | undefined> => {
      for (const child of await api.sessions.getChildren(node)) {
        if (child.kind === 'session' && api.sessions.row(child)?.id === id) return child;
        const found = await walk(child);
        if (found) return found;
      }
      return undefined;
    };
    return walk();
  };

  before(async () => {
    api = await vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!.activate();
    await vscode.commands.executeCommand('sessionOps.test.setDaemonToken', url, env('SESSION_OPS_SECOND_TOKEN'));
    await vscode.workspace
      .getConfiguration('sessionOps')
      .update('daemons', [{ url, name: 'team' }], vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('sessionOps.sessions.focus');
  });

  it('wakes the session at the same moment as the first window', async () => {
    const node = await waitFor(
      'the session idle in this window',
      async () => {
        const n = await treeNode();
        return n && api.sessions.row(n)?.badge === 'idle' ? n : undefined;
      },
      60_000,
      200,
    );
    assert.equal(api.monitor.rows().length, 0, 'the second window samples nothing of its own either');
    await barrier('wake', 2);
    await vscode.commands.executeCommand('sessionOps.wake', node);
    // Whoever won, the row says who acted (from the daemon's events).
    const by = await waitFor(
      'who acted on the row',
      async () => {
        const n = await treeNode();
        return (n && api.sessions.row(n)?.actedBy?.by) || undefined;
      },
      30_000,
      200,
    );
    console.log(`[editor] the second window's row: acted by ${by}`);
  });
});
