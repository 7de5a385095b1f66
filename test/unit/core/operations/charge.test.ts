// Automatic mode acts only on sessions in its charge (issue 28 item 1): never a sub-agent, never a
// session whose newest message is too old (or of unknown time), never a stuck one (woken
// automatic.maxConsecutiveWakes times without a report: a person decides), and with
// automatic.onlyTicketed only a session whose task names a ticket. The rules (pure), then the
// operator over the spec-dialect server: what it sends, what the row says, what survives a restart.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackendClient } from '../../../../src/core/backend/client';
import { resolveAuthority } from '../../../../src/core/actions/authority';
import type { SessionRow } from '../../../../src/core/monitor/row';
import {
  mergeStreaks,
  outOfCharge,
  personActed,
  ticketReference,
  wakeKey,
  WakeStreaks,
  type ChargeFacts,
} from '../../../../src/core/operations/charge';
import type { ActionOutcome } from '../../../../src/core/operations/action-outcome';
import { Operator, WAKES_REREAD_MS } from '../../../../src/core/operations/operator';
import { operatorStateFile, parseOperatorState } from '../../../../src/core/operations/state-store-operator';
import {
  chargeSettings,
  operatorDefaults,
  type OperatorSettings,
} from '../../../../src/core/settings/operator-settings';
import { ManualClock } from '../../../support/manual-clock';
import { rowsMonitor, sessionRow } from '../../../support/session-rows';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const HOUR = 3_600_000;
const NOW = 1_800_000_000_000;
const DEFAULTS = chargeSettings(operatorDefaults());
const facts = (over: Partial<ChargeFacts> = {}): ChargeFacts => ({ now: NOW, wakes: 0, ticket: null, ...over });
const fresh = (over: Partial<SessionRow> = {}, newestAt: number | null = NOW - HOUR): SessionRow => {
  const r = sessionRow(over);
  return { ...r, evidence: { ...r.evidence, latest: { ...r.evidence.latest, newestAt } } };
};

describe('core/operations/charge: the rules', () => {
  it('a recent session with unfinished work is in its charge', () => {
    assert.equal(outOfCharge(fresh(), DEFAULTS, facts()), null);
  });

  it('a sub-agent session (one with a parent) never is', () => {
    const skip = outOfCharge(fresh({ parentId: 'ses_parent' }), DEFAULTS, facts());
    assert.equal(skip?.reason, 'sub-agent');
    assert.match(skip!.text, /ses_parent/);
  });

  it('a session whose newest message is older than automatic.maxAgeHours is not; its time unknown, not either', () => {
    assert.equal(outOfCharge(fresh({}, NOW - 24 * HOUR), DEFAULTS, facts()), null, 'exactly 24 h: still in');
    const old = outOfCharge(fresh({}, NOW - 90 * 24 * HOUR), DEFAULTS, facts());
    assert.equal(old?.reason, 'too-old');
    assert.match(old!.text, /90 d old/);
    assert.equal(outOfCharge(fresh({}, NOW - 2 * HOUR), { ...DEFAULTS, maxAgeMs: HOUR }, facts())?.reason, 'too-old');
    const unknown = outOfCharge(fresh({}, null), DEFAULTS, facts());
    assert.equal(unknown?.reason, 'age-unknown');
    assert.match(unknown!.text, /unknown/);
  });

  it('stuck: needing a wake again after maxConsecutiveWakes automatic wakes without a report', () => {
    assert.equal(outOfCharge(fresh(), DEFAULTS, facts({ wakes: 2 })), null);
    const stuck = outOfCharge(fresh(), DEFAULTS, facts({ wakes: 3 }));
    assert.equal(stuck?.reason, 'stuck');
    assert.match(stuck!.text, /^stuck: woken 3 times without a report/);
    assert.equal(outOfCharge(fresh(), { ...DEFAULTS, maxConsecutiveWakes: 5 }, facts({ wakes: 3 })), null);
    for (const action of ['abort-and-wake', 'recover'] as const)
      assert.equal(outOfCharge(fresh({ action }), DEFAULTS, facts({ wakes: 3 }))?.reason, 'stuck', action);
    assert.equal(
      outOfCharge(
        fresh({ state: 'generating', verdict: 'healthy', action: 'leave-alone' }),
        DEFAULTS,
        facts({ wakes: 3 }),
      ),
      null,
      'while it works after the last wake it is not stuck (yet)',
    );
  });

  it('a ticket reference in a first user message: PROJECT-123 or #123, not a standard that reads like one', () => {
    for (const t of ['PAY-12', 'AB-1', 'OPS2-4711', '#42']) assert.equal(ticketReference(t), t, t);
    for (const t of ['UTF-8', 'ISO-8601', 'SHA-256', 'RFC-9110', 'GPT-4', 'pay-12', 'PAY-0', 'P-12', '#0', null, ''])
      assert.equal(ticketReference(t), null, String(t));
  });

  it('automatic.onlyTicketed: only a session whose task names a ticket', () => {
    const only = { ...DEFAULTS, onlyTicketed: true };
    assert.equal(outOfCharge(fresh(), only, facts())?.reason, 'not-ticketed');
    assert.equal(outOfCharge(fresh(), only, facts({ ticket: 'PAY-12' })), null);
    assert.equal(outOfCharge(fresh(), DEFAULTS, facts()), null, 'off by default');
  });

  it('the wake count: a reset outlives an older count in a merge; entries a month unchanged are forgotten', () => {
    let t = NOW;
    const streaks = new WakeStreaks(() => t);
    assert.equal(streaks.woke('k'), 1);
    assert.equal(streaks.woke('k'), 2);
    const older = streaks.memory();
    t += 1000;
    assert.equal(streaks.reset('k'), true);
    assert.equal(streaks.reset('k'), false, 'nothing to reset');
    const merged = mergeStreaks(older, streaks.memory(), t);
    assert.deepEqual(merged.k, { count: 0, changedAt: t });
    assert.deepEqual(mergeStreaks(older, {}, t + 31 * 24 * HOUR), {}, 'forgotten after the keep time');
    const back = new WakeStreaks(() => t);
    back.remember(older);
    back.remember(streaks.memory());
    assert.equal(back.count('k'), 0, 'the newest change wins');
  });

  it('the operator state keeps wake counts and dispatches; malformed entries are dropped', () => {
    const state = parseOperatorState({
      version: 1,
      wakes: { a: { count: 3, changedAt: 5 }, b: { count: -1, changedAt: 5 }, c: 'x' },
      dispatched: { a: { ticket: 'PAY-1', at: 5 }, b: { ticket: 7, at: 5 }, c: { ticket: null, at: 6 } },
    });
    assert.deepEqual(state.wakes, { a: { count: 3, changedAt: 5 } });
    assert.deepEqual(state.dispatched, { a: { ticket: 'PAY-1', at: 5 }, c: { ticket: null, at: 6 } });
  });
});

describe('core/operations/charge: the operator acts only in its charge', function () {
  const DIR = '/work/project';
  const BACKEND = 'spec';
  let server: SpecServer;
  let client: BackendClient;
  let fleet: ReturnType<typeof rowsMonitor>;
  let timers: ManualClock;
  let settings: OperatorSettings;
  let operator: Operator;
  let stateDir: string;
  let logs: string[];

  const make = () =>
    new Operator({
      // The orchestrator its prompts speak for (authority rule 2: it wakes only workers it assigned or nobody did).
      authority: () => ({ orchestrator: 'ses_orch', ticket: null }),
      monitor: fleet.monitor,
      settings,
      log: (_l, m) => logs.push(m),
      clock: timers,
      inventory: () => [],
      waits: { abortMs: 3000, confirmMs: 3000 },
      state: operatorStateFile(stateDir, () => timers.now()),
    });
  const nextOutcome = () => new Promise<ActionOutcome>((resolve) => operator.onDidAct(resolve));

  /** The row of an idle session as sampled now: its newest message (id and time) read from the server. */
  function sampled(id: string, over: Partial<SessionRow> = {}): SessionRow {
    const messages = server.directory(DIR).sessions.get(id)!.messages;
    const newest = messages[messages.length - 1];
    const r = sessionRow({ id, title: `worker ${id}`, ...over }, { backendKey: BACKEND, directory: DIR });
    const latest = {
      ...r.evidence.latest,
      at: timers.now(),
      newestId: newest.info.id,
      newestAt: timers.now() - 60_000,
    };
    return { ...r, evidence: { earlier: null, latest } };
  }

  function idleSession(title: string): string {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title });
    d.addMessage(id, { text: 'I will continue later', info: { providerID: 'openai', modelID: 'gpt-5' } });
    return id;
  }

  const promptsTo = (id: string) => server.prompts.filter((p) => p.sessionId === id).length;

  /** Lets the operator consider the rows; waits for the outcome of an action if one starts. */
  async function consider(rows: SessionRow[]): Promise<ActionOutcome | null> {
    fleet.setRows(rows);
    let started = false;
    const off = operator.onDidStartAutomatic(() => (started = true));
    const acted = nextOutcome();
    fleet.changed();
    // Authority rule 2: an automatic action starts once its claim is verified from the durable record.
    await operator.chargeSettled();
    off();
    return started ? acted : null;
  }

  beforeEach(async () => {
    server = await startSpecServer();
    server.answerPrompts = { delayMs: 20, text: 'Resumed.' };
    server.setProviders([{ id: 'openai', models: ['gpt-5'] }], ['openai']);
    client = new BackendClient({ baseUrl: server.url });
    fleet = rowsMonitor(() => client);
    timers = new ManualClock(undefined, { realSleeps: true });
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'charge-'));
    logs = [];
    settings = { ...operatorDefaults(), 'automatic.wakeIdle': true };
    operator = make();
    await operator.restored;
  });
  afterEach(async () => {
    operator.dispose();
    await client.close();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('never wakes a sub-agent session automatically; a person still can by hand', async () => {
    const parent = idleSession('parent');
    const child = idleSession('sub-agent');
    const childRow = sampled(child, { parentId: parent });
    assert.equal(await consider([childRow]), null);
    assert.equal(promptsTo(child), 0, 'no automatic prompt to a sub-agent');
    assert.equal(operator.automaticSkip(childRow)?.reason, 'sub-agent');
    assert.ok(
      logs.some((l) => l.includes(`automatic wake on ${child} not taken: sub-agent of ${parent}`)),
      logs.join('\n'),
    );
    const byHand = (await operator.wake({ target: childRow })).outcome;
    assert.equal(byHand.outcome, 'confirmed', byHand.message);
    assert.equal(promptsTo(child), 1);
  });

  it('never wakes a session whose newest message is older than automatic.maxAgeHours, or of unknown time', async () => {
    const old = idleSession('90-day-old chat');
    const oldRow = sampled(old);
    oldRow.evidence.latest.newestAt = timers.now() - 90 * 24 * HOUR;
    assert.equal(await consider([oldRow]), null);
    assert.equal(operator.automaticSkip(oldRow)?.reason, 'too-old');
    const unknown = sampled(old);
    unknown.evidence.latest.newestAt = null;
    assert.equal(await consider([unknown]), null);
    assert.equal(operator.automaticSkip(unknown)?.reason, 'age-unknown');
    assert.equal(promptsTo(old), 0);
    settings = { ...settings, 'automatic.maxAgeHours': 24 * 100 };
    operator.updateSettings(settings);
    const o = await consider([oldRow]);
    assert.equal(o?.outcome, 'confirmed', 'within a wider maxAgeHours it is in its charge');
  });

  it('stuck after automatic.maxConsecutiveWakes wakes without a report: it stops, the row says so, it survives a restart; a person acting starts again', async () => {
    const id = idleSession('loops');
    for (let n = 1; n <= 3; n++) {
      const o = await consider([sampled(id)]);
      assert.equal(o?.outcome, 'confirmed', `wake ${n}: ${o?.message}`);
      assert.equal(operator.wakes.count(wakeKey(DIR, id)), n);
      // Each wake ends idle again without a report; past the hour, the per-hour cap is no reason.
      timers.advance(HOUR + 1);
    }
    const again = sampled(id);
    assert.equal(await consider([again]), null, 'the fourth is not sent');
    assert.equal(promptsTo(id), 3);
    assert.deepEqual(operator.automaticSkip(again), {
      reason: 'stuck',
      text: 'stuck: woken 3 times without a report; a person decides',
      wakes: 3,
    });
    assert.ok(
      logs.some((l) => l.includes('not taken: stuck: woken 3 times')),
      logs.join('\n'),
    );

    // A restart (a new operator over the same state directory) remembers the count.
    await operator.flush();
    operator.dispose();
    operator = make();
    await operator.restored;
    assert.equal(await consider([sampled(id)]), null, 'still stuck after a restart');
    assert.equal(operator.automaticSkip(sampled(id))?.reason, 'stuck');

    // A person acts: the count starts again and automatic mode may wake it.
    const byHand = (await operator.wake({ target: sampled(id) })).outcome;
    assert.equal(byHand.outcome, 'confirmed', byHand.message);
    assert.equal(operator.wakes.count(wakeKey(DIR, id)), 0);
    timers.advance(HOUR + 1);
    assert.equal((await consider([sampled(id)]))?.outcome, 'confirmed');
  });

  it('a person acting in another process (the CLI, another window) starts the count again: the state file is re-read while stuck', async () => {
    const id = idleSession('loops');
    for (let n = 1; n <= 3; n++) {
      await consider([sampled(id)]);
      timers.advance(HOUR + 1);
    }
    assert.equal(operator.automaticSkip(sampled(id))?.reason, 'stuck');
    await operator.flush();
    // Another process records that a person acted (what `session-ops wake` does after its action).
    const other = operatorStateFile(stateDir, () => timers.now());
    await other.save({ ...parseOperatorState({ version: 1 }), wakes: personActed(DIR, id, timers.now() + 1) });
    timers.advance(WAKES_REREAD_MS);
    await consider([sampled(id)]);
    for (let i = 0; i < 100 && operator.wakes.count(wakeKey(DIR, id)) !== 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(operator.wakes.count(wakeKey(DIR, id)), 0, 'the reset read from the state file');
    timers.advance(HOUR + 1);
    assert.equal((await consider([sampled(id)]))?.outcome, 'confirmed', 'automatic mode may wake it again');
  });

  it('a wake counts when its prompt went out or may have (its answer never came), not when it surely did not', async () => {
    const id = idleSession('lossy');
    server.fault({ method: 'POST', path: /prompt_async$/, status: 500, body: '{}' });
    const failed = await consider([sampled(id)]);
    assert.equal(failed?.sent, false, failed?.message);
    assert.equal(operator.wakes.count(wakeKey(DIR, id)), 0, 'nothing went out: not counted');
    // A new verdict (its newest message moved): automatic mode may act on it.
    server
      .directory(DIR)
      .addMessage(id, { text: 'Still half done.', info: { providerID: 'openai', modelID: 'gpt-5' } });
    timers.advance(HOUR + 1);
    server.fault({ method: 'POST', path: /prompt_async$/, destroy: true });
    const lost = await consider([sampled(id)]);
    assert.equal(lost?.sent, 'unknown', lost?.message);
    assert.equal(operator.wakes.count(wakeKey(DIR, id)), 1, 'it may have gone out: counted');
  });

  it('a completion report starts the count again', async () => {
    const id = idleSession('reports');
    for (let n = 1; n <= 3; n++) {
      await consider([sampled(id)]);
      timers.advance(HOUR + 1);
    }
    const key = wakeKey(DIR, id);
    assert.equal(operator.wakes.count(key), 3);
    const report = { ticket: 'PAY-1', label: null, status: 'done' as const, pr: null, summary: 'done', reason: null };
    await consider([sampled(id, { report, action: 'harvest', badge: 'report-done' })]);
    assert.equal(operator.wakes.count(key), 0);
    await operator.flush();
    const onDisk = await operatorStateFile(stateDir, () => timers.now()).load();
    assert.equal(onDisk.state.wakes[key]?.count, 0, 'the reset is persisted');
  });

  it('automatic.onlyTicketed: a session whose first user message carries a ticket reference (read once, remembered)', async () => {
    settings = { ...settings, 'automatic.onlyTicketed': true };
    operator.updateSettings(settings);
    const d = server.directory(DIR);
    const withTicket = d.addSession({ state: 'idle', title: 'ticketed by its task' });
    d.addMessage(withTicket, { role: 'user', text: 'PAY-77: make the parser accept empty input.' });
    d.addMessage(withTicket, { text: 'I will continue later', info: { providerID: 'openai', modelID: 'gpt-5' } });
    const lookalike = d.addSession({ state: 'idle', title: 'no ticket' });
    d.addMessage(lookalike, { role: 'user', text: 'Convert every file to UTF-8.' });
    d.addMessage(lookalike, { text: 'I will continue later', info: { providerID: 'openai', modelID: 'gpt-5' } });
    const o = await consider([sampled(withTicket), sampled(lookalike)]);
    assert.equal(o?.sessionId, withTicket, o?.message);
    assert.equal(operator.automaticSkip(sampled(withTicket)), null);
    assert.equal(operator.automaticSkip(sampled(lookalike))?.reason, 'not-ticketed');
    assert.equal(promptsTo(lookalike), 0);
  });

  it('automatic.onlyTicketed: only a session it dispatched a ticketed task to', async () => {
    // The pre-dispatch check needs a connected fallback provider.
    server.setProviders(
      [
        { id: 'openai', models: ['gpt-5'] },
        { id: 'groq', models: ['llama'] },
      ],
      ['openai', 'groq'],
    );
    settings = { ...settings, 'automatic.onlyTicketed': true };
    operator.updateSettings(settings);
    const plain = idleSession('no ticket');
    const ticketed = idleSession('ticketed');
    assert.equal(await consider([sampled(plain)]), null);
    assert.equal(operator.automaticSkip(sampled(plain))?.reason, 'not-ticketed');
    const dispatched = await operator.dispatch({
      target: sampled(ticketed),
      request: {
        task: 'Fix the parser.',
        model: { providerID: 'openai', modelID: 'gpt-5' },
        authority: resolveAuthority({ ticket: 'PAY-42', orchestrator: 'ses_orch' }),
      },
    });
    assert.equal(dispatched.outcome.outcome, 'confirmed', dispatched.outcome.message);
    assert.equal(operator.dispatches.ticket(sampled(ticketed).key), 'PAY-42');
    assert.equal(operator.automaticSkip(sampled(ticketed)), null);
    // The worker answers and goes idle again without a report: automatic mode may wake it.
    const session = server.directory(DIR).sessions.get(ticketed)!;
    while (session.state !== 'idle' || session.messages[session.messages.length - 1].info.role !== 'assistant')
      await new Promise((r) => setTimeout(r, 10));
    assert.equal((await consider([sampled(ticketed)]))?.outcome, 'confirmed');
    assert.equal(promptsTo(plain), 0);
  });
});
