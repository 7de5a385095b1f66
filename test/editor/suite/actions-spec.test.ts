// The parts of the actions only the spec dialect can show (quota objects with reset times): a
// recovery with no free provider and a reset within reach schedules one retry for after the reset
// (on the row, cancellable) and sends nothing; Dispatch runs the pre-dispatch check (a marked
// intended provider is refused, naming the one to use instead) and appends the completion-report
// block; automatic mode wakes an idle session once, on a settled verdict, and never twice on one.
import { strict as assert } from 'node:assert';
import * as vscode from 'vscode';
import type { SessionRow } from '../../../src/core/monitor/row';
import type { SessionOpsApi } from '../../../src/extension/extension';
import { startSpecServer, type SpecServer } from '../../support/spec-server';
import { waitFor } from './harness';

const DIR = '/work/spec-actions';
const MIN_SPACING_MS = 3_000;
const configureMonitor = (settings: { minSpacingMs?: number | null; spacingMs?: number }) =>
  vscode.commands.executeCommand('sessionOps.test.configureMonitor', settings);
const config = () => vscode.workspace.getConfiguration('sessionOps');
const models = (...ids: string[]) => Object.fromEntries(ids.map((id) => [id, { id, name: id }]));

describe('Session actions against the spec-dialect server', function () {
  this.timeout(300_000);
  let api: SessionOpsApi;
  let spec: SpecServer;
  const byTitle = (title: string): SessionRow | undefined => api.monitor.rows().find((r) => r.title === title);
  const settled = (title: string, what: string, pred: (r: SessionRow) => boolean) =>
    waitFor(
      what,
      async () => {
        const r = byTitle(title);
        if (r && pred(r)) return r;
        await vscode.commands.executeCommand('sessionOps.refresh');
        return undefined;
      },
      60_000,
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
    spec = await startSpecServer();
    spec.answerPrompts = {
      delayMs: 300,
      text: (rec) =>
        rec.payload.parts[0].text.includes('AUTO-TASK') || byTitle('auto worker')?.id === rec.sessionId
          ? 'ticket=AUTO-1 status=done summary="woken and finished"'
          : 'Resumed.',
    };
    const now = Date.now();
    spec.setProviders([{ id: 'anthropic', name: 'Anthropic', models: models('claude') }], ['anthropic']);
    spec.setQuota('anthropic', { markedAt: now - 60_000, resetAt: now + 30 * 60_000 });
    const d = spec.directory(DIR);
    const walled = d.addSession({ title: 'walled worker', state: 'idle' });
    d.addMessage(walled, {
      role: 'assistant',
      finish: 'error',
      error: {
        text: 'Weekly usage limit reached',
        reason: 'account_usage_limit',
        provider: 'anthropic',
        resetAt: now + 30 * 60_000,
      },
      info: { providerID: 'anthropic', modelID: 'claude' },
    });
    const fresh = d.addSession({ title: 'fresh worker', state: 'idle' });
    d.addMessage(fresh, {
      role: 'assistant',
      text: 'Ready for a task.',
      info: { providerID: 'anthropic', modelID: 'claude' },
    });
    await config().update(
      'backends',
      [{ name: 'spec actions', baseUrl: spec.url, directories: [DIR] }],
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
    await config().update('automatic.wakeIdle', undefined, vscode.ConfigurationTarget.Global);
    await config().update('backends', undefined, vscode.ConfigurationTarget.Global);
    await spec?.stop();
    await configureMonitor({ minSpacingMs: null });
  });

  it('Recover with no free provider and a reset within reach schedules one retry after the reset, cancellable, and sends nothing', async () => {
    const row = await settled('walled worker', 'wait-for-reset', (r) => r.action === 'wait-for-reset');
    await vscode.commands.executeCommand('sessionOps.recover', row);
    const op = api.operations.get(row.key);
    assert.equal(op?.outcome, 'scheduled', JSON.stringify(op));
    assert.ok(op?.at && op.at > Date.now() + 25 * 60_000, 'scheduled for after the reset');
    assert.equal(spec.prompts.length, 0, 'nothing sent');
    assert.equal(spec.aborts.length, 0, 'an idle wall needs no abort');
    assert.equal(api.operations.scheduled(row.key), true);
    await vscode.commands.executeCommand('sessionOps.cancelScheduledRetry', row);
    assert.equal(api.operations.get(row.key)?.outcome, 'cancelled');
  });

  it('Dispatch: the pre-dispatch check refuses a marked provider and names another; the sent task carries the report block', async () => {
    spec.setProviders(
      [
        { id: 'anthropic', name: 'Anthropic', models: models('claude') },
        { id: 'openai', name: 'OpenAI', models: models('gpt-x') },
        { id: 'local', name: 'Local', models: models('m1') },
      ],
      ['anthropic', 'openai', 'local'],
    );
    spec.setQuota('anthropic', { markedAt: Date.now() - 60_000, resetAt: Date.now() + 30 * 60_000 });
    await vscode.commands.executeCommand('sessionOps.refresh');
    const row = await settled('fresh worker', 'the idle fresh worker', (r) => r.verdict === 'idle');
    const doc = await api.prompts.open('Port the ledger export (DISPATCH-TASK).', {
      backendKey: row.backendKey,
      directory: row.directory,
      sessionId: row.id,
      label: 'fresh worker',
      origin: 'dispatch',
      model: { providerID: 'anthropic', modelID: 'claude' },
      modelBasis: 'test',
      dispatch: true,
    });
    await vscode.commands.executeCommand('sessionOps.sendPrompt', doc.uri);
    const refused = api.operations.get(row.key);
    assert.equal(refused?.outcome, 'refused', JSON.stringify(refused));
    assert.match(refused?.text ?? '', /openai|local/, 'names the provider to use instead');
    assert.equal(spec.prompts.length, 0);
    assert.ok(api.prompts.target(doc.uri), 'the task stays in its document');
    api.prompts.setModel(doc.uri, { providerID: 'openai', modelID: 'gpt-x' }, 'test');
    await vscode.commands.executeCommand('sessionOps.sendPrompt', doc.uri);
    assert.equal(api.operations.get(row.key)?.outcome, 'confirmed', JSON.stringify(api.operations.get(row.key)));
    assert.equal(spec.prompts.length, 1);
    const sent = spec.prompts[0].payload;
    assert.deepEqual(sent.model, { providerID: 'openai', modelID: 'gpt-x' });
    assert.match(
      sent.parts[0].text,
      /DISPATCH-TASK[\s\S]*reason=quota-exhausted/,
      'the task, then the completion-report block with the quota self-report clause',
    );
  });

  it('automatic mode wakes an idle session once, on a settled verdict, never twice on one verdict', async () => {
    const d = spec.directory(DIR);
    const id = d.addSession({ title: 'auto worker', state: 'idle' });
    d.addMessage(id, {
      role: 'assistant',
      text: 'Half done; more to do.',
      info: { providerID: 'openai', modelID: 'gpt-x' },
    });
    const firstSeen = Date.now();
    await config().update('automatic.wakeIdle', true, vscode.ConfigurationTarget.Global);
    // Rounds every 4 s (the settings change restored the configured 30 s): the settled verdict's
    // second sample comes with the next round, not 30 s of real time later.
    await configureMonitor({ minSpacingMs: MIN_SPACING_MS, spacingMs: 4_000 });
    await vscode.commands.executeCommand('sessionOps.refresh');
    const prompt = await waitFor('the automatic wake', () => spec.prompts.find((p) => p.sessionId === id), 60_000);
    assert.ok(prompt.at - firstSeen >= MIN_SPACING_MS, 'never on one snapshot: only after a settled verdict');
    assert.ok(
      prompt.payload.model && prompt.payload.model.providerID !== 'anthropic',
      'an explicit model, never the marked provider',
    );
    await settled('auto worker', 'the report after the automatic wake', (r) => r.report?.status === 'done');
    // More rounds: the verdict is now harvest; nothing is sent again.
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setTimeout(r, MIN_SPACING_MS));
      await vscode.commands.executeCommand('sessionOps.refresh');
    }
    assert.equal(spec.prompts.filter((p) => p.sessionId === id).length, 1, 'exactly one automatic wake');
    await config().update('automatic.wakeIdle', undefined, vscode.ConfigurationTarget.Global);
  });
});
