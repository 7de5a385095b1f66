// From outside, against the spec-dialect server: what a worker's completion report and a failed
// turn's error part count as (`status --json`).
import assert from 'node:assert/strict';
import { startSpecServer, type SpecServer } from '../support/spec-server';
import { assertDocumentShape, status, statusArgs } from './helpers';

describe('status: reports and tail probe read strictly (spec-dialect server)', function () {
  let server: SpecServer;
  beforeEach(async () => {
    server = await startSpecServer();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('reports in any key order, code examples, malformed reports; error parts without a spec reason', async () => {
    server.setProviders([{ id: 'anthropic' }, { id: 'openai' }], ['anthropic', 'openai']);
    const d = server.directory('/work/project');
    const idle = (text: string) => {
      const id = d.addSession({ state: 'idle', progress: { stepCount: 3, lastStepAt: Date.now() - 3_600_000 } });
      d.addMessage(id, { text });
      return id;
    };
    const anyOrder = idle('status=done ticket=T-1 pr=#5 summary=fixed the status=blocked bug');
    const fenced = idle('I will end with:\n```\nticket=T-2 status=done summary="x"\n```\nStill working on step 2.');
    const malformed = idle('Finished.\nticket=T-3 status=finished summary=all green');
    const errorPart = (error: { text: string; reason?: string; provider?: string }) => {
      const id = d.addSession({ state: 'idle', progress: { stepCount: 3, lastStepAt: Date.now() - 3_600_000 } });
      d.addMessage(id, { error });
      return id;
    };
    const sandbox = errorPart({ text: 'sandbox frozen', reason: 'sandbox_freeze', provider: 'anthropic' });
    const textOnly = errorPart({ text: 'Rate limited (HTTP 429)', provider: 'anthropic' });

    const run = await status(statusArgs(server.url, '/work/project'));
    assert.equal(run.code, 0, run.stderr);
    assertDocumentShape(run.doc!);
    const s = (id: string) => run.session(id);

    assert.equal(s(anyOrder).action, 'harvest');
    assert.deepEqual(s(anyOrder).report, {
      ticket: 'T-1',
      label: null,
      status: 'done',
      pr: '#5',
      summary: 'fixed the status=blocked bug',
      reason: null,
    });

    assert.equal(s(fenced).report, null, 'a report quoted in a code block is an example');
    assert.equal(s(fenced).action, 'wake');

    assert.equal(s(malformed).action, 'read-report');
    assert.equal(s(malformed).headline, 'malformed-report');
    assert.deepEqual(s(malformed).report, {
      malformed: true,
      raw: 'ticket=T-3 status=finished summary=all green',
      problem: 'status "finished" is not done, blocked or handoff',
      ticket: 'T-3',
      label: null,
      status: 'finished',
      pr: null,
      summary: 'all green',
      reason: null,
    });

    for (const id of [sandbox, textOnly]) {
      assert.equal(s(id).quotaWall, null, 'no wall without a spec reason');
      assert.equal(s(id).action, 'wake');
    }
  });

  it('a stepCount that drops between samples (the backend restarted) is sampled again, never healthy', async () => {
    server.setProviders([{ id: 'openai' }], ['openai']);
    const d = server.directory('/w');
    const now = Date.now();
    const id = d.addSession({ state: 'generating', progress: { stepCount: 40, lastStepAt: now - 120_000 } });
    d.addMessage(id, { text: 'half a thought' });
    // After the first sample the counter restarts and then stays frozen.
    const restart = setTimeout(() => d.setSession(id, { progress: { stepCount: 2, lastStepAt: now - 60_000 } }), 400);
    try {
      const run = await status(statusArgs(server.url, '/w'));
      assert.equal(run.code, 0, run.stderr);
      const s = run.session(id);
      assert.notEqual(s.verdict, 'healthy', s.basis);
      assert.equal(s.verdict, 'hung', 'the comparable pair after the restart is frozen');
      assert.ok(run.doc!.sampledAt.length >= 3, 'the pair across the restart was sampled again');
    } finally {
      clearTimeout(restart);
    }
  });
});
