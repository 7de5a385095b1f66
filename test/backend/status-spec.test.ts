// `session-ops status` against the spec-dialect test server: every verdict and every action.
import assert from 'node:assert/strict';
import { startSpecServer, type SpecServer } from '../support/spec-server';
import { assertDocumentShape, status, statusArgs } from './helpers';

const HOUR = 3_600_000;

describe('status CLI against the spec-dialect server', function () {
  let server: SpecServer;
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, fn: () => void) => timers.push(setInterval(fn, ms));

  beforeEach(async () => {
    server = await startSpecServer();
  });
  afterEach(async () => {
    for (const t of timers.splice(0)) clearInterval(t);
    await server.stop();
  });

  it('verdicts and actions for every kind of session, read-only', async () => {
    const now = Date.now();
    server.setProviders(
      [
        {
          id: 'anthropic',
          quota: { markedAt: now - 60_000, resetAt: now + HOUR },
          options: { apiKey: 'sk-ant-SECRET' },
        },
        { id: 'openai', options: { apiKey: 'sk-oai-SECRET' } },
        { id: 'groq' },
      ],
      ['anthropic', 'openai'],
    );
    const d = server.directory('/work/project');
    const add = (state: 'generating' | 'idle', progress?: { stepCount: number; lastStepAt: number }) =>
      d.addSession({ state, progress });

    const steps = add('generating', { stepCount: 1, lastStepAt: now });
    d.addMessage(steps, { text: 'working' });
    every(150, () => d.step(steps));

    const ids = add('generating');
    d.addMessage(ids, { text: 'round 1' });
    every(150, () => d.addMessage(ids, { text: 'another round' }));

    const staleHeartbeat = now - 10 * 60_000;
    const longTool = add('generating', { stepCount: 5, lastStepAt: staleHeartbeat });
    d.addMessage(longTool, { text: 'running the test suite' });
    every(150, () => d.step(longTool, 1, staleHeartbeat));

    const hung = add('generating', { stepCount: 9, lastStepAt: now - 120_000 });
    d.addMessage(hung, { text: 'half a thought', info: { providerID: 'openai' } });

    const hungOnUser = add('generating', { stepCount: 2, lastStepAt: now - 120_000 });
    d.addMessage(hungOnUser, { role: 'user', text: 'continue with step 3' });

    const idle = add('idle', { stepCount: 3, lastStepAt: now - HOUR });
    d.addMessage(idle, { text: 'I looked at the code; next I will write the test.' });

    const idleUser = add('idle');
    d.addMessage(idleUser, { role: 'user', text: 'please continue' });

    const report = add('idle');
    d.addMessage(report, {
      text: 'All green.\nticket=PROJ-12 label=Kind/Bug status=done pr=#34 summary="CRLF parsing fixed"',
    });

    const blocked = add('idle');
    d.addMessage(blocked, {
      text: 'ticket=PROJ-13 status=blocked reason=quota-exhausted summary="quota exhausted on anthropic"',
    });

    const toolError = add('idle');
    d.addMessage(toolError, { error: { text: 'Tool execution failed: ENOENT', reason: 'tool_error' } });

    const wallIdle = add('idle');
    d.addMessage(wallIdle, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });

    const wallGenerating = add('generating', { stepCount: 4, lastStepAt: now - 90_000 });
    d.addMessage(wallGenerating, {
      error: { text: 'Rate limited (HTTP 429)', reason: 'rate_limit', provider: 'anthropic' },
    });

    const retrySpin = add('generating', { stepCount: 6, lastStepAt: now - 90_000 });
    d.addMessage(retrySpin, { text: 'calling the model', info: { providerID: 'anthropic' } });

    const balance = add('idle');
    d.addMessage(balance, {
      error: {
        text: 'generation failed with HTTP 402 insufficient_quota',
        reason: 'insufficient_quota',
        provider: 'openai',
      },
    });

    const empty = add('idle');

    const run = await status(statusArgs(server.url, '/work/project'));
    assert.equal(run.code, 0, run.stderr);
    assertDocumentShape(run.doc!);
    const v = (id: string) => {
      const s = run.session(id);
      return [s.verdict, s.action];
    };
    assert.deepEqual(v(steps), ['healthy', 'leave-alone']);
    assert.deepEqual(v(ids), ['healthy', 'leave-alone']);
    assert.deepEqual(v(longTool), ['healthy', 'leave-alone'], 'stepCount grows while lastStepAt stays stale');
    assert.deepEqual(v(hung), ['hung', 'abort-and-wake']);
    assert.deepEqual(v(hungOnUser), ['hung', 'abort-and-wake']);
    assert.deepEqual(v(idle), ['idle', 'wake']);
    assert.deepEqual(v(idleUser), ['idle', 'wake']);
    assert.deepEqual(v(report), ['idle', 'harvest']);
    assert.deepEqual(run.session(report).report, {
      ticket: 'PROJ-12',
      label: 'Kind/Bug',
      status: 'done',
      pr: '#34',
      summary: 'CRLF parsing fixed',
      reason: null,
    });
    assert.deepEqual(v(blocked), ['idle', 'harvest']);
    assert.equal(run.session(blocked).report?.reason, 'quota-exhausted');
    assert.deepEqual(v(toolError), ['idle', 'wake']);
    assert.equal(run.session(toolError).quotaWall, null, 'an error text part that is not a quota wall');
    assert.deepEqual(v(wallIdle), ['idle', 'recover']);
    assert.deepEqual(run.session(wallIdle).quotaWall, {
      provider: 'anthropic',
      reason: 'account_usage_limit',
      category: 'usage-limit',
      resetAt: now + HOUR,
      source: 'tail-probe',
      observed: 'failed-turn',
      abortFirst: false,
    });
    assert.equal(run.session(wallIdle).recoverOn, 'openai');
    assert.deepEqual(v(wallGenerating), ['hung', 'recover']);
    assert.equal(run.session(wallGenerating).abortFirst, true);
    assert.equal(run.session(wallGenerating).quotaWall?.category, 'rate-limit');
    assert.deepEqual(v(retrySpin), ['hung', 'recover']);
    assert.equal(run.session(retrySpin).quotaWall?.source, 'provider-listing');
    assert.equal(run.session(retrySpin).quotaWall?.observed, 'provider-marked');
    assert.equal(run.session(retrySpin).quotaWall?.category, null, 'no message or retry named a category');
    assert.equal(run.session(retrySpin).abortFirst, true);
    assert.deepEqual(v(balance), ['idle', 'escalate']);
    assert.equal(run.session(balance).quotaWall?.category, 'balance');
    assert.deepEqual(v(empty), ['idle', 'leave-alone']);

    assert.deepEqual(
      run.doc!.providers.map((p) => [
        p.id,
        p.connected,
        p.quota && { markedAt: p.quota.markedAt, resetAt: p.quota.resetAt },
      ]),
      [
        ['anthropic', true, { markedAt: now - 60_000, resetAt: now + HOUR }],
        ['openai', true, null],
      ],
    );
    assert.equal(run.doc!.allFreeAt, now + HOUR);
    assert.ok(!run.stdout.includes('SECRET'));

    assert.deepEqual([...new Set(server.requests.map((r) => r.method))], ['GET'], 'status never POSTs');
    assert.equal(server.prompts.length + server.aborts.length, 0);
    for (const r of server.requests) assert.equal(r.query.directory, '/work/project');
    for (const r of server.requests.filter((x) => x.path.endsWith('/message'))) assert.equal(r.query.limit, '1');
  });

  it('momentary idle with an empty tail: samples again instead of guessing', async () => {
    const d = server.directory('/w');
    server.setProviders([{ id: 'openai' }], ['openai']);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 1, lastStepAt: Date.now() } });
    d.addMessage(id, { text: 'working' });
    const t0 = Date.now();
    let phase = 0;
    every(50, () => {
      const t = Date.now() - t0;
      if (phase === 0 && t > 500) {
        phase = 1; // reads idle for a moment, with an empty assistant tail
        d.setSession(id, { state: 'idle' });
        d.addMessage(id, { parts: [] });
      } else if (phase === 1 && t > 1500) {
        phase = 2;
        d.setSession(id, { state: 'generating' });
      } else if (phase === 2) d.step(id);
    });
    const run = await status(statusArgs(server.url, '/w', '--max-samples', '6'));
    assert.equal(run.code, 0, run.stderr);
    const s = run.session(id);
    assert.ok(s.samples >= 3, `sampled again (${s.samples} samples)`);
    assert.equal(s.verdict, 'healthy');
    assert.equal(s.settled, true);
    assert.equal(s.action, 'leave-alone');
  });

  it('samples that never agree: settled=false and leave-alone', async () => {
    const d = server.directory('/w');
    server.setProviders([], []);
    const id = d.addSession({ state: 'generating' });
    d.addMessage(id, { text: 'x' });
    server.onRequest = (r) => {
      if (r.method === 'GET' && r.path === '/session')
        d.setSession(id, { state: d.sessions.get(id)!.state === 'idle' ? 'generating' : 'idle' });
    };
    const run = await status(statusArgs(server.url, '/w', '--max-samples', '3'));
    assert.equal(run.code, 0);
    const s = run.session(id);
    assert.equal(s.samples, 3, 'sampled again up to --max-samples');
    assert.equal(s.settled, false);
    assert.equal(s.verdict, 'idle', 'the verdict its latest state reads as');
    assert.equal(s.action, 'leave-alone');
    assert.match(s.basis, /disagree on state/);
  });

  it('wait-for-reset: no free provider, the earliest reset of the marked connected providers is within reach', async () => {
    const now = Date.now();
    server.setProviders(
      [
        { id: 'anthropic', quota: { markedAt: now, resetAt: now + 30 * 60_000 } },
        { id: 'openai', quota: { markedAt: now, resetAt: now + 10 * 60_000 } },
        { id: 'groq', quota: { markedAt: now, resetAt: now + 5 * 60_000 } },
      ],
      ['anthropic', 'openai'],
    );
    const d = server.directory('/w');
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { error: { text: 'usage limit', reason: 'account_usage_limit', provider: 'anthropic' } });
    const run = await status(statusArgs(server.url, '/w'));
    const s = run.session(id);
    assert.equal(s.action, 'wait-for-reset');
    assert.equal(s.waitUntil, now + 10 * 60_000, 'groq is not connected: its reset does not count');
    assert.equal(run.doc!.allFreeAt, now + 30 * 60_000, 'the latest reset among marked providers');
    assert.deepEqual(
      run.doc!.providers.map((p) => p.id),
      ['anthropic', 'openai', 'groq'],
      'marked providers are listed even when not connected',
    );
  });

  it('escalate: reset unknown, reset out of reach (unless the reach is widened), balance failure', async () => {
    const now = Date.now();
    server.setProviders([{ id: 'anthropic', quota: { markedAt: now } }], ['anthropic']);
    const d = server.directory('/w');
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { error: { text: 'free limit reached', reason: 'free_tier_limit', provider: 'anthropic' } });
    let run = await status(statusArgs(server.url, '/w'));
    assert.equal(run.session(id).action, 'escalate');
    assert.equal(run.session(id).escalation?.reason, 'reset-unknown');
    assert.deepEqual(run.session(id).escalation?.marks, [{ provider: 'anthropic', markedAt: now, resetAt: null }]);
    assert.equal(run.doc!.allFreeAt, null);

    // Issue 28: a reset known only from the wall provider's own mark is a reset to wait for (once
    // it has passed and the mark is gone, anthropic is acceptable again): 5 h is out of reach.
    server.setQuota('anthropic', { markedAt: now, resetAt: now + 5 * HOUR });
    run = await status(statusArgs(server.url, '/w'));
    assert.equal(run.session(id).escalation?.reason, 'reset-out-of-reach');
    run = await status(statusArgs(server.url, '/w', '--reset-within-reach', '360'));
    assert.equal(run.session(id).action, 'wait-for-reset');
    assert.equal(run.session(id).waitUntil, now + 5 * HOUR);
    // A reset already passed with the mark still listed: escalated, never a wait for a past time.
    server.setQuota('anthropic', { markedAt: now - 2 * HOUR, resetAt: now - 60_000 });
    run = await status(statusArgs(server.url, '/w'));
    assert.equal(run.session(id).action, 'escalate');
    assert.equal(run.session(id).waitUntil, null);
    assert.match(run.session(id).escalation?.message ?? '', /has passed but its quota mark remains/);
    server.setQuota('anthropic', { markedAt: now, resetAt: now + 5 * HOUR });
    const reached = d.addSession({ state: 'idle' });
    d.addMessage(reached, {
      error: {
        text: `free limit reached, resets at ${new Date(now + 5 * HOUR).toISOString()}`,
        reason: 'free_tier_limit',
        provider: 'anthropic',
      },
    });
    run = await status(statusArgs(server.url, '/w'));
    assert.equal(run.session(reached).action, 'escalate');
    assert.equal(run.session(reached).escalation?.reason, 'reset-out-of-reach');
    run = await status(statusArgs(server.url, '/w', '--reset-within-reach', '360'));
    assert.equal(run.session(reached).action, 'wait-for-reset');
  });

  it('the readable table names verdicts, actions, walls and providers, and strips control characters', async () => {
    const now = Date.now();
    server.setProviders(
      [{ id: 'anthropic', quota: { markedAt: now, resetAt: now + HOUR } }, { id: 'openai' }],
      ['anthropic', 'openai'],
    );
    const d = server.directory('/w');
    const id = d.addSession({ state: 'idle', title: 'evil \u001b[31mred\u001b[0m title' });
    d.addMessage(id, { error: { text: 'usage limit', reason: 'account_usage_limit', provider: 'anthropic' } });
    const run = await status([
      '--base-url',
      server.url,
      '--directory',
      '/w',
      '--spacing',
      '1',
      '--allow-short-spacing',
    ]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /SESSION\s+TITLE\s+VERDICT\s+ACTION\s+QUOTA WALL\s+REPORT/);
    assert.match(run.stdout, /idle\s+recover on openai\s+usage-limit on anthropic/);
    assert.match(run.stdout, /PROVIDER\s+CONNECTED\s+QUOTA/);
    assert.match(run.stdout, /All providers free at: \d{4}-/);
    assert.ok(!run.stdout.includes('\u001b'), 'no escape sequences from server text');
  });

  describe('verdict evidence seen from outside', () => {
    it('a tool running past the ceiling with nothing else moving is hung, with the evidence; under it, healthy', async () => {
      const now = Date.now();
      server.setProviders([{ id: 'openai' }], ['openai']);
      const d = server.directory('/w');
      const id = d.addSession({ state: 'generating', progress: { stepCount: 5, lastStepAt: now - 47 * 60_000 } });
      d.addMessage(id, {
        text: '',
        parts: [{ type: 'tool', tool: 'bash', state: { status: 'running', time: { start: now - 47 * 60_000 } } }],
      });
      let run = await status(statusArgs(server.url, '/w'));
      assert.equal(run.session(id).verdict, 'hung', run.session(id).basis);
      assert.match(run.session(id).basis, /tool `bash` running for 47 min, nothing else moved/);
      assert.equal(run.session(id).action, 'abort-and-wake');
      run = await status(statusArgs(server.url, '/w', '--tool-ceiling-minutes', '60'));
      assert.equal(run.session(id).verdict, 'healthy', run.session(id).basis);
    });

    it('findings 5 and 6: a wall beats a report everywhere; a user prompt quoting a report is no report', async () => {
      const now = Date.now();
      server.setProviders(
        [{ id: 'anthropic', quota: { markedAt: now - 5 * 60_000 } }, { id: 'openai' }],
        ['anthropic', 'openai'],
      );
      const d = server.directory('/w');
      const both = d.addSession({ state: 'idle' });
      d.addMessage(both, {
        text: 'ticket=T-1 status=done summary="half"',
        error: { text: 'weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
      });
      const quoted = d.addSession({ state: 'idle' });
      d.addMessage(quoted, { role: 'user', text: 'Report like this:\nticket=T-2 status=done summary="example"' });
      const run = await status(statusArgs(server.url, '/w'));
      const b = run.session(both);
      assert.deepEqual([b.headline, b.action, b.recoverOn], ['quota-wall', 'recover', 'openai']);
      const q = run.session(quoted);
      assert.deepEqual([q.report, q.action, q.headline], [null, 'wake', 'idle']);
      const mark = run.doc!.providers.find((p) => p.id === 'anthropic')!.quota!;
      assert.ok(mark.ageMs! >= 5 * 60_000 && mark.ageMs! < 6 * 60_000, "the mark's age is shown");
      const table = await status([
        '--base-url',
        server.url,
        '--directory',
        '/w',
        '--spacing',
        '1',
        '--allow-short-spacing',
      ]);
      assert.match(table.stdout, /marked \S+ \(5 min ago\)/);
    });
  });

  describe('exit codes and errors', () => {
    it('2 on usage errors: spacing under 30 s without --allow-short-spacing, missing options, unknown flags', async () => {
      let run = await status(['--base-url', server.url, '--directory', '/w', '--spacing', '10']);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /under 30 s/);
      run = await status(['--base-url', server.url]);
      assert.equal(run.code, 2);
      assert.match(run.stderr, /--directory is required/);
      run = await status(['--base-url', 'ftp://x', '--directory', '/w']);
      assert.equal(run.code, 2);
      run = await status(['--base-url', server.url, '--directory', '/w', '--bogus']);
      assert.equal(run.code, 2);
      assert.equal(server.requests.length, 0);
    });

    it('1 when the backend cannot be read: malformed, unauthorized, refused; with a clear message', async () => {
      server.fault({ path: /^\/session$/, status: 200, body: '{"not":"a list"}' });
      let run = await status(statusArgs(server.url, '/w'));
      assert.equal(run.code, 1);
      assert.match(run.stderr, /cannot read the backend: GET \/session .*body this client cannot read/);
      await server.stop();
      run = await status(statusArgs(server.url, '/w'));
      assert.equal(run.code, 1);
      assert.match(run.stderr, /connection refused/);
      server = await startSpecServer({ password: 'pw' });
      server.setProviders([], []);
      run = await status(statusArgs(server.url, '/w'));
      assert.equal(run.code, 1);
      assert.match(run.stderr, /refused the credentials/);
      run = await status(statusArgs(server.url, '/w'), { SESSION_OPS_PASSWORD: 'pw' });
      assert.equal(run.code, 0, run.stderr);
      run = await status(statusArgs(server.url, '/w'), { SESSION_OPS_PASSWORD: 'pw', SESSION_OPS_USERNAME: 'someone' });
      assert.equal(run.code, 1);
    });

    it('a session whose newest message cannot be read is unknown with the reason (vanished: exit 0; read error: exit 1)', async () => {
      server.setProviders([{ id: 'openai' }], ['openai']);
      const d = server.directory('/w');
      const ok = d.addSession({ state: 'idle' });
      d.addMessage(ok, { text: 'I will continue tomorrow' });
      const gone = d.addSession({ state: 'generating' });
      d.addMessage(gone, { text: 'working' });
      server.fault({
        path: new RegExp(`^/session/${gone}/message$`),
        status: 404,
        body: '{"error":"not found"}',
        times: Infinity,
      });
      let run = await status(statusArgs(server.url, '/w'));
      assert.equal(run.code, 0, run.stderr);
      assertDocumentShape(run.doc!);
      assert.equal(run.session(ok).verdict, 'idle');
      const s = run.session(gone);
      assert.deepEqual([s.verdict, s.headline, s.action, s.settled], ['unknown', 'unreadable', 'leave-alone', false]);
      assert.match(s.unreadable ?? '', /vanished|not found|404/i);
      assert.match(s.basis, /could not be read/);
      assert.ok(
        run.doc!.errors.some((e) => e.sessionId === gone && e.kind === 'not-found'),
        'the document says the data is unavailable',
      );

      server.clearFaults();
      server.fault({ path: new RegExp(`^/session/${gone}/message$`), status: 500, body: 'boom', times: Infinity });
      run = await status(statusArgs(server.url, '/w'));
      assert.equal(run.code, 1);
      assert.equal(run.session(gone).verdict, 'unknown');
      run = await status(['--base-url', server.url, '--directory', '/w', '--spacing', '1', '--allow-short-spacing']);
      assert.match(run.stdout, new RegExp(`${gone}\\s+unknown\\s+leave-alone`));
      assert.match(run.stdout, /could not be read/);
    });

    it('--help prints the usage and exits 0', async () => {
      const run = await status(['--help']);
      assert.equal(run.code, 0);
      assert.match(run.stdout, /Usage: session-ops status/);
    });
  });
});
