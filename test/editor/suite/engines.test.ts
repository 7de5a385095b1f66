// The Sessions view over both engines of one real opencode 1.18.33 server (issue 29): in one
// directory a session driven through the old routes and sessions driven through `/api`; and the
// same server behind a proxy that answers 404 to every old-surface path ("opencode 2"), its session
// driven through `/api`. The rows show the right badges, each row's tooltip names the engine that
// holds it, and one Wake (an explicit model the engine lists) goes through `/api`, confirmed by a new
// assistant message there, the old engine running nothing of it. One server start.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SessionRow } from '../../../src/core/monitor/row';
import type { SessionOpsApi } from '../../../src/extension/extension';
import type { SessionsNode } from '../../../src/extension/views/sessionsNodes';
import { startOldSurfaceBlocker, type OldSurfaceBlocker } from '../../support/old-surface-blocker';
import { findOpencodeBinary, launchSession, startOpencode, type OpencodeServer } from '../../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../../support/scripted-model';
import { hasBrowser, query, screenshot, waitFor } from './harness';

const MIN_SPACING_MS = 3_000;
const configureMonitor = (settings: { minSpacingMs?: number | null }) =>
  vscode.commands.executeCommand('sessionOps.test.configureMonitor', settings);
const config = () => vscode.workspace.getConfiguration('sessionOps');

/** The `/api` engine reads its config from the directory, not from OPENCODE_CONFIG_CONTENT. */
function writeDirectoryConfig(dir: string, modelUrl: string): void {
  writeFileSync(
    path.join(dir, 'opencode.json'),
    JSON.stringify({
      model: 'local/m1',
      small_model: 'local/m1',
      provider: {
        local: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Local',
          options: { baseURL: modelUrl, apiKey: 'sk-local-never-shown' },
          models: { m1: { name: 'M1' } },
        },
      },
    }),
  );
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  if (!res.ok) throw new Error(`POST ${new URL(url).pathname} answered ${res.status}`);
  return res.json();
}

const apiHeaders = (dir: string) => ({ 'x-opencode-directory': encodeURIComponent(dir) });

/** The newest `/api` message of a session (limit=1), or undefined. */
async function newestApi(baseUrl: string, dir: string, id: string): Promise<Record<string, unknown> | undefined> {
  const res = await fetch(`${baseUrl}api/session/${id}/message?limit=1`, {
    headers: apiHeaders(dir),
    signal: AbortSignal.timeout(15_000),
  });
  return ((await res.json()) as { data: Array<Record<string, unknown>> }).data[0];
}

describe('Sessions view over both engines of opencode 1.18.33, and behind the old-surface-blocking proxy', function () {
  this.timeout(300_000);
  let api: SessionOpsApi;
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let blocker: OldSurfaceBlocker;
  let root: string;
  let dir: string;
  let proxyDir: string;
  const ids: Record<'legacy' | 'apiIdle' | 'apiHung' | 'proxyIdle', string> = {
    legacy: '',
    apiIdle: '',
    apiHung: '',
    proxyIdle: '',
  };
  const byId = (id: string): SessionRow | undefined => api.monitor.rows().find((r) => r.id === id);
  const describeRows = () =>
    api.monitor
      .rows()
      .map((r) => `${r.title}: ${r.badge} (${r.action}) engine ${r.engine ?? 'unknown'}`)
      .join('\n');

  /** A session titled through the old routes (the shared record), driven through `/api` on `base`. */
  async function apiSession(base: string, directory: string, title: string, text: string): Promise<string> {
    const made = (await post(`${oc.baseUrl}session?directory=${encodeURIComponent(directory)}`, { title })) as {
      id: string;
    };
    await post(`${base}api/session/${made.id}/prompt`, { prompt: { text } }, apiHeaders(directory));
    return made.id;
  }

  /** The session's tree item as the view builds it, its tooltip resolved as on hover. */
  async function treeItemOf(id: string): Promise<vscode.TreeItem> {
    const view = api.sessions;
    const walk = async (node?: SessionsNode): Promise<SessionsNode | undefined> => {
      for (const child of await view.getChildren(node)) {
        if (child.kind === 'session' && view.row(child)?.id === id) return child;
        if (child.kind === 'backend' || child.kind === 'directory') {
          const found = await walk(child);
          if (found) return found;
        }
      }
      return undefined;
    };
    const node = await walk();
    assert.ok(node, `the row of ${id} in the Sessions view\n${describeRows()}`);
    return view.resolveTreeItem(view.getTreeItem(node), node);
  }

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!;
    api = await ext.activate();
    await configureMonitor({ minSpacingMs: MIN_SPACING_MS });
    model = await startScriptedModel();
    model.when('[lazy]', { kind: 'reply', text: 'I had a look; the fix comes next.' });
    model.when('[stall]', { kind: 'stall' });
    model.setDefault({ kind: 'reply', text: 'Resumed and working.' });
    oc = await startOpencode({
      modelUrl: model.url,
      apiKey: 'sk-local-never-shown',
      binary: findOpencodeBinary(process.env.SESSION_OPS_REPO_ROOT ?? process.cwd()),
    });
    blocker = await startOldSurfaceBlocker(oc.baseUrl);
    root = mkdtempSync(path.join(os.tmpdir(), 'session-ops-engines-editor-'));
    dir = path.join(root, 'both engines');
    proxyDir = path.join(root, 'opencode 2');
    for (const d of [dir, proxyDir]) {
      mkdirSync(d);
      writeDirectoryConfig(d, model.url);
      // A cold directory's first `/api` model listing is empty for about a second.
      await waitFor(
        'the /api model listing',
        async () => {
          const res = await fetch(`${oc.baseUrl}api/model`, { headers: apiHeaders(d) });
          return ((await res.json()) as { data: Array<{ providerID: string }> }).data.some(
            (m) => m.providerID === 'local',
          );
        },
        30_000,
      );
    }
    ids.legacy = await launchSession(oc, dir, 'old routes idle', 'look [lazy]');
    ids.apiIdle = await apiSession(oc.baseUrl, dir, 'api idle', 'look [lazy]');
    ids.apiHung = await apiSession(oc.baseUrl, dir, 'api hung', 'think [stall]');
    ids.proxyIdle = await apiSession(blocker.url, proxyDir, 'opencode 2 idle', 'look [lazy]');
    await config().update(
      'backends',
      [
        { name: 'both engines', baseUrl: oc.baseUrl, directories: [dir] },
        { name: 'opencode 2', baseUrl: blocker.url, directories: [proxyDir] },
      ],
      vscode.ConfigurationTarget.Global,
    );
    await vscode.commands.executeCommand('sessionOps.sessions.focus');
  });

  after(async () => {
    await config().update('backends', undefined, vscode.ConfigurationTarget.Global);
    model?.releaseStalls();
    await blocker?.stop();
    await oc?.stop();
    await model?.stop();
    await configureMonitor({ minSpacingMs: null });
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('the rows show the right badges and engines; each tooltip names the engine that holds the session', async () => {
    const want: Record<keyof typeof ids, [SessionRow['badge'], 'legacy' | 'api']> = {
      legacy: ['idle', 'legacy'],
      apiIdle: ['idle', 'api'],
      apiHung: ['hung', 'api'],
      proxyIdle: ['idle', 'api'],
    };
    await waitFor(
      'every row settled on its badge and engine',
      async () => {
        const ok = Object.entries(want).every(([k, [badge, engine]]) => {
          const r = byId(ids[k as keyof typeof ids]);
          return r?.badge === badge && r.engine === engine;
        });
        if (!ok) await vscode.commands.executeCommand('sessionOps.refresh');
        return ok;
      },
      120_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${describeRows()}`, { cause: err });
    });
    assert.equal(byId(ids.apiIdle)!.action, 'wake', 'an /api session with unfinished work is idle with work, not new');
    for (const [k, [, engine]] of Object.entries(want)) {
      const item = await treeItemOf(ids[k as keyof typeof ids]);
      const tip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : String(item.tooltip);
      assert.match(tip, engine === 'api' ? /Engine: `\/api`/ : /Engine: the old routes/, `${k}: ${tip}`);
    }
    if (hasBrowser()) {
      // Earlier suites leave the tree scrolled and nodes collapsed: bring both rows into view. The
      // rows are found by the titles the monitor shows now (the engine may have retitled them).
      const shown = [ids.proxyIdle, ids.apiHung].map((id) => byId(id)!);
      for (const row of shown) await api.sessions.reveal(row);
      const labels = async () => (await query('.monaco-list-row[aria-label]')).map((e) => e.ariaLabel);
      await waitFor(
        'the rows rendered',
        async () => {
          for (const row of shown) {
            const title = (row.title ?? row.id).replace(/"/g, '\\"');
            if ((await query(`.monaco-list-row[aria-label^="${title}, "]`)).length !== 1) return false;
          }
          return true;
        },
        30_000,
      ).catch(async (err: Error) => {
        throw new Error(
          `${err.message}\nrows: ${shown.map((r) => r.title).join(' | ')}\nDOM: ${JSON.stringify(await labels())}`,
          { cause: err },
        );
      });
      await screenshot('engines-sessions');
    }
  });

  it('Wake on an /api session: an explicit listed model, through /api, confirmed by a new assistant message there', async () => {
    const row = byId(ids.apiIdle)!;
    const before = (await newestApi(oc.baseUrl, dir, ids.apiIdle))?.id as string;
    await vscode.commands.executeCommand('sessionOps.wake', row);
    const op = api.operations.get(row.key);
    assert.equal(op?.outcome, 'confirmed', `operation: ${JSON.stringify(op)}`);
    assert.match(op?.text ?? '', /woken on local\/m1, confirmed/);
    const turn = await waitFor(
      'a new assistant message on /api',
      async () => {
        const m = await newestApi(oc.baseUrl, dir, ids.apiIdle);
        return m && m.type === 'assistant' && (m.id as string) > before ? m : undefined;
      },
      60_000,
    );
    // The explicit model the wake named (a switch without a variant reads back as variant "default").
    const on = turn.model as { id: string; providerID: string };
    assert.deepEqual([on.providerID, on.id], ['local', 'm1']);
    const old = await fetch(`${oc.baseUrl}session/${ids.apiIdle}/message?directory=${encodeURIComponent(dir)}&limit=1`);
    assert.deepEqual(await old.json(), [], 'the old engine ran nothing of it');
  });
});
