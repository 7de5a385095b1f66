// Nothing an operator planned is lost on restart: a scheduled retry, automatic mode's memory and
// the seen reports survive a new Operator over the same state directory (an editor reload, a
// daemon restart); a restored retry that comes due is re-verified (fresh samples, a provider
// acceptable now) before it sends, and sends nothing when the session moved on.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SessionRow } from '../../../../src/core/monitor/row';
import type { ActionOutcome } from '../../../../src/core/operations/action-outcome';
import { Operator } from '../../../../src/core/operations/operator';
import { RETRY_AFTER_RESET_MS } from '../../../../src/core/operations/retries';
import { operatorStateFile } from '../../../../src/core/operations/state-store-operator';
import { operatorDefaults } from '../../../../src/core/settings/operator-settings';
import { ManualClock } from '../../../support/manual-clock';
import { idleEvidence, rowsMonitor, sessionRow } from '../../../support/session-rows';
import { startSpecActions } from '../../../support/spec-actions';
import type { SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const HOUR = 3_600_000;
const BACKEND = 'spec';
const PROVIDERS = [
  { id: 'anthropic', models: ['sonnet'] },
  { id: 'openai', models: ['gpt-5'] },
];

function row(id: string, over: Partial<SessionRow> = {}): SessionRow {
  return sessionRow(
    {
      id,
      title: `worker ${id}`,
      badge: 'quota-wall',
      action: 'recover',
      quotaWall: { provider: 'anthropic', reason: 'account_usage_limit', category: 'usage-limit', resetAt: null },
      failureText: 'Weekly usage limit reached',
      evidence: idleEvidence({ newestId: null, newestRole: null }),
      ...over,
    },
    { backendKey: BACKEND, directory: DIR },
  );
}

describe('operator restart: planned work survives (src/core/operations/operator.ts + state-store)', function () {
  let server: SpecServer;
  let stop: () => Promise<void>;
  let stateDir: string;
  let fleet: ReturnType<typeof rowsMonitor>;
  let timers: ManualClock;
  let logs: string[];
  const operators: Operator[] = [];

  const changed = () => fleet.changed();
  /** An operator as an editor window or the daemon starts it: over the state directory. */
  function start(automatic = false, orchestrator: string | null = null, requireOrchestrator?: string): Operator {
    const op = new Operator({
      authority: () => ({ orchestrator, ticket: null }),
      requireOrchestrator,
      monitor: fleet.monitor,
      settings: { ...operatorDefaults(), resetWithinReachMinutes: 120, 'automatic.wakeIdle': automatic },
      log: (level, m) => logs.push(`${level}: ${m}`),
      clock: timers,
      inventory: () => [],
      waits: { abortMs: 3000, confirmMs: 3000 },
      state: operatorStateFile(stateDir, () => timers.now()),
    });
    operators.push(op);
    return op;
  }
  const nextOutcome = (op: Operator) => new Promise<ActionOutcome>((resolve) => op.onDidAct(resolve));

  beforeEach(async () => {
    const spec = await startSpecActions({ answerMs: 50, providers: null });
    ({ server, stop } = spec);
    fleet = rowsMonitor(() => spec.client);
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-restart-'));
    timers = new ManualClock(undefined, { realSleeps: true });
    logs = [];
  });
  afterEach(async () => {
    for (const op of operators.splice(0)) op.dispose();
    await stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  /** An idle session at anthropic's quota wall, with openai marked until an hour from now. */
  function walledSession(): SessionRow {
    server.setProviders(PROVIDERS, ['anthropic', 'openai']);
    server.setQuota('openai', { markedAt: Date.now() - 1000, resetAt: Date.now() + HOUR });
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'walled' });
    d.addMessage(id, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    const r = row(id);
    fleet.setRows([r]);
    return r;
  }

  async function scheduleThenRestart(): Promise<{ r: SessionRow; second: Operator }> {
    const r = walledSession();
    const first = start();
    await first.restored;
    const scheduled = (await first.recover({ target: r })).outcome;
    assert.equal(scheduled.outcome, 'scheduled', scheduled.message);
    await first.flush();
    first.dispose(); // the window reloads, the daemon restarts: its timers are gone
    const second = start();
    await second.restored;
    assert.ok(second.retries.get(r.key), 'the retry is scheduled again from the state file');
    assert.equal(second.book.scheduled(r.key), true, 'the row says a retry is scheduled');
    assert.ok(logs.some((l) => /kept across a restart/.test(l)));
    return { r, second };
  }

  it('a scheduled retry survives a restart and, when due, recovers after fresh samples on a provider free now', async () => {
    const { r, second } = await scheduleThenRestart();
    server.setQuota('openai', null);
    const readsBefore = server.requests.filter((q) => q.method === 'GET' && q.path.endsWith('/session')).length;
    const fired = nextOutcome(second);
    timers.advance(HOUR + 2 * RETRY_AFTER_RESET_MS);
    const o = await fired;
    assert.equal(o.action, 'recover');
    assert.ok(o.outcome === 'confirmed' || o.outcome === 'not-confirmed', `${o.outcome}: ${o.message}`);
    assert.equal(server.prompts.length, 1);
    assert.equal(server.prompts[0].payload.model?.providerID, 'openai');
    const readsAfter = server.requests.filter((q) => q.method === 'GET' && q.path.endsWith('/session')).length;
    assert.ok(readsAfter - readsBefore >= 3, 'two fresh samples and the re-read before the POST');
    await second.flush();
    const persisted = (await operatorStateFile(stateDir, () => timers.now()).load()).state;
    assert.equal(persisted.retries[r.key].state, 'done', 'a fired retry does not fire again after another restart');
  });

  it('authority rule 2: a restored retry of a worker that another orchestrator re-tasked meanwhile sends nothing, and says why', async () => {
    const { r, second } = await scheduleThenRestart();
    const { assignmentBook } = await import('../../../../src/core/operations/assignments');
    await assignmentBook(operatorStateFile(stateDir, () => timers.now())).record({
      directory: DIR,
      sessionId: r.id,
      orchestrator: 'ses_other',
      ticket: null,
      source: 'dispatch',
      at: timers.now(),
    });
    server.setQuota('openai', null);
    timers.advance(HOUR + 2 * RETRY_AFTER_RESET_MS);
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(server.prompts.length, 0);
    assert.ok(
      logs.some((l) =>
        /scheduled recovery of .* not taken: authority rule 2: its dispatch record names orchestrator ses_other/.test(
          l,
        ),
      ),
      logs.join('\n'),
    );
    assert.equal(second.retries.get(r.key), undefined);
  });

  it('a restored retry whose session moved on (the wall is gone) sends nothing', async () => {
    const { r, second } = await scheduleThenRestart();
    // Another actor recovered the session meanwhile: its newest message is a finished turn.
    server.directory(DIR).addMessage(r.id, { text: 'Done.', info: { providerID: 'anthropic', modelID: 'sonnet' } });
    server.setQuota('openai', null);
    const fired = nextOutcome(second);
    timers.advance(HOUR + 2 * RETRY_AFTER_RESET_MS);
    const o = await fired;
    assert.equal(o.outcome, 'refused', o.message);
    assert.match(o.message, /not at a quota wall/);
    assert.equal(server.prompts.length, 0);
  });

  it('a retry that comes due before the monitor lists the session runs once it does', async () => {
    const { r, second } = await scheduleThenRestart();
    server.setQuota('openai', null);
    fleet.setRows([]);
    timers.advance(HOUR + 2 * RETRY_AFTER_RESET_MS);
    assert.equal(server.prompts.length, 0);
    fleet.setRows([r]);
    const fired = nextOutcome(second);
    changed();
    assert.equal((await fired).action, 'recover');
    assert.equal(server.prompts.length, 1);
  });

  it('a cancelled retry stays cancelled across a restart', async () => {
    const r = walledSession();
    const first = start();
    await first.restored;
    assert.equal((await first.recover({ target: r })).outcome.outcome, 'scheduled');
    first.cancelScheduled(r.key);
    await first.flush();
    first.dispose();
    const second = start();
    await second.restored;
    assert.equal(second.retries.get(r.key), undefined);
  });

  it('automatic mode’s memory and the seen reports survive: no second wake on the verdict it already acted on', async () => {
    server.setProviders(PROVIDERS, ['anthropic', 'openai']);
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'idle worker' });
    const newestId = d.addMessage(id, {
      text: 'ticket=T-1 status=done summary="parser ported"',
      info: { providerID: 'anthropic', modelID: 'sonnet' },
    });
    const idle = row(id, {
      badge: 'idle',
      action: 'wake',
      quotaWall: null,
      failureText: null,
      report: { ticket: 'T-1', status: 'done', summary: 'parser ported', pr: null, label: null } as never,
      evidence: idleEvidence({ newestId }),
    });
    fleet.setRows([idle]);
    const first = start(true);
    await first.restored;
    const woke = nextOutcome(first);
    changed();
    assert.equal((await woke).action, 'wake');
    assert.equal(first.reports.markSeen(idle), true);
    await first.flush();
    first.dispose();
    const promptsBefore = server.prompts.length;

    const second = start(true);
    const started: string[] = [];
    second.onDidStartAutomatic((action) => started.push(action));
    await second.restored;
    changed();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(started, [], 'never twice on one verdict, even after a restart');
    assert.equal(server.prompts.length, promptsBefore);
    assert.equal(second.reports.markSeen(idle), false, 'the report was seen before the restart');
  });

  it('automatic mode leaves alone a worker whose assignment names another orchestrator (authority rule 1)', async () => {
    server.setProviders(PROVIDERS, ['anthropic', 'openai']);
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'their worker' });
    const assignment = 'Port the lexer; report to orchestrator ses_other';
    const newestId = d.addMessage(id, { role: 'user', text: assignment });
    fleet.setRows([
      row(id, {
        badge: 'idle',
        action: 'wake',
        quotaWall: null,
        failureText: null,
        newestText: assignment,
        evidence: idleEvidence({ newestId, newestRole: 'user' }),
      }),
    ]);
    const op = start(true, 'ses_mine');
    const started: string[] = [];
    op.onDidStartAutomatic((action) => started.push(action));
    await op.restored;
    changed();
    changed();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(started, []);
    assert.equal(server.prompts.length, 0);
    assert.equal(logs.filter((l) => /names orchestrator ses_other, not ses_mine/.test(l)).length, 1, 'logged once');
  });

  describe('authority rule 2: a restarted operator verifies its claim from the durable record first', function () {
    /** An idle worker whose first user message is `assignment` and whose newest message is its answer. */
    function answeredWorker(title: string, assignment: string): SessionRow {
      const d = server.directory(DIR);
      const id = d.addSession({ state: 'idle', title });
      d.addMessage(id, { role: 'user', text: assignment });
      const newestId = d.addMessage(id, {
        text: 'Working on it; the lexer is half done.',
        info: { providerID: 'anthropic', modelID: 'sonnet' },
      });
      return row(id, {
        badge: 'idle',
        action: 'wake',
        quotaWall: null,
        failureText: null,
        newestText: 'Working on it; the lexer is half done.',
        evidence: idleEvidence({ newestId }),
      });
    }
    const transcriptReads = (id: string) =>
      server.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/session/${id}/message`) && !r.query.limit)
        .length;
    /** A moment for the automatic pass; with `ready`, until it holds (at most 10 s: a loaded machine). */
    const settle = async (ready?: () => boolean) => {
      const end = Date.now() + 10_000;
      do await new Promise((resolve) => setTimeout(resolve, 150));
      while (ready && !ready() && Date.now() < end);
    };
    const logged = (re: RegExp) => () => logs.some((l) => re.test(l));

    it('after the worker answered, the daemon wakes only the worker its orchestrator assigned; the first user message is read once and remembered', async () => {
      server.setProviders(PROVIDERS, ['anthropic', 'openai']);
      const mine = answeredWorker('mine', 'Port the parser. ticket=PROJ-7. Report to orchestrator ses_mine.');
      const theirs = answeredWorker('theirs', 'Port the lexer. ticket=PROJ-8. Report to orchestrator ses_other.');
      fleet.setRows([mine, theirs]);
      const op = start(true, 'ses_mine', '"orchestrator:" in the watch config');
      const started: string[] = [];
      op.onDidStartAutomatic((action, r) => started.push(`${action} ${r.id}`));
      const woke = nextOutcome(op);
      await op.restored;
      changed();
      assert.equal((await woke).sessionId, mine.id);
      await settle(logged(/not taken: authority rule 2: its first user message names orchestrator ses_other/));
      assert.deepEqual(started, [`wake ${mine.id}`]);
      assert.deepEqual(
        server.prompts.map((p) => p.sessionId),
        [mine.id],
        'nothing is sent to the worker another orchestrator assigned',
      );
      assert.match(server.prompts[0].payload.parts[0].text, /to the orchestrator session ses_mine through/);
      assert.doesNotMatch(server.prompts[0].payload.parts[0].text, /<orchestrator session id>/);
      assert.equal(
        logs.filter((l) => /not taken: authority rule 2: its first user message names orchestrator ses_other/.test(l))
          .length,
        1,
        logs.join('\n'),
      );
      // Remembered in the operator state: a restarted operator does not read the transcript again.
      await op.flush();
      op.dispose();
      const reads = transcriptReads(theirs.id);
      assert.equal(reads, 1);
      logs = [];
      const second = start(true, 'ses_mine', '"orchestrator:" in the watch config');
      await second.restored;
      changed();
      await settle(logged(/names orchestrator ses_other/));
      assert.equal(transcriptReads(theirs.id), reads, 'read once: the second operator reads the record');
      assert.equal(logs.filter((l) => /names orchestrator ses_other/.test(l)).length, 1, logs.join('\n'));
      assert.deepEqual(
        server.prompts.map((p) => p.sessionId),
        [mine.id],
      );
    });

    it('the row says why: automaticSkip is {reason: authority} for a worker not in its charge (rule 2 and rule 1), null for its own', async () => {
      server.setProviders(PROVIDERS, ['anthropic', 'openai']);
      const mine = answeredWorker('mine', 'Port the parser. ticket=PROJ-7. Report to orchestrator ses_mine.');
      const theirs = answeredWorker('theirs', 'Port the lexer. ticket=PROJ-8. Report to orchestrator ses_other.');
      const named = answeredWorker('named', 'Port the tests.');
      named.newestText = 'Now port the tests. Report to orchestrator ses_third.';
      named.evidence = { ...named.evidence, latest: { ...named.evidence.latest, newestRole: 'user' } };
      fleet.setRows([mine, theirs, named]);
      const op = start(true, 'ses_mine', '"orchestrator:" in the watch config');
      const woke = nextOutcome(op);
      await op.restored;
      changed();
      await woke;
      await op.claimsSettled();
      const skip = op.automaticSkip(theirs);
      assert.equal(skip?.reason, 'authority');
      assert.match(
        skip?.text ?? '',
        /^authority rule 2: its first user message names orchestrator ses_other, not the one this operator speaks for \(ses_mine\)/,
      );
      assert.equal(op.automaticSkip(mine), null);
      assert.equal(op.automaticSkip(named)?.reason, 'authority');
      assert.match(
        op.automaticSkip(named)?.text ?? '',
        /authority rule 1: its assignment names orchestrator ses_third, not ses_mine/,
      );
    });

    it('the daemon without an orchestrator configured sends no prompt and says why; a worker naming none is not verified', async () => {
      server.setProviders(PROVIDERS, ['anthropic', 'openai']);
      fleet.setRows([answeredWorker('mine', 'Port the parser. Report to orchestrator ses_mine.')]);
      const op = start(true, null, '"orchestrator:" in the watch config');
      await op.restored;
      changed();
      await settle(logged(/not taken: no orchestrator session is configured/));
      assert.equal(server.prompts.length, 0);
      assert.equal(
        logs.filter((l) =>
          /not taken: no orchestrator session is configured \("orchestrator:" in the watch config\)/.test(l),
        ).length,
        1,
        logs.join('\n'),
      );
      op.dispose();
      logs = [];
      fleet.setRows([answeredWorker('anonymous', 'Port the parser.')]);
      const daemon = start(true, 'ses_mine', '"orchestrator:" in the watch config');
      await daemon.restored;
      changed();
      await settle(logged(/names no orchestrator, so it cannot be verified/));
      assert.equal(server.prompts.length, 0);
      assert.match(
        logs.join('\n'),
        /its first user message names no orchestrator, so it cannot be verified as ses_mine's/,
      );
    });

    it('a prompt composed where no orchestrator is set reports to the recorded one, never to a placeholder; a fact baseline against the record is refused unless held', async () => {
      server.setProviders(PROVIDERS, ['anthropic', 'openai']);
      const worker = answeredWorker('mine', 'Port the parser. Report to orchestrator ses_mine.');
      fleet.setRows([worker]);
      const editor = start(false, null);
      await editor.restored;
      const wake = await editor.compose(worker, 'wake', { providerID: 'openai', modelID: 'gpt-5' });
      assert.ok(wake.ok);
      assert.match(wake.text, /to the orchestrator session ses_mine through/);
      assert.doesNotMatch(wake.text, /<orchestrator session id>/);
      const other = start(false, 'ses_other');
      const baseline = {
        event: 'orchestrator restarted',
        facts: [{ statement: 'PR #34 merged', source: 'https://x/pr/34', at: '2026-11-23T11:00Z' }],
        invalidAssumptions: ['none'],
        assignment: { kind: 'task' as const, step: 'rebase on main' },
      };
      const refused = await other.compose(worker, 'fact-baseline', null, baseline);
      assert.equal(refused.ok ? null : refused.code, 'not-authority');
      assert.ok((await other.compose(worker, 'fact-baseline', null, baseline, true)).ok);
      assert.equal(
        (await other.recordedAuthority(worker)).mismatch,
        true,
        'what the editor asks I Hold the Authority on',
      );
    });

    it("a dispatch recorded by another process counts at once: the worker it re-tasked is no longer in this operator's charge", async () => {
      server.setProviders(PROVIDERS, ['anthropic', 'openai']);
      const worker = answeredWorker('mine', 'Port the parser. Report to orchestrator ses_mine.');
      fleet.setRows([worker]);
      const other = operatorStateFile(stateDir, () => timers.now());
      const { assignmentBook } = await import('../../../../src/core/operations/assignments');
      await assignmentBook(other).record({
        directory: DIR,
        sessionId: worker.id,
        orchestrator: 'ses_new',
        ticket: null,
        source: 'dispatch',
        at: timers.now(),
      });
      const op = start(true, 'ses_mine', '"orchestrator:" in the watch config');
      await op.restored;
      changed();
      await settle(logged(/its dispatch record names orchestrator ses_new/));
      assert.equal(server.prompts.length, 0);
      assert.match(
        logs.join('\n'),
        /its dispatch record names orchestrator ses_new, not the one this operator speaks for \(ses_mine\)/,
      );
      assert.equal(transcriptReads(worker.id), 0, 'the record answers: the transcript is not read');
    });
  });
});
