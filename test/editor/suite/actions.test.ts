// The session actions in the real editor against the real opencode server (scripted loopback
// model, a second provider `backup` to recover onto), through a logging proxy so the order of
// requests is checked: Abort, one-click Wake, Abort and Wake on a hung session (abort, idle
// read, prompt), Recover of a 429 wall onto `backup`, a 402 balance failure that escalates and
// sends nothing, Wake with Prompt... (a prompt document, sent from it), and a refused send that
// keeps its prompt. Screenshots of the context menu and the prompt preview go to test-results/.
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SessionRow } from '../../../src/core/monitor/row';
import type { SessionOpsApi } from '../../../src/extension/extension';
import { startLoggingProxy, type LoggingProxy } from '../../support/logging-proxy';
import {
  findOpencodeBinary,
  launchSession,
  startOpencode,
  withBackupProvider,
  type OpencodeServer,
} from '../../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../../support/scripted-model';
import { click, hasBrowser, press, query, screenshot, settleWithin, waitFor } from './harness';

const MIN_SPACING_MS = 3_000;
const configureMonitor = (settings: { minSpacingMs?: number | null }) =>
  vscode.commands.executeCommand('sessionOps.test.configureMonitor', settings);
const config = () => vscode.workspace.getConfiguration('sessionOps');

describe('Session actions against the real opencode server', function () {
  this.timeout(300_000);
  let api: SessionOpsApi;
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let proxy: LoggingProxy;
  let dir: string;
  const byId = (id: string): SessionRow | undefined => api.monitor.rows().find((r) => r.id === id);
  const describeRows = () =>
    api.monitor
      .rows()
      .map((r) => `${r.title}: ${r.badge} (${r.pending ?? r.action}) ${api.operations.get(r.key)?.text ?? ''}`)
      .join('\n');

  const launch = (title: string, text: string): Promise<string> => launchSession(oc, dir, title, text);

  async function settled(
    id: string,
    what: string,
    pred: (r: SessionRow) => boolean,
    timeoutMs = 90_000,
  ): Promise<SessionRow> {
    return waitFor(
      what,
      async () => {
        const r = byId(id);
        if (r && pred(r)) return r;
        await vscode.commands.executeCommand('sessionOps.refresh');
        return undefined;
      },
      timeoutMs,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${describeRows()}`, { cause: err });
    });
  }

  /** Requests for one session, in order, as "METHOD path" (reads of the list/status included). */
  const requestsAfter = (since: number) => proxy.log.filter((r) => r.at >= since).map((r) => `${r.method} ${r.path}`);

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!;
    api = await ext.activate();
    await configureMonitor({ minSpacingMs: MIN_SPACING_MS });
    model = await startScriptedModel();
    oc = await startOpencode({
      modelUrl: model.url,
      apiKey: 'sk-local-never-shown',
      binary: findOpencodeBinary(process.env.SESSION_OPS_REPO_ROOT ?? process.cwd()),
      configure: withBackupProvider(model.url),
    });
    proxy = await startLoggingProxy(oc.baseUrl);
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-actions-'));
    model.when('[lazy]', { kind: 'reply', text: 'I had a look; the fix comes next.' });
    model.when('[stall]', { kind: 'stall' });
    model.when('[broke]', { kind: 'balance' });
    model.when('[walled]', { kind: 'rate-limit', retryAfter: 4 * 3600 });
    model.setDefault({ kind: 'reply', text: 'Resumed and working.' });
    await config().update(
      'backends',
      [{ name: 'opencode', baseUrl: proxy.url, directories: [dir] }],
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
    model?.releaseStalls();
    await proxy?.stop();
    await oc?.stop();
    await model?.stop();
    await configureMonitor({ minSpacingMs: null });
  });

  it('Abort: a stalled generation is aborted and reads idle, confirmed by a read', async () => {
    const id = await launch('to abort', 'think [stall]');
    await settled(id, 'the stalled session hung', (r) => r.verdict === 'hung');
    const since = Date.now();
    await vscode.commands.executeCommand('sessionOps.abort', byId(id));
    const op = api.operations.get(byId(id)!.key);
    assert.equal(op?.outcome, 'idle', `operation: ${JSON.stringify(op)}`);
    const order = requestsAfter(since);
    const abortAt = order.indexOf(`POST /session/${id}/abort`);
    assert.ok(abortAt >= 0, order.join('\n'));
    assert.ok(
      order.slice(abortAt + 1).some((r) => r === 'GET /session/status' || r === 'GET /session'),
      'idle confirmed by a read after the abort',
    );
    assert.ok(!order.some((r) => r.endsWith('/prompt_async')), 'Abort sends no prompt');
    await settled(id, 'the aborted session idle', (r) => r.state === 'idle');
  });

  it('Wake: one click on an idle session sends an explicit model and sees a new assistant message', async () => {
    const id = await launch('to wake', 'look [lazy]');
    const row = await settled(id, 'the idle verdict', (r) => r.verdict === 'idle' && r.action === 'wake');
    if (hasBrowser()) {
      // The context menu of the row, offered by its verdict.
      await click(`.monaco-list-row[aria-label^="to wake"]`, 'right');
      await waitFor(
        'the context menu',
        async () => (await query('.context-view .action-label')).some((n) => /Wake with Prompt/.test(n.text ?? '')),
        15_000,
      );
      await screenshot('actions-context-menu');
      await press('Escape');
    }
    const before = model.requests.length;
    const since = Date.now();
    await vscode.commands.executeCommand('sessionOps.wake', row);
    const op = api.operations.get(row.key);
    assert.equal(op?.outcome, 'confirmed', `operation: ${JSON.stringify(op)}`);
    assert.match(op?.text ?? '', /woken on local\/m1, confirmed/);
    await waitFor('the model called again', () => model.requests.slice(before).some((r) => !r.auxiliary), 30_000);
    const prompts = proxy.log.filter((r) => r.at >= since && r.path.endsWith('/prompt_async'));
    assert.equal(prompts.length, 1);
    const body = JSON.parse(prompts[0].body) as {
      model: { providerID: string; modelID: string };
      parts: Array<{ text: string }>;
    };
    assert.deepEqual(body.model, { providerID: 'local', modelID: 'm1' }, 'an explicit model');
    assert.match(body.parts[0].text, /compact/i, 'the wake prompt carries the anti-re-hang clause');
    assert.ok(
      proxy.log
        .filter((r) => r.at >= since)
        .every(
          (r) =>
            r.query.get('directory') === dir ||
            r.path.startsWith('/event') ||
            r.path === '/provider' ||
            // The `/api` engine's server-wide reads, and its routes scoped by the directory header.
            ['/api/health', '/api/session/active', '/api/event'].includes(r.path) ||
            (r.path.startsWith('/api/') && r.directoryHeader === encodeURIComponent(dir)),
        ),
      `directory on every request: ${proxy.log
        .filter((r) => r.at >= since && r.query.get('directory') !== dir)
        .map((r) => r.path)
        .join(', ')}`,
    );
  });

  it('Wake with Prompt...: the prompt opens for review, a refused send keeps it, the Send lens sends it', async () => {
    const id = await launch('to review', 'look [lazy] again');
    const row = await settled(id, 'the idle verdict', (r) => r.verdict === 'idle' && r.action === 'wake');
    // The quick pick of prompt kinds: take the first (the wake prompt).
    const pending = vscode.commands.executeCommand('sessionOps.wakeWithPrompt', row);
    await waitFor(
      'the prompt kind pick',
      async () => !hasBrowser() || (await query('.quick-input-widget:not([style*="display: none"])')).length > 0,
      15_000,
    );
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    await settleWithin(pending, 30_000, 'Wake with Prompt...');
    const doc = await waitFor('the prompt document', () => api.prompts.active(), 30_000);
    assert.match(doc.getText(), /compact/i);
    const target = api.prompts.target(doc.uri)!;
    assert.deepEqual(target.model, { providerID: 'local', modelID: 'm1' });
    if (hasBrowser()) {
      await waitFor(
        'the Send lens',
        async () => (await query('.codelens-decoration a')).some((n) => /Send to "to review"/.test(n.text ?? '')),
        15_000,
      );
      await screenshot('actions-prompt-preview');
    }
    // A provider that does not exist: refused by the send guard, nothing sent, the prompt kept.
    api.prompts.setModel(doc.uri, { providerID: 'nowhere', modelID: 'x' }, 'test');
    const since = Date.now();
    await vscode.commands.executeCommand('sessionOps.sendPrompt', doc.uri);
    assert.equal(api.operations.get(row.key)?.outcome, 'refused');
    assert.ok(api.prompts.target(doc.uri), 'the prompt document is still waiting to be sent');
    assert.ok(!requestsAfter(since).some((r) => r.endsWith('/prompt_async')), 'nothing was sent');
    await press('Escape').catch(() => undefined);
    api.prompts.setModel(doc.uri, { providerID: 'local', modelID: 'm1' }, 'test');
    await vscode.commands.executeCommand('sessionOps.sendPrompt', doc.uri);
    assert.equal(api.operations.get(row.key)?.outcome, 'confirmed', JSON.stringify(api.operations.get(row.key)));
    assert.equal(api.prompts.target(doc.uri), undefined, 'a sent prompt cannot be sent twice');
  });

  it('Abort and Wake: abort, an idle read, only then the prompt', async () => {
    model.when('[stall2]', { kind: 'stall' });
    const id = await launch('to rescue', 'think [stall2]');
    const row = await settled(id, 'the hung verdict', (r) => r.verdict === 'hung' && r.action === 'abort-and-wake');
    const since = Date.now();
    await vscode.commands.executeCommand('sessionOps.abortAndWake', row);
    const order = requestsAfter(since);
    const abortAt = order.indexOf(`POST /session/${id}/abort`);
    const promptAt = order.indexOf(`POST /session/${id}/prompt_async`);
    assert.ok(abortAt >= 0 && promptAt > abortAt, `abort before the prompt:\n${order.join('\n')}`);
    assert.ok(
      order.slice(abortAt + 1, promptAt).some((r) => r === 'GET /session/status' || r === 'GET /session'),
      'an idle read between the abort and the prompt',
    );
    const op = api.operations.get(row.key);
    assert.ok(op && (op.outcome === 'confirmed' || op.outcome === 'not-confirmed'), `operation: ${JSON.stringify(op)}`);
    // Liveness reads limit=1; the others are the message ledger's cost pages, and at most one
    // whole-transcript read of the worker: its first user message, who assigned it (authority rule
    // 1, read once and remembered), taken before the abort like everything else the wake needs.
    const transcripts = proxy.log.filter((r) => r.path.endsWith('/message') && r.query.get('limit') === null);
    const paths = transcripts.map((r) => r.path);
    assert.equal(new Set(paths).size, paths.length, `one assignment read per worker at most: ${paths.join(', ')}`);
    const readAt = proxy.log
      .filter((r) => r.at >= since)
      .findIndex((r) => r.path.endsWith('/message') && r.query.get('limit') === null);
    assert.ok(readAt < abortAt, `the assignment read before the abort:\n${order.join('\n')}`);
    for (const l of proxy.log.filter((r) => r.path.endsWith('/message') && r.query.get('limit') !== null))
      assert.ok(
        Number(l.query.get('limit')) >= 1 && Number(l.query.get('limit')) <= 20,
        `limit on ${l.path}?${l.query}`,
      );
  });

  it('a 402 balance failure escalates and sends nothing', async () => {
    const id = await launch('broke', 'go [broke]');
    const row = await settled(
      id,
      'the balance wall',
      (r) => r.quotaWall?.category === 'balance' && r.action === 'escalate',
    );
    const since = Date.now();
    // The escalation is a modal (refused by the test workbench or dismissed): do not wait on it.
    void vscode.commands.executeCommand('sessionOps.recover', row);
    await waitFor('the escalation', () => api.operations.get(row.key)?.outcome === 'escalated', 90_000).catch(
      (err: Error) => {
        throw new Error(`${err.message}\n${JSON.stringify(api.operations.get(row.key))}`);
      },
    );
    if (hasBrowser()) await screenshot('actions-escalation');
    await press('Escape').catch(() => undefined);
    assert.ok(!requestsAfter(since).some((r) => r.endsWith('/prompt_async')), 'nothing was sent');
  });

  it('Recover on Another Provider: a long retry-after 429 wall is recovered onto the backup provider', async () => {
    const id = await launch('walled', 'work [walled]');
    const row = await settled(id, 'the quota wall', (r) => r.quotaWall !== null && r.action === 'recover', 120_000);
    const since = Date.now();
    await vscode.commands.executeCommand('sessionOps.recover', row);
    const op = api.operations.get(row.key);
    assert.ok(op && /recovered on backup\/b1/.test(op.text), `operation: ${JSON.stringify(op)}`);
    const prompts = proxy.log.filter((r) => r.at >= since && r.path === `/session/${id}/prompt_async`);
    assert.equal(prompts.length, 1);
    const body = JSON.parse(prompts[0].body) as { model: { providerID: string }; parts: Array<{ text: string }> };
    assert.equal(body.model.providerID, 'backup', 'never the walled provider');
    assert.match(body.parts[0].text, /quota-exhausted/, 'the quota-wall prompt restates the self-report protocol');
  });
});
