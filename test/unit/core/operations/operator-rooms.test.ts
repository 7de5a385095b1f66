// The seams of the operator's rooms: the operator keeps the rows' completion reports itself (no
// view drives it), a refusal carries its typed code, and whom a prompt speaks for is asked of the
// host once per act (not at all when the request carries what the person was shown).
import assert from 'node:assert/strict';
import { BackendClient } from '../../../../src/core/backend/client';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { Operator } from '../../../../src/core/operations/operator';
import { ProcessSessionLocker, type LockOutcome, type LockRequest } from '../../../../src/core/state/session-locker';
import { operatorDefaults } from '../../../../src/core/settings/operator-settings';
import { rowsMonitor, sessionRow } from '../../../support/session-rows';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const BACKEND = 'spec';
const REPORT = { ticket: 'T-1', label: null, status: 'done', pr: null, summary: 'ported', reason: null } as const;

const row = (id: string, over: Partial<SessionRow> = {}): SessionRow =>
  sessionRow({ id, title: `worker ${id}`, ...over }, { backendKey: BACKEND, directory: DIR });

describe('core/operations/operator rooms', function () {
  let server: SpecServer;
  let client: BackendClient;
  let fleet: ReturnType<typeof rowsMonitor>;
  let operator: Operator;
  let asked: number;
  let machine: CountingLocker;

  beforeEach(async () => {
    server = await startSpecServer();
    server.answerPrompts = { delayMs: 20, text: 'Resumed.' };
    client = new BackendClient({ baseUrl: server.url });
    fleet = rowsMonitor(() => client);
    asked = 0;
    machine = new CountingLocker(300);
    operator = new Operator({
      postLocker: machine,
      monitor: fleet.monitor,
      settings: operatorDefaults(),
      log: () => undefined,
      inventory: () => [],
      waits: { abortMs: 3000, confirmMs: 3000 },
      authority: () => {
        asked++;
        return { orchestrator: 'ses_orch1', ticket: null };
      },
    });
  });
  afterEach(async () => {
    operator.dispose();
    await client.close();
    await server.stop();
  });

  it('keeps a completion report after a newer message, with no view attached; drops it once the session is gone', () => {
    const reported = row('ses_a1', { report: { ...REPORT }, newestText: 'ticket=T-1 status=done summary=ported' });
    fleet.setRows([reported]);
    fleet.changed();
    const moved = row('ses_a1');
    fleet.setRows([moved]);
    fleet.changed();
    assert.equal(operator.reports.reportOf(moved)?.report.ticket, 'T-1', 'kept by the operator itself');
    // A change that lists every row again, without the session: the kept report goes.
    fleet.setRows([]);
    fleet.changed();
    assert.equal(operator.reports.hasKept(moved.key), false);
  });

  it('an action that finds the session held answers busy with the typed code busy', async () => {
    const r = row('ses_b1', { state: 'generating' });
    let release!: () => void;
    const held = operator.lock.withSessionLock(
      r.key,
      { purpose: 'wake' },
      () => new Promise<void>((ok) => (release = ok)),
    );
    const { outcome, result } = await operator.abort({ target: r });
    release();
    await held;
    assert.equal(outcome.outcome, 'busy');
    assert.equal(outcome.code, 'busy');
    assert.equal(result, null);
  });

  it('a stale refusal carries the code stale whatever its text says', async () => {
    server.setProviders([{ id: 'openai', models: ['gpt-5'] }], ['openai']);
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'moved' });
    d.addMessage(id, { text: 'I will continue later', info: { providerID: 'openai', modelID: 'gpt-5' } });
    // The row's sample names a newest message the session no longer has: it moved since the decision.
    const r = row(id);
    const sample = { ...r.evidence.latest, newestId: 'msg_older0000000000000000' };
    const stale = { ...r, evidence: { earlier: null, latest: sample } };
    const { outcome } = await operator.wake({ target: stale, automatic: true });
    assert.equal(outcome.outcome, 'refused', outcome.message);
    assert.equal(outcome.code, 'stale');
    assert.equal(server.prompts.length, 0, 'nothing sent');
  });

  it('whom a wake speaks for is asked of the host once per act, and not at all when the request carries it', async () => {
    server.setProviders([{ id: 'openai', models: ['gpt-5'] }], ['openai']);
    const d = server.directory(DIR);
    const [first, second] = [d.addSession({ state: 'idle' }), d.addSession({ state: 'idle' })];
    for (const id of [first, second])
      d.addMessage(id, { text: 'I will continue later', info: { providerID: 'openai', modelID: 'gpt-5' } });
    fleet.setRows([row(first), row(second)]);

    const woken = await operator.wake({ target: row(first) });
    assert.equal(woken.outcome.outcome, 'confirmed', woken.outcome.message);
    assert.equal(asked, 1, 'asked once by the act');

    const shown = operator.authority(row(second));
    asked = 0;
    const given = await operator.wake({ target: row(second), authority: shown });
    assert.equal(given.outcome.outcome, 'confirmed', given.outcome.message);
    assert.equal(asked, 0, 'the act used what the person was shown');
    assert.match(server.prompts.find((p) => p.sessionId === second)?.payload.parts[0].text ?? '', /ses_orch1/);

    // A dispatch's or fact baseline's confirmation reads the durable record with what was shown.
    asked = 0;
    const recorded = await operator.recordedAuthority(row(second), false, shown);
    assert.equal(recorded.orchestrator, 'ses_orch1');
    assert.equal(asked, 0, 'the record is compared with what was shown, not asked again');
  });

  it('one lock per act: an abort and wake takes the machine-wide lock once, and its POSTs run under it', async () => {
    server.setProviders([{ id: 'openai', models: ['gpt-5'] }], ['openai']);
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating' });
    d.addMessage(id, { text: 'Working on it', info: { providerID: 'openai', modelID: 'gpt-5' } });
    const r = row(id, { state: 'generating', verdict: 'hung', action: 'abort-and-wake' });
    fleet.setRows([r]);
    const { outcome, result } = await operator.wake({ target: r, abortFirst: true });
    assert.equal(outcome.outcome, 'confirmed', outcome.message);
    assert.equal(result?.aborted, true, 'the abort went out first');
    assert.deepEqual(machine.taken, [id], 'taken once, for the whole act');
  });

  it('another actor holding the session past the wait: the act refuses as busy at its POST, nothing sent', async () => {
    server.setProviders([{ id: 'openai', models: ['gpt-5'] }], ['openai']);
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { text: 'I will continue later', info: { providerID: 'openai', modelID: 'gpt-5' } });
    fleet.setRows([row(id)]);
    let release!: () => void;
    const other = machine.withSessionLock(id, { purpose: 'wake' }, () => new Promise<void>((ok) => (release = ok)));
    const { outcome, result } = await operator.wake({ target: row(id) });
    release();
    await other;
    assert.equal(outcome.outcome, 'refused', outcome.message);
    assert.equal(outcome.code, 'busy');
    assert.equal(result?.refusal?.code, 'busy', 'the core result says it, as a CLI prints it');
    assert.match(outcome.message, /is busy/);
    assert.equal(server.prompts.length, 0, 'nothing sent');
  });
});

/** The process lock, counting the sessions an act took it for. */
class CountingLocker extends ProcessSessionLocker {
  readonly taken: string[] = [];
  override withSessionLock<T>(
    sessionId: string,
    request: LockRequest,
    body: () => Promise<T>,
  ): Promise<LockOutcome<T>> {
    this.taken.push(sessionId);
    return super.withSessionLock(sessionId, request, body);
  }
}
