// Operator.retry of a fact baseline the person sent with *I Hold the Authority* (authority rule 1):
// the retry sends the same text to the same worker, so it carries that confirmation (a person who
// clicks Retry is not asked again, and is not refused for what they already confirmed); a new
// send of the same text without it is still refused when the worker's record names another orchestrator.
import assert from 'node:assert/strict';
import { BackendClient } from '../../../../src/core/backend/client';
import { rowKey } from '../../../../src/core/ids';
import type { SessionRow } from '../../../../src/core/monitor/row';
import type { MonitorChange } from '../../../../src/core/monitor/sessionMonitor';
import { Operator, type OperatorMonitor } from '../../../../src/core/operations/operator';
import { composeFactBaseline } from '../../../../src/core/prompt/fact-baseline';
import { operatorDefaults } from '../../../../src/core/settings/operator-settings';
import { ManualTimers } from '../../../support/manual-timers';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const MODEL = { providerID: 'openai', modelID: 'gpt-5' };

function row(id: string): SessionRow {
  return {
    key: rowKey('spec', DIR, id),
    backendKey: 'spec',
    directory: DIR,
    id,
    title: 'worker',
    badge: 'idle',
    verdict: 'idle',
    action: 'wake',
    pending: null,
    state: 'idle',
    stepCount: null,
    lastMovedAt: null,
    model: null,
    quotaWall: null,
    report: null,
    failureText: null,
    newestText: null,
    evidence: {
      earlier: null,
      latest: {
        at: 0,
        state: 'idle',
        stepCount: null,
        lastStepAt: null,
        newestId: null,
        newestRole: null,
        newestAt: Date.now(),
      },
    },
  } as SessionRow;
}

const BASELINE = composeFactBaseline({
  event: 'the orchestrator restarted',
  facts: [{ statement: 'PR #34 merged', source: 'https://x/pr/34', at: '2026-11-27T11:00Z' }],
  invalidAssumptions: ['none'],
  assignment: { kind: 'task', step: 'rebase on main' },
  now: Date.UTC(2026, 10, 27),
  uncommittedFiles: [],
  report: { ticket: 'PROJ-7', orchestratorSessionId: 'ses_me1' },
});

describe('Operator.retry keeps the I Hold the Authority confirmation (issue 28 item 3)', function () {
  let server: SpecServer;
  let client: BackendClient;
  let rows: SessionRow[];
  let op: Operator;

  beforeEach(async () => {
    server = await startSpecServer();
    server.answerPrompts = { delayMs: 50, text: 'Rebasing.' };
    client = new BackendClient({ baseUrl: server.url });
    server.setProviders([{ id: 'openai', models: ['gpt-5'] }], ['openai']);
    const monitor: OperatorMonitor = {
      rows: () => rows,
      row: (key) => rows.find((r) => r.key === key),
      client: async () => client,
      nudge: () => undefined,
      minSpacingMs: () => 50,
      onDidChange: () => () => undefined,
    };
    void ({} as MonitorChange);
    op = new Operator({
      authority: () => ({ orchestrator: 'ses_me1', ticket: null }),
      monitor,
      settings: operatorDefaults(),
      log: () => undefined,
      timers: new ManualTimers(),
      inventory: () => [],
      waits: { abortMs: 3000, confirmMs: 3000 },
    });
  });
  afterEach(async () => {
    op.dispose();
    await client.close();
    await server.stop();
  });

  /** A worker assigned by another orchestrator (its first user message), idle after answering. */
  function worker(): SessionRow {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'worker' });
    d.addMessage(id, { role: 'user', text: 'Build the parser. ticket: PROJ-7, orchestrator session ses_other9' });
    d.addMessage(id, { text: 'Done with step 1.', info: { providerID: 'openai', modelID: 'gpt-5' } });
    rows = [row(id)];
    return rows[0];
  }

  it('confirmed, the send failed: the retry carries the confirmation and sends the same fact baseline', async () => {
    const r = worker();
    server.fault({ method: 'POST', path: /prompt_async/, status: 500, body: '{"error":"boom"}' });
    const first = await op.send(r, BASELINE, MODEL, { promptOrigin: 'fact-baseline', holdsAuthority: true });
    assert.ok(first.undelivered, `${first.outcome}: ${first.rowText}`);
    assert.equal(server.prompts.length, 0);
    const again = await op.retry(first);
    assert.doesNotMatch(again.message, /authority rule 1/);
    assert.equal(again.outcome, 'confirmed', again.message);
    assert.equal(server.prompts.length, 1, `${again.outcome}: ${again.rowText}`);
    assert.equal(server.prompts[0].payload.parts[0].text.includes('rebase on main'), true);
  });

  it('the confirmation belongs to that outcome: a new send of the same text without it is still refused by rule 1', async () => {
    const r = worker();
    server.fault({ method: 'POST', path: /prompt_async/, status: 500, body: '{"error":"boom"}' });
    const first = await op.send(r, BASELINE, MODEL, { promptOrigin: 'fact-baseline', holdsAuthority: true });
    assert.ok(first.undelivered);
    const unconfirmed = await op.send(r, BASELINE, MODEL, { promptOrigin: 'fact-baseline' });
    assert.equal(unconfirmed.outcome, 'refused');
    assert.match(unconfirmed.message, /authority rule 1/);
    assert.equal(server.prompts.length, 0);
  });
});
