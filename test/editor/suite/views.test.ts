// The Sessions and Providers views in the real editor, against the spec-dialect test server and
// the real opencode server (scripted loopback model): every badge with its description, the error
// node of an unreachable backend, the attention badge and status bar, notifications, and the
// password command storing into SecretStorage. Screenshots go to test-results/.
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import type { SessionOpsApi } from '../../../src/extension/extension';
import type { SessionRow } from '../../../src/core/monitor/row';
import { nodeId } from '../../../src/core/keys';
import { findOpencodeBinary, launchSession, startOpencode, type OpencodeServer } from '../../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../../support/scripted-model';
import { startSpecServer, type SpecServer } from '../../support/spec-server';
import { click, fill, hasBrowser, query, rows, screenshot, settleWithin, waitFor } from './harness';

const SPEC_DIR = '/work/spec-repo';
// Verdicts need a baseline at least this old. The spec's 30 s is lowered through the test-only
// command (src/extension/testHooks.ts) so that the suite does not sleep 31 s per verdict.
const MIN_SPACING_MS = 3_000;
const configureMonitor = (settings: { minSpacingMs?: number | null; spacingMs?: number }) =>
  vscode.commands.executeCommand('sessionOps.test.configureMonitor', settings);
/** A row of the Sessions view (the Providers view lists the same backends). */
const SESSIONS_ROW = '.pane-header[aria-label^="Sessions"] + .pane-body .monaco-list-row';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const config = () => vscode.workspace.getConfiguration('sessionOps');

async function setBackends(value: unknown[] | undefined): Promise<void> {
  await config().update('backends', value, vscode.ConfigurationTarget.Global);
}

describe('Sessions and Providers views', function () {
  this.timeout(300_000);
  let api: SessionOpsApi;
  let spec: SpecServer;
  const ids: Record<string, string> = {};
  const rowOf = (title: string): SessionRow | undefined => api.monitor.rows().find((r) => r.title === title);

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!;
    api = await ext.activate();
    await configureMonitor({ minSpacingMs: MIN_SPACING_MS });
    spec = await startSpecServer();
    const now = Date.now();
    spec.setProviders(
      [
        { id: 'anthropic', name: 'Anthropic', options: { apiKey: 'sk-never-shown' } },
        { id: 'openai', name: 'OpenAI' },
      ],
      ['anthropic', 'openai'],
    );
    spec.setQuota('anthropic', { markedAt: now - 20 * 60_000, resetAt: now + 2 * 3600_000 });
    const d = spec.directory(SPEC_DIR);
    ids.healthy = d.addSession({
      title: 'healthy worker',
      state: 'generating',
      progress: { stepCount: 3, lastStepAt: now },
    });
    d.addMessage(ids.healthy, { role: 'assistant', text: 'working', info: { providerID: 'openai', modelID: 'gpt-x' } });
    ids.hung = d.addSession({
      title: 'hung worker',
      state: 'generating',
      progress: { stepCount: 9, lastStepAt: now - 5_000 },
    });
    d.addMessage(ids.hung, { role: 'assistant', text: 'thinking' });
    ids.idle = d.addSession({ title: 'idle worker', state: 'idle' });
    d.addMessage(ids.idle, { role: 'assistant', text: 'I looked at it; I will write the fix next.' });
    ids.wall = d.addSession({ title: 'walled worker', state: 'idle' });
    d.addMessage(ids.wall, {
      role: 'assistant',
      finish: 'error',
      error: {
        text: 'Weekly usage limit reached [click](command:evil)',
        reason: 'account_usage_limit',
        provider: 'anthropic',
      },
    });
    ids.done = d.addSession({ title: 'finished worker', state: 'idle' });
    d.addMessage(ids.done, { role: 'assistant', text: 'ticket=PROJ-1 status=done pr=#11 summary="parser fixed"' });
    ids.blocked = d.addSession({ title: 'blocked worker', state: 'idle' });
    d.addMessage(ids.blocked, {
      role: 'assistant',
      text: 'ticket=PROJ-2 status=blocked reason=quota-exhausted summary="out of quota"',
    });
    await config().update('sampleSpacingSeconds', 30, vscode.ConfigurationTarget.Global);
    await setBackends([
      { name: 'spec backend', baseUrl: spec.url, directories: [SPEC_DIR] },
      { name: 'unreachable', baseUrl: 'http://127.0.0.1:9', directories: ['/nowhere'] },
    ]);
    await vscode.commands.executeCommand('sessionOps.sessions.focus');
  });

  after(async () => {
    await setBackends(undefined);
    await spec?.stop();
    await configureMonitor({ minSpacingMs: null });
  });

  it('samples while the view is visible; the first sample shows reports and quota walls, the rest unknown', async () => {
    await waitFor('the first sample', () => api.monitor.rows().length === 6, 30_000);
    assert.equal(api.monitor.isActive, true);
    assert.equal(rowOf('healthy worker')?.badge, 'unknown');
    assert.equal(rowOf('hung worker')?.badge, 'unknown', 'one sample never yields hung');
    assert.equal(rowOf('walled worker')?.badge, 'quota-wall');
    assert.equal(rowOf('finished worker')?.badge, 'report-done');
    if (hasBrowser()) {
      await waitFor('unknown rows in the tree', async () => (await rows(/hung worker, unknown/)).length === 1);
    }
    await screenshot('sessions-first-sample');
  });

  it('shows one error node with the reason for the unreachable backend, the other keeps working', async () => {
    const bad = api.monitor.backends().find((b) => b.config.name === 'unreachable')!;
    await waitFor('the unreachable backend in error', () => bad.status === 'error');
    assert.match(bad.error ?? '', /refused|connect/i);
    assert.equal(api.monitor.backends().find((b) => b.config.name === 'spec backend')?.status, 'ok');
    if (hasBrowser()) {
      // One error node under the backend (the Providers view shows the same reason once more).
      const errorRows = await waitFor('the error node', async () => {
        const r = await rows(/^GET \/session on http:\/\/127\.0\.0\.1:9\/.*(refused|connect)/i);
        return r.length > 0 ? r : undefined;
      });
      assert.ok(
        errorRows.length >= 1 && errorRows.length <= 2,
        `error rows: ${errorRows.map((r) => r.ariaLabel).join(' | ')}`,
      );
    }
  });

  it('after a second sample (spacing lowered to 3 s), every badge is right, with its description', async () => {
    // Keep the healthy session moving while the other generating one stays frozen.
    const d = spec.directory(SPEC_DIR);
    for (let i = 0; i < 3; i++) {
      await sleep(MIN_SPACING_MS / 3 + 100);
      d.step(ids.healthy, 2);
    }
    // A session that appears now has one sample only: its badge stays "unknown".
    ids.fresh = d.addSession({
      title: 'new worker',
      state: 'generating',
      progress: { stepCount: 1, lastStepAt: Date.now() },
    });
    await vscode.commands.executeCommand('sessionOps.refresh');
    await waitFor(
      'the second-sample verdicts',
      () => rowOf('hung worker')?.badge === 'hung' && rowOf('healthy worker')?.badge === 'healthy',
      60_000,
    );
    const expected: Record<string, string> = {
      'healthy worker': 'healthy',
      'hung worker': 'hung',
      'idle worker': 'idle',
      'walled worker': 'quota-wall',
      'finished worker': 'report-done',
      'blocked worker': 'report-blocked',
      'new worker': 'unknown',
    };
    for (const [title, badge] of Object.entries(expected)) assert.equal(rowOf(title)?.badge, badge, title);
    assert.equal(rowOf('hung worker')?.action, 'abort-and-wake');
    assert.equal(rowOf('idle worker')?.action, 'wake');
    assert.equal(rowOf('walled worker')?.action, 'recover');
    assert.equal(rowOf('finished worker')?.action, 'harvest');
    if (hasBrowser()) {
      const labels: Record<string, RegExp> = {
        'healthy worker': /healthy worker, healthy, step 9 · moved .* · openai\/gpt-x/,
        'hung worker': /hung worker, hung, step 9/,
        'idle worker': /idle worker, idle/,
        'walled worker': /walled worker, quota wall, .*resets \d{4}-\d\d-\d\d \d\d:\d\d \(in [12]h/,
        'finished worker': /finished worker, report: done, .*PROJ-1 done/,
        'blocked worker': /blocked worker, report: blocked/,
        'new worker': /new worker, unknown \(waiting for two samples\), step 1 · .*one sample only/,
      };
      for (const [title, re] of Object.entries(labels)) {
        await waitFor(`the rendered row of ${title}`, async () => (await rows(re)).length === 1, 15_000);
      }
    }
    await screenshot('sessions-all-badges');
  });

  it('counts sessions that need attention on the view badge and the status bar', async () => {
    // hung, quota wall, idle with unfinished work, two reports
    assert.equal(api.sessions.attentionCount(), 5);
    // The badge and the status bar follow a burst of changes a moment later.
    await waitFor(
      'the attention badge and the status bar updated',
      () => api.sessions.treeView.badge?.value === 5 && /7 · 5/.test(api.statusBar.item.text),
      5_000,
    );
    assert.equal(api.sessions.treeView.badge?.value, 5);
    assert.match(
      api.statusBar.summary(),
      /^7 sessions, 1 hung, 1 quota wall, 1 to wake, 2 reports, 1 backend unreachable$/,
    );
    assert.match(api.statusBar.item.text, /7 · 5/);
  });

  it('recycles the Sessions tree view past its item budget (VS Code keeps a store per item until then), keeping rows, badge, collapse and visibility', async () => {
    const view = api.sessions.treeView;
    const before = view.recycledCount;
    const budget = view.budget;
    try {
      if (hasBrowser()) {
        // The user collapses the unreachable backend: it stays collapsed in the new view.
        await click(`${SESSIONS_ROW}[aria-label^="unreachable"] .monaco-tl-twistie`);
        await waitFor(
          'the unreachable backend collapsed',
          async () => (await query(`${SESSIONS_ROW}[aria-expanded="false"][aria-label^="unreachable"]`)).length === 1,
        );
        // The workbench shows the collapse before the extension host hears of it.
        const unreachable = api.monitor.backends().find((b) => b.config.name === 'unreachable')!;
        await waitFor('the extension told of the collapse', () =>
          api.sessions.isCollapsed(nodeId('backend', unreachable.config.key)),
        );
      }
      view.budget = { hidden: 1, visible: 10 };
      // Whole refreshes hand VS Code ~10 items each: past the visible budget within two.
      for (let i = 0; i < 3; i++) {
        api.sessions.refresh();
        await sleep(400);
      }
      await waitFor('the view recycled', () => view.recycledCount > before, 15_000);
      assert.ok(view.itemsSinceCreated < 10 + 20, `the new view starts counting afresh (${view.itemsSinceCreated})`);
      assert.equal(view.visible, true, 'the recycled view still counts as visible');
      assert.equal(api.monitor.isActive, true, 'sampling did not stop while the view was recreated');
      assert.equal(view.badge?.value, 5, 'the attention badge carried over');
      if (hasBrowser()) {
        await waitFor(
          'the rows rendered again',
          async () => (await rows(/^(healthy|hung|idle|walled|finished|blocked) worker, /)).length === 6,
          15_000,
        );
        assert.equal(
          (await query(`${SESSIONS_ROW}[aria-expanded="false"][aria-label^="unreachable"]`)).length,
          1,
          'the collapsed backend stayed collapsed',
        );
        await screenshot('sessions-recycled');
        await click(`${SESSIONS_ROW}[aria-label^="unreachable"] .monaco-tl-twistie`);
        await waitFor(
          'the unreachable backend expanded again',
          async () => (await query(`${SESSIONS_ROW}[aria-expanded="true"][aria-label^="unreachable"]`)).length === 1,
        );
      }
    } finally {
      view.budget = budget;
    }
  });

  it('notified the hung transition once, and not the reports already there at the first sample', () => {
    const shown = api.notifier.shown;
    assert.deepEqual(
      shown.filter((s) => s.endsWith(ids.hung)),
      [`hung ${ids.hung}`],
    );
    assert.equal(shown.filter((s) => s.startsWith('report')).length, 0);
  });

  it('the Providers view lists connected and marked providers, reset times, and all-free; never options', async () => {
    await vscode.commands.executeCommand('sessionOps.providers.focus');
    const state = api.monitor.backends().find((b) => b.config.name === 'spec backend')!;
    assert.ok(state.providers);
    assert.ok(!JSON.stringify(state.providers).includes('sk-never-shown'), 'provider options must be dropped on read');
    if (hasBrowser()) {
      await waitFor(
        'the marked provider row',
        async () =>
          (await rows(/anthropic: connected, cooling down since 2\dm, resets .* \(in [12]h/i)).length === 1 ||
          (await rows(/Anthropic \(anthropic\)/)).length === 1,
        15_000,
      );
      await waitFor('the all-free row', async () => (await rows(/All free at \d{4}-/)).length === 1, 15_000);
      await waitFor('the free provider row', async () => (await rows(/OpenAI \(openai\)/)).length === 1, 15_000);
    }
    await screenshot('providers-view');
  });

  it('the password command stores into SecretStorage and the next request authenticates', async () => {
    const locked = await startSpecServer({ password: 's3cret' });
    try {
      locked.directory(SPEC_DIR).addSession({ title: 'behind a password', state: 'idle' });
      await setBackends([{ name: 'locked', baseUrl: locked.url, directories: [SPEC_DIR] }]);
      await vscode.commands.executeCommand('sessionOps.sessions.focus');
      const state = () => api.monitor.backends().find((b) => b.config.name === 'locked');
      await waitFor('the 401', () => state()?.status === 'error', 30_000);
      assert.match(state()!.error ?? '', /401|unauthori[sz]ed|credentials/i);
      const key = state()!.config.key;
      if (hasBrowser()) {
        const pending = vscode.commands.executeCommand('sessionOps.setPassword');
        const box = (kind: 'text' | 'password') =>
          `.quick-input-widget:not([style*="display: none"]) input${kind === 'password' ? '[type="password"]' : ':not([type="password"])'}`;
        const title = async (match: RegExp) =>
          (await query('.quick-input-widget:not([style*="display: none"]) .quick-input-title')).some((n) =>
            match.test(n.text),
          );
        await waitFor(
          'the user name box',
          async () => (await title(/^User name for locked/)) && (await query(box('text'))).length > 0,
          15_000,
        );
        await fill(box('text'), 'opencode', true);
        await waitFor(
          'the password box',
          async () => (await title(/^Password for locked/)) && (await query(box('password'))).length > 0,
          15_000,
        );
        await fill(box('password'), 's3cret', true);
        await settleWithin(pending, 30_000, 'Set Password...');
      } else {
        await api.passwords.set(key, { username: 'opencode', password: 's3cret' });
      }
      assert.deepEqual(await api.passwords.get(key), { username: 'opencode', password: 's3cret' });
      assert.ok(!JSON.stringify(config().inspect('backends')).includes('s3cret'), 'never in settings');
      await waitFor(
        'the authenticated sample',
        () => state()?.status === 'ok' && api.monitor.rows().length === 1,
        30_000,
      );
      assert.equal(locked.requests[locked.requests.length - 1].authorized, true);
    } finally {
      await setBackends(undefined);
      await locked.stop();
    }
  });

  it('a directory listing more sessions than are sampled per round says so on its first row', async () => {
    const crowded = await startSpecServer();
    try {
      const d = crowded.directory(SPEC_DIR);
      for (let i = 0; i < 1_005; i++) d.addSession({ title: `crowded ${i}`, state: 'idle' });
      await setBackends([{ name: 'crowded', baseUrl: crowded.url, directories: [SPEC_DIR] }]);
      await vscode.commands.executeCommand('sessionOps.sessions.focus');
      const dirState = () => api.monitor.backends().find((b) => b.config.name === 'crowded')?.directories[0];
      await waitFor(
        'the first round',
        () => dirState()?.truncated !== null && dirState()?.truncated !== undefined,
        60_000,
      );
      assert.deepEqual(dirState()!.truncated, { listed: 1_005, kept: 1_000 });
      assert.equal(dirState()!.rows.length, 1_000);
      if (hasBrowser()) {
        await waitFor(
          'the warning row',
          async () =>
            (await rows(/^1005 sessions listed; only the 1000 most recently updated were sampled/)).length === 1,
          30_000,
        );
      }
    } finally {
      await setBackends(undefined);
      await crowded.stop();
    }
  });

  describe('against the real opencode server', function () {
    let model: ScriptedModel;
    let oc: OpencodeServer;
    let dir: string;

    before(async () => {
      model = await startScriptedModel();
      oc = await startOpencode({
        modelUrl: model.url,
        apiKey: 'sk-local-never-shown',
        binary: findOpencodeBinary(process.env.SESSION_OPS_REPO_ROOT ?? process.cwd()),
      });
      dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-editor-oc-'));
    });
    after(async () => {
      await setBackends(undefined);
      model?.releaseStalls();
      await oc?.stop();
      await model?.stop();
    });

    const launch = (title: string, text: string): Promise<string> => launchSession(oc, dir, title, text);

    it('shows idle, report, hung and a balance wall on stock opencode, with the event stream', async () => {
      model.when('[lazy]', { kind: 'reply', text: 'I had a look; the fix comes next.' });
      model.when('[finish]', { kind: 'reply', text: 'Done.\nticket=OC-9 status=done pr=#3 summary="all green"' });
      model.when('[broke]', { kind: 'balance' });
      model.when('[stall]', { kind: 'stall' });
      const lazy = await launch('oc lazy', 'look [lazy]');
      const done = await launch('oc finished', 'fix [finish]');
      const stalled = await launch('oc stalled', 'think [stall]');
      await setBackends([{ name: 'opencode', baseUrl: oc.baseUrl, directories: [dir] }]);
      // Rounds every 4 s (the settings change above restored the configured 30 s): a settled
      // verdict needs a second round, not 30 s of real time.
      await configureMonitor({ minSpacingMs: MIN_SPACING_MS, spacingMs: 4_000 });
      await vscode.commands.executeCommand('sessionOps.sessions.focus');
      const byId = (id: string) => api.monitor.rows().find((r) => r.id === id);
      const describe = () =>
        api.monitor
          .rows()
          .map((r) => `${r.title}: ${r.badge} (${r.pending ?? r.action})`)
          .join('\n');
      await waitFor('the opencode rows', () => api.monitor.rows().length === 3, 60_000);
      assert.equal(api.monitor.backends()[0].dialect, 'opencode');
      await waitFor('the report', () => byId(done)?.badge === 'report-done', 60_000);
      await waitFor('the event stream', () => api.monitor.backends()[0].eventStream === 'open', 30_000);
      // Hung and idle need a second sample at least the minimum spacing after the first (a first
      // sample taken mid-turn disagrees on state with a later one: then the monitor samples again).
      await sleep(MIN_SPACING_MS + 500);
      await vscode.commands.executeCommand('sessionOps.refresh');
      try {
        await waitFor(
          'hung and idle verdicts',
          () => byId(stalled)?.badge === 'hung' && byId(lazy)?.badge === 'idle',
          75_000,
        );
      } catch (err) {
        throw new Error(`${(err as Error).message}\n${describe()}`, { cause: err });
      }
      assert.equal(byId(stalled)?.action, 'abort-and-wake');
      assert.equal(byId(done)?.action, 'harvest');
      assert.equal(byId(lazy)?.action, 'wake');
      // A 402 insufficient_quota: the event stream brings it in within seconds, as a balance wall.
      const broke = await launch('oc broke', 'go [broke]');
      await waitFor('the balance wall', () => byId(broke)?.badge === 'quota-wall', 30_000).catch((err: Error) => {
        throw new Error(`${err.message}\n${describe()}`);
      });
      assert.equal(byId(broke)?.quotaWall?.category, 'balance');
      // The action waits for a settled verdict (a second sample at least the minimum spacing later).
      await waitFor('escalation of the balance failure', () => byId(broke)?.action === 'escalate', 70_000).catch(
        (err: Error) => {
          throw new Error(`${err.message}\n${describe()}`);
        },
      );
      const providers = api.monitor.backends()[0].providers!;
      assert.ok(!JSON.stringify(providers).includes('sk-local-never-shown'));
      await waitFor(
        'the observed wall as a quota mark',
        () => api.monitor.backends()[0].providers?.providers.find((p) => p.id === 'local')?.quota,
        30_000,
      );
      if (hasBrowser()) {
        await waitFor(
          'the rendered opencode rows',
          async () =>
            (await rows(/oc finished, report: done/)).length === 1 &&
            (await rows(/oc broke, quota wall, .*balance: needs top-up/)).length === 1,
          15_000,
        );
      }
      await screenshot('sessions-opencode');
    });
  });
});
