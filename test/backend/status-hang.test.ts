// `session-ops status` is not held by one session whose newest message never answers: that
// session is `unknown` once its read failed in two samples, and the run ends within spacing + two
// deadlines + 5 s (the CLI against the fault server, one session's message endpoint hanging).
import assert from 'node:assert/strict';
import { startFaultServer, type FaultServer } from '../support/fault-server';
import { status } from './helpers';

describe('status with one hung newest-message read', function () {
  let server: FaultServer;
  afterEach(async () => server?.stop());

  for (const dialect of ['spec', 'opencode'] as const) {
    it(`${dialect}: the hung session is unknown after two failed reads; the run ends within spacing + 2 deadlines + 5 s`, async () => {
      server = await startFaultServer({ dialect, sessions: 3 });
      const hung = server.sessionIds[1];
      server.setFault('message', 'no-answer', hung);
      const spacingS = 1;
      const timeoutS = 3;
      const started = Date.now();
      const run = await status([
        '--base-url',
        server.url,
        '--directory',
        '/w',
        '--spacing',
        String(spacingS),
        '--allow-short-spacing',
        '--timeout',
        String(timeoutS),
        '--json',
      ]);
      const took = Date.now() - started;
      assert.ok(run.doc, run.stderr);
      assert.equal(run.session(hung).verdict, 'unknown');
      assert.match(run.session(hung).unreadable ?? '', /timed out|timeout|did not answer/i);
      for (const id of server.sessionIds.filter((x) => x !== hung))
        assert.notEqual(run.session(id).verdict, 'unknown', `${id} is read`);
      assert.ok(
        took <= (spacingS + 2 * timeoutS + 5) * 1000,
        `took ${took} ms, more than spacing + two deadlines + 5 s`,
      );
    });
  }
});
