// The operator against the stateful spec-dialect server: scheduled retries (fire, cancel, settings
// change in between), the session lock, and automatic actions through the same path as a click.
import assert from 'node:assert/strict';
import { BackendClient } from '../../../../src/core/backend/client';
import { rowKey } from '../../../../src/core/keys';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { operatorDefaults, type OperatorSettings } from '../../../../src/core/settings/operator-settings';
import type { ActionOutcome } from '../../../../src/core/operations/action-outcome';
import { Operator } from '../../../../src/core/operations/operator';
import { RETRY_AFTER_RESET_MS } from '../../../../src/core/operations/retries';
import type { LockOutcome, LockRequest } from '../../../../src/core/state/session-locker';
import { InProcessSessionLock } from '../../../../src/core/operations/session-lock';
import { ManualClock } from '../../../support/manual-clock';
import { rowsMonitor, sessionRow } from '../../../support/session-rows';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const HOUR = 3_600_000;
const BACKEND = 'spec';

/** A lock that records every key it was asked for. */
class RecordingLock extends InProcessSessionLock {
  readonly asked: string[] = [];
  override withSessionLock<T>(key: string, request: LockRequest, body: () => Promise<T>): Promise<LockOutcome<T>> {
    this.asked.push(key);
    return super.withSessionLock(key, request, body);
  }
}

const row = (id: string, over: Partial<SessionRow> = {}): SessionRow =>
  sessionRow({ id, title: `worker ${id}`, ...over }, { backendKey: BACKEND, directory: DIR });

describe('core/operations/operator', function () {
  let server: SpecServer;
  let client: BackendClient;
  let fleet: ReturnType<typeof rowsMonitor>;
  let timers: ManualClock;
  let lock: RecordingLock;
  let operator: Operator;
  let settings: OperatorSettings;

  const nextOutcome = () => new Promise<ActionOutcome>((resolve) => operator.onDidAct(resolve));
  const walled = (id: string) =>
    row(id, {
      badge: 'quota-wall',
      action: 'recover',
      quotaWall: { provider: 'anthropic', reason: 'account_usage_limit', category: 'usage-limit', resetAt: null },
      failureText: 'Weekly usage limit reached',
    });

  beforeEach(async () => {
    server = await startSpecServer();
    server.answerPrompts = { delayMs: 50, text: 'Resumed.' };
    client = new BackendClient({ baseUrl: server.url });
    fleet = rowsMonitor(() => client);
    timers = new ManualClock(undefined, { realSleeps: true });
    lock = new RecordingLock();
    settings = { ...operatorDefaults(), resetWithinReachMinutes: 120 };
    operator = new Operator({
      monitor: fleet.monitor,
      settings,
      log: () => undefined,
      clock: timers,
      lock,
      inventory: () => [],
      waits: { abortMs: 3000, confirmMs: 3000 },
    });
  });
  afterEach(async () => {
    operator.dispose();
    await client.close();
    await server.stop();
  });

  /** An idle session at a quota wall of anthropic, with openai marked until an hour from now. */
  function wallWithResetInReach(): SessionRow {
    const now = Date.now();
    server.setProviders(
      [
        { id: 'anthropic', models: ['sonnet'] },
        { id: 'openai', models: ['gpt-5'] },
        { id: 'groq', models: ['llama'] },
      ],
      ['anthropic', 'openai'],
    );
    server.setQuota('openai', { markedAt: now - 1000, resetAt: now + HOUR });
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'walled' });
    d.addMessage(id, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    const r = walled(id);
    fleet.setRows([r]);
    return r;
  }

  it('a recovery with a reset within reach schedules one retry; it fires after the reset and recovers with the settings current then', async () => {
    const r = wallWithResetInReach();
    const scheduled = (await operator.recover({ target: r })).outcome;
    assert.equal(scheduled.outcome, 'scheduled', scheduled.message);
    assert.ok(scheduled.at && scheduled.at > Date.now() + HOUR / 2);
    assert.equal(operator.book.scheduled(r.key), true);
    assert.match(scheduled.rowText, /^retry scheduled /);
    assert.equal(server.prompts.length, 0, 'nothing sent while waiting for the reset');

    // The settings change while the retry waits: it stays, and reads the new settings when it fires.
    operator.updateSettings({ ...settings, 'recovery.providers': ['groq'] });
    assert.ok(operator.retries.get(r.key), 'the retry survives the settings change');
    server.setQuota('openai', null);
    server.setProviders(
      [
        { id: 'anthropic', models: ['sonnet'] },
        { id: 'openai', models: ['gpt-5'] },
        { id: 'groq', models: ['llama'] },
      ],
      ['anthropic', 'openai', 'groq'],
    );
    const fired = nextOutcome();
    timers.advance(HOUR - 1);
    assert.equal(timers.size, 1, 'not before the reset');
    timers.advance(2 * RETRY_AFTER_RESET_MS);
    const o = await fired;
    assert.equal(o.action, 'recover');
    assert.equal(o.automatic, true, 'a fired retry is not a click');
    assert.ok(o.outcome === 'confirmed' || o.outcome === 'not-confirmed', `${o.outcome}: ${o.message}`);
    assert.equal(server.prompts.length, 1);
    assert.equal(server.prompts[0].payload.model?.providerID, 'groq', 'the provider scope set after scheduling');
    assert.equal(operator.retries.get(r.key), undefined);
  });

  it('a scheduled retry is cancelled: the row says so and nothing fires', async () => {
    const r = wallWithResetInReach();
    assert.equal((await operator.recover({ target: r })).outcome.outcome, 'scheduled');
    assert.equal(operator.cancelScheduled(r.key), true);
    assert.equal(operator.book.get(r.key)?.outcome, 'cancelled');
    assert.equal(timers.size, 0, 'the timer is gone');
    const seen: ActionOutcome[] = [];
    operator.onDidAct((o) => seen.push(o));
    timers.advance(2 * HOUR);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(seen, []);
    assert.equal(server.prompts.length, 0);
    assert.equal(operator.cancelScheduled(r.key), false, 'nothing left to cancel');
  });

  it('the automatic policy runs the same action path a click does: the lock, the book, the outcome', async () => {
    server.setProviders([{ id: 'openai', models: ['gpt-5'] }], ['openai']);
    const d = server.directory(DIR);
    const clicked = d.addSession({ state: 'idle', title: 'clicked' });
    const automatic = d.addSession({ state: 'idle', title: 'automatic' });
    const newest = [clicked, automatic].map((id) =>
      d.addMessage(id, { text: 'I will continue later', info: { providerID: 'openai', modelID: 'gpt-5' } }),
    );
    fleet.setRows([row(clicked)]);

    const byClick = (await operator.wake({ target: row(clicked) })).outcome;
    assert.equal(byClick.outcome, 'confirmed', byClick.message);

    operator.updateSettings({ ...settings, 'automatic.wakeIdle': true });
    // The row the policy decides on carries the session's newest message (an automatic wake re-verifies it).
    const sampled = row(automatic).evidence.latest;
    fleet.setRows([row(automatic, { evidence: { earlier: null, latest: { ...sampled, newestId: newest[1] } } })]);
    const acted = nextOutcome();
    fleet.changed();
    const byPolicy = await acted;
    assert.equal(byPolicy.sessionId, automatic);
    assert.equal(byPolicy.automatic, true);
    assert.deepEqual(
      [byPolicy.action, byPolicy.outcome, byPolicy.rowText],
      [byClick.action, byClick.outcome, byClick.rowText],
      'the same action, outcome and row text as the click',
    );
    assert.ok(lock.asked.includes(rowKey(BACKEND, DIR, automatic)), 'it took the session lock like a click');
    assert.equal(operator.book.get(rowKey(BACKEND, DIR, automatic))?.outcome, 'confirmed');
    const sent = server.prompts.filter((p) => p.sessionId === automatic);
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0].payload.model, { providerID: 'openai', modelID: 'gpt-5' });
  });

  /** A generating session on the server that spent 2 USD (over any budget below), and its row at 100 %. */
  function spender(): { id: string; over: SessionRow } {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', title: 'spender' });
    d.addMessage(id, { text: 'working', info: { providerID: 'openai', modelID: 'gpt-5' } });
    const cost = { usd: 2, tokens: { input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, messages: null };
    const over = row(id, {
      state: 'generating',
      verdict: 'healthy',
      action: 'leave-alone',
      badge: 'healthy',
      cost,
      budgetLevel: 100,
    });
    return { id, over };
  }

  it('over budget: automatic.abortOverBudget aborts through the same path (the lock, the outcome, logged), once; off: nothing', async () => {
    const logs: string[] = [];
    operator.dispose();
    operator = new Operator({
      monitor: fleet.monitor,
      settings,
      log: (_level, message) => logs.push(message),
      clock: timers,
      lock,
      inventory: () => [],
      waits: { abortMs: 3000, confirmMs: 3000 },
    });
    const { id, over } = spender();
    fleet.setRows([over]);
    operator.updateSettings({ ...settings, 'automatic.wakeIdle': true, 'budget.sessionUsd': 1 });
    fleet.changed();
    assert.equal(server.aborts.length, 0, 'abortOverBudget off: nothing, and never woken');

    operator.updateSettings({ ...settings, 'automatic.abortOverBudget': true, 'budget.sessionUsd': 1 });
    const acted = nextOutcome();
    fleet.changed();
    const o = await acted;
    assert.deepEqual([o.action, o.automatic, o.sessionId], ['abort', true, id]);
    assert.equal(server.aborts.filter((a) => a.sessionId === id).length, 1);
    assert.ok(lock.asked.includes(rowKey(BACKEND, DIR, id)), 'under the session lock');
    assert.ok(
      logs.some((l) => l.startsWith(`automatic abort on ${id}`) && l.includes('over budget')),
      logs.join('\n'),
    );
    fleet.changed();
    assert.equal(server.aborts.filter((a) => a.sessionId === id).length, 1, 'never twice on one verdict');
  });

  it("automatic mode decides only on a sample read after the session's last act ended: a round begun before an abort, committed after it, is no new verdict", async () => {
    const { id, over } = spender();
    const overBudget = (newestId: string, readFrom: number): SessionRow => ({
      ...over,
      evidence: {
        earlier: null,
        latest: { ...over.evidence.latest, state: 'generating', newestId, at: readFrom + 40, readFrom },
      },
    });
    operator.updateSettings({ ...settings, 'automatic.abortOverBudget': true, 'budget.sessionUsd': 1 });
    const readBefore = timers.now();
    fleet.setRows([overBudget('msg_a', readBefore - 20)]);
    const first = nextOutcome();
    fleet.changed();
    assert.equal((await first).action, 'abort');
    assert.equal(server.aborts.filter((a) => a.sessionId === id).length, 1);

    // The round that began before the abort ended commits now: still generating, a newer message
    // (streamed before the abort landed). A new verdict key, but read before the act: not acted on.
    fleet.setRows([overBudget('msg_b', readBefore - 10)]);
    timers.advance(1_000);
    fleet.changed();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(server.aborts.filter((a) => a.sessionId === id).length, 1, 'no second abort on a stale read');

    // A sample read after the act ended that still shows it generating over budget is a new verdict.
    const second = nextOutcome();
    fleet.setRows([overBudget('msg_c', timers.now())]);
    timers.advance(40);
    fleet.changed();
    assert.equal((await second).action, 'abort');
    assert.equal(server.aborts.filter((a) => a.sessionId === id).length, 2);
  });

  it('an action on a session whose lock is held does nothing and says so', async () => {
    server.setProviders([{ id: 'openai', models: ['gpt-5'] }], ['openai']);
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const r = row(id);
    fleet.setRows([r]);
    let release!: () => void;
    const holding = lock.withSessionLock(
      r.key,
      { purpose: 'test' },
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    const { outcome: o } = await operator.wake({ target: r });
    assert.equal(o.outcome, 'busy');
    assert.equal(o.notice?.level, 'info');
    assert.equal(server.prompts.length, 0);
    release();
    await holding;
  });
});
