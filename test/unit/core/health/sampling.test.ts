// collectSettledSamples against the spec-dialect test server (real HTTP), with a controlled clock:
// `sleep` advances it, so "45 s apart" takes no wall time.
import { clockReading } from '../../../support/manual-clock';
import assert from 'node:assert/strict';
import { BackendClient } from '../../../../src/core/backend/client';
import { assessSettled, collectSettledSamples } from '../../../../src/core/health/sampling';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

describe('health/sampling: collectSettledSamples', () => {
  const DIR = '/work/repo';
  let server: SpecServer;
  let clock: number;
  let client: BackendClient;
  let onSleep: () => void;
  const sleep = async (ms: number) => {
    clock += ms;
    onSleep();
  };

  beforeEach(async () => {
    server = await startSpecServer();
    server.setProviders([{ id: 'openai' }], ['openai']);
    clock = Date.UTC(2026, 10, 22, 10, 0, 0);
    onSleep = () => undefined;
    client = new BackendClient({ baseUrl: server.url, clock: clockReading(() => clock), timeoutMs: 2_000 });
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
  });

  it('two samples when every verdict settles; assessSettled gives each session its verdict', async () => {
    const d = server.directory(DIR);
    const busy = d.addSession({ state: 'generating', progress: { stepCount: 1, lastStepAt: clock } });
    d.addMessage(busy, { text: 'working' });
    const idle = d.addSession({ state: 'idle' });
    d.addMessage(idle, { text: 'next I will write the test' });
    onSleep = () => d.step(busy, 1, clock);
    const settled = await collectSettledSamples(client, DIR, {
      spacingMs: 45_000,
      clock: { ...clockReading(() => clock), sleep },
    });
    assert.equal(settled.sampledAt.length, 2);
    assert.equal(settled.dialect, 'spec');
    const byId = new Map(assessSettled(settled, await client.listProviders(DIR), { now: clock }).map((a) => [a.id, a]));
    assert.equal(byId.get(busy)?.verdict, 'healthy');
    assert.equal(byId.get(idle)?.decision.action, 'wake');
    assert.equal(byId.get(idle)?.samples, 2);
    assert.ok(
      !server.requests.some((r) => r.path === '/event'),
      'no event stream on a backend without one (capabilities.events false)',
    );
  });

  it('samples again (up to maxSamples) while a session of interest disagrees; others do not hold it up', async () => {
    const d = server.directory(DIR);
    const flip = d.addSession({ state: 'idle' });
    d.addMessage(flip, { text: 'x' });
    let n = 0;
    onSleep = () => d.setSession(flip, { state: n++ % 2 === 0 ? 'generating' : 'idle' });
    let settled = await collectSettledSamples(client, DIR, {
      spacingMs: 45_000,
      maxSamples: 3,
      clock: { ...clockReading(() => clock), sleep },
    });
    assert.equal(settled.sampledAt.length, 3);
    assert.equal(settled.history.settled(flip), false);

    const calm = d.addSession({ state: 'idle' });
    settled = await collectSettledSamples(client, DIR, {
      spacingMs: 45_000,
      maxSamples: 4,
      clock: { ...clockReading(() => clock), sleep },
      sessionIds: [calm],
    });
    assert.equal(settled.sampledAt.length, 2, 'only the sessions asked about must settle');
  });

  it('an unreadable session is assessed unknown with the reason', async () => {
    const d = server.directory(DIR);
    const gone = d.addSession({ state: 'idle' });
    server.fault({ path: new RegExp(`^/session/${gone}/message$`), status: 404, body: '{}', times: Infinity });
    const settled = await collectSettledSamples(client, DIR, {
      spacingMs: 45_000,
      clock: { ...clockReading(() => clock), sleep },
    });
    const [a] = assessSettled(settled, { providers: [], connected: [] }, { now: clock });
    assert.deepEqual([a.id, a.verdict, a.decision.action], [gone, null, 'leave-alone']);
    assert.match(a.unreadable ?? '', /.+/);
  });
});
