// Operator.retry of a fact baseline the person sent with *I Hold the Authority* (authority rule 1):
// the retry sends the same text to the same worker, so it carries that confirmation (a person who
// clicks Retry is not asked again, and is not refused for what they already confirmed); a new
// send of the same text without it is still refused when the worker's record names another orchestrator.
import assert from 'node:assert/strict';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { Operator } from '../../../../src/core/operations/operator';
import { composeFactBaseline } from '../../../../src/core/prompt/fact-baseline';
import { operatorDefaults } from '../../../../src/core/settings/operator-settings';
import { ManualClock } from '../../../support/manual-clock';
import { idleEvidence, rowsMonitor, sessionRow } from '../../../support/session-rows';
import { startSpecActions } from '../../../support/spec-actions';
import type { SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const MODEL = { providerID: 'openai', modelID: 'gpt-5' };

function row(id: string): SessionRow {
  return sessionRow(
    { id, title: 'worker', evidence: idleEvidence({ newestId: null, newestRole: null }) },
    { backendKey: 'spec', directory: DIR },
  );
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
  let stop: () => Promise<void>;
  let fleet: ReturnType<typeof rowsMonitor>;
  let op: Operator;

  beforeEach(async () => {
    const spec = await startSpecActions({
      answerMs: 50,
      answerText: 'Rebasing.',
      providers: { listed: [{ id: 'openai', models: ['gpt-5'] }], connected: ['openai'] },
    });
    ({ server, stop } = spec);
    fleet = rowsMonitor(() => spec.client);
    op = new Operator({
      authority: () => ({ orchestrator: 'ses_me1', ticket: null }),
      monitor: fleet.monitor,
      settings: operatorDefaults(),
      log: () => undefined,
      clock: new ManualClock(undefined, { realSleeps: true }),
      inventory: () => [],
      waits: { abortMs: 3000, confirmMs: 3000 },
    });
  });
  afterEach(async () => {
    op.dispose();
    await stop();
  });

  /** A worker assigned by another orchestrator (its first user message), idle after answering. */
  function worker(): SessionRow {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'worker' });
    d.addMessage(id, { role: 'user', text: 'Build the parser. ticket: PROJ-7, orchestrator session ses_other9' });
    d.addMessage(id, { text: 'Done with step 1.', info: { providerID: 'openai', modelID: 'gpt-5' } });
    const r = row(id);
    fleet.setRows([r]);
    return r;
  }

  it('confirmed, the send failed: the retry carries the confirmation and sends the same fact baseline', async () => {
    const r = worker();
    server.fault({ method: 'POST', path: /prompt_async/, status: 500, body: '{"error":"boom"}' });
    const first = (
      await op.send({ target: r, text: BASELINE, model: MODEL, promptOrigin: 'fact-baseline', holdsAuthority: true })
    ).outcome;
    assert.ok(first.undelivered, `${first.outcome}: ${first.rowText}`);
    assert.equal(server.prompts.length, 0);
    const again = (await op.retry(first)).outcome;
    assert.doesNotMatch(again.message, /authority rule 1/);
    assert.equal(again.outcome, 'confirmed', again.message);
    assert.equal(server.prompts.length, 1, `${again.outcome}: ${again.rowText}`);
    assert.equal(server.prompts[0].payload.parts[0].text.includes('rebase on main'), true);
  });

  it('the confirmation belongs to that outcome: a new send of the same text without it is still refused by rule 1', async () => {
    const r = worker();
    server.fault({ method: 'POST', path: /prompt_async/, status: 500, body: '{"error":"boom"}' });
    const first = (
      await op.send({ target: r, text: BASELINE, model: MODEL, promptOrigin: 'fact-baseline', holdsAuthority: true })
    ).outcome;
    assert.ok(first.undelivered);
    const unconfirmed = (await op.send({ target: r, text: BASELINE, model: MODEL, promptOrigin: 'fact-baseline' }))
      .outcome;
    assert.equal(unconfirmed.outcome, 'refused');
    assert.match(unconfirmed.message, /authority rule 1/);
    assert.equal(server.prompts.length, 0);
  });
});
