// Issue 28 item 9 through the Operator (the editor's *Wake* and automatic mode take this path): a
// session at a quota wall is woken only with the quota-wall prompt (its five parts), or refused
// with a pointer to recover when the prompt composed for the row is not that prompt (the row did
// not show the wall yet). Against the stateful spec-dialect server.
import assert from 'node:assert/strict';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { Operator } from '../../../../src/core/operations/operator';
import { operatorDefaults } from '../../../../src/core/settings/operator-settings';
import { quotaWakeDocumentProblem } from '../../../../src/core/prompt/wake-rules';
import { ManualClock } from '../../../support/manual-clock';
import { rowsMonitor, sessionRow } from '../../../support/session-rows';
import { startSpecActions } from '../../../support/spec-actions';
import type { SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';

describe('core/operations/operator: a walled session is woken only with the quota-wall prompt', function () {
  let server: SpecServer;
  let stop: () => Promise<void>;
  let fleet: ReturnType<typeof rowsMonitor>;
  let operator: Operator;

  beforeEach(async () => {
    const spec = await startSpecActions({ answerMs: 50 });
    ({ server, stop } = spec);
    fleet = rowsMonitor(() => spec.client);
    operator = new Operator({
      monitor: fleet.monitor,
      settings: operatorDefaults(),
      log: () => undefined,
      clock: new ManualClock(undefined, { realSleeps: true }),
      inventory: () => [],
      waits: { abortMs: 3000, confirmMs: 3000 },
    });
  });
  afterEach(async () => {
    operator.dispose();
    await stop();
  });

  function walledSession(): string {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'PROJ-5 worker' });
    d.addMessage(id, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    return id;
  }
  const row = (id: string, over: Partial<SessionRow>) =>
    sessionRow({ id, title: 'PROJ-5 worker', ...over }, { backendKey: 'spec', directory: DIR });

  it('Wake on a row at a wall sends the quota-wall prompt on another provider', async () => {
    const id = walledSession();
    const r = row(id, {
      badge: 'quota-wall',
      action: 'recover',
      quotaWall: { provider: 'anthropic', reason: 'account_usage_limit', category: 'usage-limit', resetAt: null },
      failureText: 'Weekly usage limit reached',
    });
    fleet.setRows([r]);
    const { outcome: o } = await operator.wake({ target: r });
    assert.equal(o.outcome, 'confirmed', o.message);
    const text = server.prompts[0].payload.parts[0].text;
    assert.equal(quotaWakeDocumentProblem(text), null, text);
    assert.equal(server.prompts[0].payload.model?.providerID, 'openai');
  });

  it('Wake on a row that does not show the wall yet, while the session is at one: refused with a pointer to recover, nothing sent', async () => {
    const id = walledSession();
    const r = row(id, { badge: 'idle', verdict: 'idle', action: 'wake', quotaWall: null });
    fleet.setRows([r]);
    const { outcome: o } = await operator.wake({ target: r });
    assert.equal(o.outcome, 'refused', o.message);
    assert.match(o.rowText, /quota wall/);
    assert.match(o.message, /Recover on Another Provider|session-ops recover/);
    assert.equal(server.prompts.length, 0);
    assert.equal(o.sent, false);
  });
});
