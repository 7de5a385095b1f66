// The client against the spec-dialect test server (in-process, loopback) and small fakes of
// stock opencode's shapes: requests, encoding, auth, typed errors, dialect handling.
import { clockReading } from '../../../support/manual-clock';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BackendClient, boundSessions } from '../../../../src/core/backend/client';
import { BODY_LIMITS } from '../../../../src/core/backend/limits';
import { startFaultServer } from '../../../support/fault-server';
import { BackendError } from '../../../../src/core/backend/errors';
import { readEventStream, type BackendEvent, type EventStreamState } from '../../../../src/core/backend/events';
import { abortSession } from '../../../../src/core/actions/abort';
import { confirmStarted } from '../../../../src/core/actions/confirm';
import { recordWalls } from '../../../../src/core/health/record-walls';
import { guardedPrompt } from '../../../support/guarded-prompt';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';
import { fakeOpencode } from '../../../support/fake-opencode';

const DIR = '/work/a dir/with & ünïcode?#';

async function rejectsKind(p: Promise<unknown>, kind: BackendError['code']): Promise<BackendError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof BackendError, `expected a BackendError, got ${String(err)}`);
    assert.equal(err.code, kind, err.message);
    return err;
  }
  assert.fail(`expected a ${kind} error`);
}

describe('backend client against the spec-dialect server', function () {
  let server: SpecServer;
  let client: BackendClient;

  beforeEach(async () => {
    server = await startSpecServer();
    client = new BackendClient({ baseUrl: server.url, connections: 4, timeoutMs: 2000 });
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
  });

  it('sampleRound: one sample per session with state, progress and the newest message', async () => {
    const d = server.directory(DIR);
    const a = d.addSession({ state: 'generating', progress: { stepCount: 4, lastStepAt: 1000 } });
    const b = d.addSession({ state: 'idle' });
    d.addMessage(a, { text: 'first' });
    const newest = d.addMessage(a, { text: 'second' });
    assert.equal(client.capabilities, null, 'unknown before the first response');
    const round = await client.sampleRound(DIR);
    assert.equal(round.dialect, 'spec');
    assert.equal(client.dialect, 'spec');
    assert.deepEqual(client.capabilities, {
      events: false,
      sessionStatus: false,
      quotaObjects: true,
      progress: true,
      permissions: false,
      questions: false,
      todos: false,
      globalEvents: false,
      sessionCost: false,
      messageCost: false,
      promptVariant: false,
      createSession: false,
    });
    const byId = new Map(round.samples.map((s) => [s.session.id, s]));
    assert.equal(byId.get(a)?.newest?.id, newest);
    assert.equal(byId.get(a)?.newest?.text, 'second');
    assert.deepEqual(byId.get(a)?.session.progress, { stepCount: 4, lastStepAt: 1000 });
    assert.equal(byId.get(b)?.newest, null);
    assert.equal(byId.get(b)?.session.state, 'idle');
  });

  it('every request carries directory (exactly), and liveness reads limit=1 only', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating' });
    d.addMessage(id, { text: 'x' });
    server.setProviders([{ id: 'p' }], ['p']);
    await client.sampleRound(DIR);
    await client.newestMessage(DIR, id);
    await client.listProviders(DIR);
    await client.abort(DIR, id);
    await client.promptAsync(guardedPrompt(DIR, id, { providerID: 'p', modelID: 'm' }, 'go'));
    assert.ok(server.requests.length >= 6);
    for (const r of server.requests) assert.equal(r.query.directory, DIR, `${r.method} ${r.path}`);
    const messageReads = server.requests.filter((r) => r.path.endsWith('/message'));
    assert.ok(messageReads.length >= 2);
    for (const r of messageReads) assert.equal(r.query.limit, '1');
  });

  it('session ids are checked before a request and path segments are encoded', async () => {
    await rejectsKind(client.newestMessage(DIR, '../provider'), 'invalid-request');
    await rejectsKind(client.abort(DIR, 'a/b'), 'invalid-request');
    await rejectsKind(client.listSessions(''), 'invalid-request');
    assert.equal(server.requests.length, 0, 'nothing was sent');
    const d = server.directory(DIR);
    const id = d.addSession({ id: 'ses~odd.id-1', state: 'idle' });
    d.addMessage(id, { text: 'ok' });
    assert.equal((await client.newestMessage(DIR, id))?.text, 'ok');
  });

  it('the prompt body is JSON serialisation of the payload (quotes, newlines, braces intact)', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const text = 'line 1\n"quoted" \\ {"agent":"evil"} \u2028 end';
    await client.promptAsync(guardedPrompt(DIR, id, { providerID: 'openai', modelID: 'gpt-5' }, text));
    assert.deepEqual(server.prompts[0].payload, {
      agent: 'build',
      model: { providerID: 'openai', modelID: 'gpt-5' },
      parts: [{ type: 'text', text }],
    });
    // Unguarded: a hand-built payload, and a copy of a guarded prompt, are both refused before any request.
    const before = server.requests.length;
    await rejectsKind(
      client.promptAsync({ agent: 'build', parts: [{ type: 'text', text: 'x' }] } as never),
      'invalid-request',
    );
    await rejectsKind(
      client.promptAsync({ ...guardedPrompt(DIR, id, { providerID: 'openai', modelID: 'gpt-5' }, 'x') }),
      'invalid-request',
    );
    assert.equal(server.requests.length, before, 'nothing was sent');
  });

  it('provider listing: options dropped, quota read; maxAgeMs reuses a recent listing', async () => {
    server.setProviders(
      [{ id: 'a', options: { apiKey: 'sk-live-SECRET' }, quota: { markedAt: 5, resetAt: 9 } }, { id: 'b' }],
      ['a', 'b'],
    );
    const l = await client.listProviders(DIR);
    assert.ok(!JSON.stringify(l).includes('SECRET'));
    assert.deepEqual(l.providers[0].quota, { markedAt: 5, resetAt: 9 });
    await client.listProviders(DIR, { maxAgeMs: 60_000 });
    assert.equal(server.requests.filter((r) => r.path === '/provider').length, 1);
    // The spec's dialect (its quota objects live in GET /provider) is never read from another route.
    await client.listSessions(DIR);
    await client.listProviders(DIR);
    assert.equal(server.requests.filter((r) => r.path === '/provider').length, 2);
    assert.equal(server.requests.filter((r) => r.path === '/config/providers').length, 0);
  });

  it('a session that vanished between the list and its message read is reported as vanished', async () => {
    const d = server.directory(DIR);
    const keep = d.addSession({ state: 'idle' });
    const gone = d.addSession({ state: 'idle' });
    server.fault({ path: new RegExp(`/session/${gone}/message`), status: 404, body: '{}' });
    const round = await client.sampleRound(DIR);
    assert.deepEqual(round.vanished, [gone]);
    assert.deepEqual(
      round.samples.map((s) => s.session.id),
      [keep],
    );
    assert.deepEqual(round.errors, []);
    const err = await rejectsKind(client.newestMessage(DIR, 'ses_nope'), 'not-found');
    assert.equal(err.sessionId, 'ses_nope');
    assert.match(err.message, /session ses_nope not found/);
  });

  it('typed errors: 5xx, malformed JSON, wrong shape, timeout, dropped connection, caller abort', async () => {
    server.fault({ path: /^\/session$/, status: 503, body: 'down' });
    await rejectsKind(client.listSessions(DIR), 'server');
    server.fault({ path: /^\/session$/, status: 200, body: '<html>not json' });
    await rejectsKind(client.listSessions(DIR), 'malformed');
    server.fault({ path: /^\/session$/, status: 200, body: '{"sessions":[]}' });
    const shape = await rejectsKind(client.listSessions(DIR), 'malformed');
    assert.match(shape.message, /session list is not an array/);
    server.fault({ path: /^\/session$/, status: 200, body: '[{"id":"ses_1","state":"sleeping"}]' });
    await rejectsKind(client.listSessions(DIR), 'malformed');
    server.fault({
      path: /^\/provider$/,
      status: 200,
      body: '{"all":[{"id":"a","quota":{"resetAt":1}}],"connected":[]}',
    });
    await rejectsKind(client.listProviders(DIR), 'malformed');
    server.fault({ path: /^\/session$/, delayMs: 1500 });
    await rejectsKind(client.listSessions(DIR, { timeoutMs: 200 }), 'timeout');
    server.fault({ path: /^\/session$/, destroy: true });
    await rejectsKind(client.listSessions(DIR), 'network');
    server.fault({ path: /^\/session$/, delayMs: 1000 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    await rejectsKind(client.listSessions(DIR, { signal: ac.signal }), 'aborted');
    server.fault({ path: /^\/session$/, status: 400, body: '{}' });
    await rejectsKind(client.listSessions(DIR), 'rejected');
  });

  it('error messages never carry the directory, a response body or credentials', async () => {
    const c = new BackendClient({ baseUrl: server.url, password: 'hunter2-secret' });
    server.fault({ path: /^\/session$/, status: 500, body: '{"apiKey":"sk-BODY-SECRET"}' });
    try {
      const err = await rejectsKind(c.listSessions('/private/dir-name'), 'server');
      assert.ok(!/hunter2|BODY-SECRET|private\/dir-name/.test(err.message), err.message);
    } finally {
      await c.close();
    }
  });

  it('bounded concurrency: never more requests in flight than connections', async () => {
    const d = server.directory(DIR);
    for (let i = 0; i < 30; i++) d.addSession({ state: 'idle' });
    server.fault({ path: /\/message$/, delayMs: 20, times: Infinity });
    server.resetStats();
    const round = await client.sampleRound(DIR);
    assert.equal(round.samples.length, 30);
    assert.ok(server.stats.maxInFlight <= 4, `max in flight ${server.stats.maxInFlight}`);
    assert.ok(server.stats.maxInFlight >= 2, 'requests ran in parallel');
  });

  it('abortSession polls until the session reads idle', async () => {
    const id = server.directory(DIR).addSession({ state: 'generating' });
    server.abortDelayMs = 300;
    assert.equal((await abortSession({ backend: client, directory: DIR }, id, { pollMs: 50 })).idle, true);
    assert.equal(server.aborts.length, 1);
  });

  it('confirmStarted waits for a newer assistant message', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    const before = d.addMessage(id, { role: 'user', text: 'wake up' });
    setTimeout(() => d.addMessage(id, { text: 'awake' }), 150);
    const ctx = { backend: client, directory: DIR };
    const c = await confirmStarted(ctx, id, before, { pollMs: 50, withinMs: 3000, acceptGenerating: false });
    assert.equal(c.message?.text, 'awake');
    assert.equal(
      (await confirmStarted(ctx, id, c.message!.id, { pollMs: 20, withinMs: 100, acceptGenerating: false })).confirmed,
      false,
    );
  });

  it('the event reader never rejects: an invalid directory ends it with the error', async () => {
    const errors: string[] = [];
    const end = await readEventStream(client.transport, {
      directory: '',
      signal: new AbortController().signal,
      onEvent: () => {},
      onState: (_s, e) => e && errors.push(e.code),
    });
    assert.equal(end, 'stopped');
    assert.deepEqual(errors, ['invalid-request']);
  });

  it('the spec server has no event stream: the reader ends as unsupported', async () => {
    const states: EventStreamState[] = [];
    const end = await readEventStream(client.transport, {
      directory: DIR,
      signal: new AbortController().signal,
      onEvent: () => {},
      onState: (s) => states.push(s),
    });
    assert.equal(end, 'unsupported');
    assert.deepEqual(states, ['connecting', 'unsupported']);
  });
});

describe('backend client: authentication', () => {
  let server: SpecServer;
  beforeEach(async () => (server = await startSpecServer({ password: 's3cret' })));
  afterEach(async () => server.stop());

  it('HTTP Basic with user "opencode" by default; a wrong or missing password is unauthorized', async () => {
    const good = new BackendClient({ baseUrl: server.url, password: 's3cret' });
    const none = new BackendClient({ baseUrl: server.url });
    const wrongUser = new BackendClient({ baseUrl: server.url, username: 'admin', password: 's3cret' });
    try {
      assert.deepEqual((await good.listSessions(DIR)).sessions, []);
      const err = await rejectsKind(none.listSessions(DIR), 'unauthorized');
      assert.match(err.message, /SESSION_OPS_PASSWORD/);
      await rejectsKind(wrongUser.listSessions(DIR), 'unauthorized');
      const ended = await readEventStream(none.transport, {
        directory: DIR,
        signal: new AbortController().signal,
        onEvent: () => {},
      });
      assert.equal(ended, 'unauthorized');
    } finally {
      await Promise.all([good.close(), none.close(), wrongUser.close()]);
    }
  });

  it('credentials are not visible on the client object', async () => {
    const c = new BackendClient({ baseUrl: server.url, password: 's3cret' });
    try {
      const { inspect } = await import('node:util');
      assert.ok(!inspect(c, { depth: 5 }).includes('czNjcmV0'), 'no base64 credentials in inspect output');
      assert.ok(!JSON.stringify(Object.entries(c)).includes('s3cret'));
    } finally {
      await c.close();
    }
  });

  it('credentials in the base URL are refused', () => {
    assert.throws(() => new BackendClient({ baseUrl: 'http://u:p@127.0.0.1:1/' }), /credentials/);
  });
});

describe('backend client: deadlines and limits', function () {
  this.timeout(20_000);

  it('one total deadline for headers and body: a body dripping 3 bytes every 20 ms fails at the deadline', async () => {
    const fs = await startFaultServer({ dialect: 'spec', dripMs: 20 });
    const c = new BackendClient({ baseUrl: fs.url, timeoutMs: 300, providerTimeoutMs: 500 });
    try {
      fs.setFault('sessions', 'drip');
      let t0 = Date.now();
      const err = await rejectsKind(c.listSessions(DIR), 'timeout');
      assert.ok(Date.now() - t0 < 1_500, `${Date.now() - t0} ms`);
      assert.match(
        err.message,
        /^GET \/session on .*no complete answer within 300 ms \(one deadline for headers and body\)/,
      );
      fs.setFault('providers', 'drip');
      t0 = Date.now();
      await rejectsKind(c.listProviders(DIR), 'timeout');
      const took = Date.now() - t0;
      assert.ok(took >= 450 && took < 2_000, `the provider listing has its own deadline (${took} ms)`);
    } finally {
      await c.close();
      await fs.stop();
    }
  });

  it('the provider deadline defaults to twice the request deadline', async () => {
    const fs = await startFaultServer({ dialect: 'spec' });
    const c = new BackendClient({ baseUrl: fs.url, timeoutMs: 250 });
    try {
      fs.setFault('providers', 'no-answer');
      const t0 = Date.now();
      const err = await rejectsKind(c.listProviders(DIR), 'timeout');
      assert.ok(Date.now() - t0 >= 450, `${Date.now() - t0} ms`);
      assert.match(err.message, /within 500 ms/);
    } finally {
      await c.close();
      await fs.stop();
    }
  });

  it('each endpoint reads at most its limit and stops there: a 50 MB message is refused after about 8 MiB', async () => {
    const fs = await startFaultServer({ dialect: 'spec' });
    const c = new BackendClient({ baseUrl: fs.url, timeoutMs: 10_000 });
    try {
      fs.setFault('message', 'huge');
      const err = await rejectsKind(c.newestMessage(DIR, fs.sessionIds[0]), 'too-large');
      assert.match(err.message, /more than the 8 MiB read from one answer of GET \/session\/\{id\}\/message/);
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(
        fs.hugeBytesSent < BODY_LIMITS.message + 16 * 1024 * 1024,
        `the server stopped after ${fs.hugeBytesSent} bytes`,
      );
      fs.clearFaults();
      assert.equal((await c.newestMessage(DIR, fs.sessionIds[0]))?.id, 'msg_0001');
    } finally {
      await c.close();
      await fs.stop();
    }
  });

  it('sessions per directory per round are bounded: the most recently updated are sampled, the overflow is reported', async () => {
    const server = await startSpecServer();
    const c = new BackendClient({ baseUrl: server.url, maxSessionsPerRound: 3 });
    try {
      const d = server.directory(DIR);
      for (let i = 0; i < 5; i++) d.addMessage(d.addSession({ state: 'idle' }), { text: 'hi' });
      const round = await c.sampleRound(DIR);
      assert.deepEqual(round.truncated, { listed: 5, kept: 3 });
      assert.equal(round.samples.length, 3);
      assert.ok(
        round.warnings.some(
          (w) =>
            w ===
            '5 sessions listed; only the 3 most recently updated were sampled (the limit per directory per round)',
        ),
      );
      assert.equal(
        server.requests.filter((r) => r.path.endsWith('/message')).length,
        3,
        'only the kept sessions are read',
      );
      d.removeSession([...d.sessions.keys()][0]);
      d.removeSession([...d.sessions.keys()][0]);
      const full = await c.sampleRound(DIR);
      assert.equal(full.truncated, undefined);
      assert.equal(full.samples.length, 3);
    } finally {
      await c.close();
      await server.stop();
    }
  });

  it('boundSessions keeps the most recently updated, sessions without a time last, list order on ties', () => {
    const s = (id: string, updatedAt: number | null) => ({
      id,
      title: null,
      state: 'idle' as const,
      retry: null,
      progress: null,
      updatedAt,
    });
    const kept = boundSessions([s('a', null), s('b', 5), s('c', 9), s('d', 5), s('e', 1)], 3);
    assert.deepEqual(
      kept.map((x) => x.id),
      ['c', 'b', 'd'],
    );
    const all = [s('a', 1)];
    assert.equal(boundSessions(all, 3), all);
  });

  it('a 2xx HTML page (a proxy or login page) is an error even for a POST, which is never repeated', async () => {
    const fs = await startFaultServer({ dialect: 'spec' });
    const c = new BackendClient({ baseUrl: fs.url, timeoutMs: 2_000 });
    try {
      fs.setFault('abort', 'html');
      const err = await rejectsKind(c.abort(DIR, fs.sessionIds[0]), 'malformed');
      assert.match(err.message, /an HTML page instead of the backend's answer/);
      assert.equal(fs.requests.filter((r) => r.method === 'POST').length, 1);
    } finally {
      await c.close();
      await fs.stop();
    }
  });
});

describe('backend client: connection refused', () => {
  it('a closed port is a refused error', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const c = new BackendClient({ baseUrl: `http://127.0.0.1:${port}/` });
    try {
      const err = await rejectsKind(c.listSessions(DIR), 'refused');
      assert.match(err.message, /connection refused/);
    } finally {
      await c.close();
    }
  });
});

describe('backend client: stock opencode dialect (fake with the observed shapes)', () => {
  it('state from /session/status, progress derived, capabilities; retry walls recorded into its mark book', async () => {
    const now = 1_000_000;
    const fake = await fakeOpencode({
      status: {
        ses_b: { type: 'busy' },
        ses_r: { type: 'retry', attempt: 2, message: 'Rate limit reached', next: now + 3_600_000 },
      },
      messages: {
        ses_i: [
          {
            info: {
              id: 'msg_1',
              role: 'assistant',
              providerID: 'local',
              modelID: 'm1',
              time: { created: 10, completed: 20 },
            },
            parts: [{ type: 'text', text: 'done', time: { start: 11, end: 19 } }],
          },
        ],
        ses_b: [
          {
            info: { id: 'msg_2', role: 'assistant', providerID: 'local', time: { created: 30 } },
            parts: [{ type: 'step-start' }, { type: 'text', text: '', time: { start: 31 } }],
          },
        ],
        ses_r: [{ info: { id: 'msg_3', role: 'assistant', providerID: 'local', time: { created: 40 } }, parts: [] }],
      },
    });
    const c = new BackendClient({ baseUrl: fake.url, clock: clockReading(() => now) });
    try {
      const round = await c.sampleRound('/w');
      assert.equal(round.dialect, 'opencode');
      const by = new Map(round.samples.map((s) => [s.session.id, s]));
      assert.equal(by.get('ses_i')?.session.state, 'idle');
      assert.equal(by.get('ses_b')?.session.state, 'generating');
      assert.deepEqual(by.get('ses_b')?.session.progress, { stepCount: 2, lastStepAt: 31 });
      assert.equal(by.get('ses_r')?.session.retry?.attempt, 2);
      assert.deepEqual(c.capabilities, {
        events: true,
        sessionStatus: true,
        quotaObjects: false,
        progress: false,
        permissions: true,
        questions: true,
        todos: true,
        globalEvents: true,
        sessionCost: true,
        messageCost: true,
        promptVariant: true,
        createSession: true,
      });
      // The client only reads; the health layer records the walls into the client's mark book.
      assert.equal(c.marks.get('local'), null);
      recordWalls(c.marks, round.samples);
      assert.deepEqual(c.marks.get('local'), { markedAt: now, resetAt: now + 3_600_000, category: 'rate-limit' });
      const l = await c.listProviders('/w');
      const local = l.providers.find((p) => p.id === 'local');
      assert.deepEqual(local?.quota, { markedAt: now, resetAt: now + 3_600_000, category: 'rate-limit' });
      assert.equal(local?.defaultModel, 'm1');
      assert.ok(!JSON.stringify(l).includes('SECRET'));
      // The second round reads /session/status alongside /session; every request of the old
      // routes has directory; the only `/api` request is the one question whether it is served.
      await c.sampleRound('/w');
      const api = fake.seen.filter((line) => line.includes('/api/'));
      assert.deepEqual(api, ['GET /api/health?']);
      for (const line of fake.seen) if (!line.includes('/api/')) assert.match(line, /directory=%2Fw/, line);
    } finally {
      await c.close();
      await fake.stop();
    }
  });

  it('the event stream yields minimal events and reconnects after the server closes it', async () => {
    const fake = await fakeOpencode({ status: {}, messages: {} });
    const c = new BackendClient({ baseUrl: fake.url });
    const events: BackendEvent[] = [];
    const ac = new AbortController();
    try {
      const done = readEventStream(c.transport, {
        directory: '/w',
        signal: ac.signal,
        minBackoffMs: 20,
        onEvent: (e) => {
          events.push(e);
          if (events.filter((x) => x.type === 'server.connected').length >= 2) ac.abort();
        },
      });
      assert.equal(await done, 'stopped');
      assert.deepEqual(events.slice(0, 2), [
        { type: 'server.connected', sessionID: null, state: null },
        { type: 'session.status', sessionID: 'ses_a', state: 'generating' },
      ]);
      assert.ok(fake.seen.filter((s) => s.startsWith('GET /event?directory=%2Fw')).length >= 2, 'reconnected');
    } finally {
      await c.close();
      await fake.stop();
    }
  });
});
