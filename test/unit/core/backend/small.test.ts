import assert from 'node:assert/strict';
import { ActivityCounter } from '../../../../src/core/backend/activity';
import {
  BackendError,
  codeForStatus,
  codeForTransportError,
  redactSecrets,
  transportDetail,
} from '../../../../src/core/backend/errors';
import { toBackendEvent } from '../../../../src/core/backend/events';
import { directoryProblem, isValidRequestId, isValidSessionId } from '../../../../src/core/backend/id-checks';
import { payloadBody, payloadFault, payloadProblem, textPrompt } from '../../../../src/core/backend/payload';
import { QuotaMarkBook } from '../../../../src/core/backend/quota-marks';
import { SseOverflow, SseParser } from '../../../../src/core/backend/sse';

describe('backend: errors', () => {
  it('status to kind', () => {
    assert.deepEqual([401, 403, 404, 400, 409, 500, 503].map(codeForStatus), [
      'unauthorized',
      'unauthorized',
      'not-found',
      'rejected',
      'rejected',
      'server',
      'server',
    ]);
  });
  it('transport errors to kind, looking through causes and aggregates', () => {
    assert.equal(codeForTransportError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })), 'refused');
    assert.equal(
      codeForTransportError(
        new Error('x', { cause: Object.assign(new Error('y'), { code: 'UND_ERR_HEADERS_TIMEOUT' }) }),
      ),
      'timeout',
    );
    assert.equal(
      codeForTransportError(
        Object.assign(new AggregateError([Object.assign(new Error(), { code: 'ECONNREFUSED' })]), {}),
      ),
      'refused',
    );
    assert.equal(codeForTransportError(Object.assign(new Error('x'), { code: 'ECONNRESET' })), 'network');
  });
  it('credentials never reach a message: Authorization, Basic/Bearer tokens, URL userinfo, API keys', () => {
    const basic = Buffer.from('opencode:hunter2-SECRET').toString('base64');
    const texts = [
      `authorization: Basic ${basic}`,
      `{"Authorization":"Basic ${basic}"}`,
      `sent Bearer sk-live-SECRET-abcdef`,
      'http://opencode:hunter2-SECRET@10.0.0.5:4096/',
      '{"options":{"apiKey":"sk-live-SECRET-abcdef","baseURL":"x"}}',
      'api_key=sk-live-SECRET-abcdef&x=1',
    ];
    for (const t of texts) {
      const r = redactSecrets(t);
      assert.ok(!/SECRET|hunter2/.test(r) && !r.includes(basic), `${t} -> ${r}`);
      assert.match(r, /\[redacted\]/);
    }
    assert.equal(
      redactSecrets('GET /session on http://127.0.0.1:1/: not found (HTTP 404)'),
      'GET /session on http://127.0.0.1:1/: not found (HTTP 404)',
    );
    // Even a detail that carries a header (e.g. from a transport error) is redacted in the message.
    const e = new BackendError({
      code: 'network',
      operation: 'GET /session',
      baseUrl: 'http://127.0.0.1:1/',
      detail: `authorization: Basic ${basic}`,
    });
    assert.ok(!e.message.includes(basic), e.message);
  });
  it('too-large and timeout read clearly; transport details are a known description or a bare code', () => {
    const e = new BackendError({
      code: 'too-large',
      operation: 'GET /session',
      baseUrl: 'http://h/',
      status: 200,
      detail: 'more than the 16 MiB read',
    });
    assert.equal(
      e.message,
      'GET /session on http://h/: the backend answered with a body larger than this client reads (HTTP 200; more than the 16 MiB read)',
    );
    assert.equal(
      transportDetail(Object.assign(new Error(), { code: 'UND_ERR_SOCKET' })),
      'connection closed by the backend, UND_ERR_SOCKET',
    );
    assert.equal(transportDetail(Object.assign(new Error(), { code: 'EWHATEVER' })), 'EWHATEVER');
    assert.equal(transportDetail(Object.assign(new Error(), { code: 'not a code: Basic abc' })), undefined);
  });
  it('readable messages, naming the vanished session', () => {
    const e = new BackendError({
      code: 'not-found',
      operation: 'GET /session/{id}/message',
      baseUrl: 'http://127.0.0.1:1/',
      status: 404,
      sessionId: 'ses_9',
    });
    assert.equal(
      e.message,
      'GET /session/{id}/message on http://127.0.0.1:1/: session ses_9 not found (it may have been deleted) (HTTP 404)',
    );
    assert.ok(e instanceof Error);
  });
});

describe('backend: ids and payloads', () => {
  it('session ids are safe path segments', () => {
    for (const ok of ['ses_dfe3ca681ffeQSgG5jZM36qBJ4', 'abc-1.2~x']) assert.equal(isValidSessionId(ok), true, ok);
    for (const bad of [
      '',
      '.',
      '..',
      '../x',
      '..%2F',
      '.hidden',
      'a/b',
      'a\\b',
      'a b',
      'a?b',
      'a#b',
      'a%2F',
      '%2e%2e',
      'a\u0000b',
      'a\nb',
      'a\u007fb',
      'ünï',
      'x'.repeat(256),
      5,
      null,
    ]) {
      assert.equal(isValidSessionId(bad), false, JSON.stringify(bad));
      assert.equal(isValidRequestId(bad), false, JSON.stringify(bad));
    }
    assert.equal(isValidSessionId('x'.repeat(255)), true);
    assert.equal(isValidRequestId('per_dfe3ca681ffe'), true);
  });
  it('directories', () => {
    assert.equal(directoryProblem('/work/x'), null);
    assert.match(directoryProblem('') ?? '', /non-empty/);
    assert.match(directoryProblem('a\0b') ?? '', /NUL/);
  });
  it('payload needs agent, an explicit model and text parts; the body is JSON of exactly those', () => {
    const p = textPrompt('build', { providerID: 'openai', modelID: 'gpt' }, 'line1\n"quoted" \\ }{');
    assert.equal(payloadProblem(p), null);
    assert.deepEqual(JSON.parse(payloadBody(p)), p);
    assert.match(payloadProblem({ agent: 'build', parts: [{ type: 'text', text: 'x' }] }) ?? '', /model/);
    assert.match(payloadProblem({ agent: '', model: { providerID: 'a', modelID: 'b' }, parts: [] }) ?? '', /agent/);
    assert.match(payloadProblem({ agent: 'a', model: { providerID: 'a', modelID: 'b' }, parts: [] }) ?? '', /parts/);
    // The field at fault is data (the guard's "set --agent" hint reads it, not the text).
    assert.equal(payloadFault({ agent: ' ', model: { providerID: 'a', modelID: 'b' }, parts: [] })?.field, 'agent');
    assert.equal(payloadFault({ agent: 'agentic', parts: [{ type: 'text', text: 'x' }] })?.field, 'model');
    assert.equal(payloadFault({ agent: 'a', model: { providerID: 'a', modelID: 'b' }, parts: [] })?.field, 'parts');
    const extra = { ...p, evil: true, parts: [{ type: 'text' as const, text: 'x', other: 1 }] };
    assert.deepEqual(Object.keys(JSON.parse(payloadBody(extra))), ['agent', 'model', 'parts']);
    assert.deepEqual(JSON.parse(payloadBody(extra)).parts, [{ type: 'text', text: 'x' }]);
  });
});

describe('backend: quota mark book (stock opencode)', () => {
  let now = 1000;
  const clock = () => now;
  beforeEach(() => (now = 1000));

  it('records, keeps the first markedAt and the newest reset', () => {
    const book = new QuotaMarkBook(clock);
    book.record('local', { at: 500, resetAt: 5000, category: 'rate-limit' });
    book.record('local', { at: 800, resetAt: 9000, category: 'rate-limit' });
    assert.deepEqual(book.get('local'), { markedAt: 500, resetAt: 9000, category: 'rate-limit' });
  });
  it('expires at the reset time', () => {
    const book = new QuotaMarkBook(clock);
    book.record('local', { at: 500, resetAt: 2000, category: 'rate-limit' });
    now = 2000;
    assert.equal(book.get('local'), null);
    assert.equal(book.size, 0);
  });
  it('a balance failure never expires by time and has no reset', () => {
    const book = new QuotaMarkBook(clock);
    book.record('p', { at: 500, resetAt: 2000, category: 'rate-limit' });
    book.record('p', { at: 600, resetAt: 3000, category: 'balance' });
    now = 10_000_000;
    assert.deepEqual(book.get('p'), { markedAt: 500, resetAt: null, category: 'balance' });
  });
  it('a later success of the provider ends the mark; an earlier one does not', () => {
    const book = new QuotaMarkBook(clock);
    book.record('p', { at: 500, resetAt: null, category: 'usage-limit' });
    book.observeSuccess('p', 400);
    assert.ok(book.get('p'));
    book.observeSuccess('p', 600);
    assert.equal(book.get('p'), null);
  });
  it('round-trips through JSON', () => {
    const book = new QuotaMarkBook(clock);
    book.record('p', { at: 500, resetAt: 99_999, category: 'free-tier' });
    const back = QuotaMarkBook.fromJSON(JSON.parse(JSON.stringify(book)), clock);
    assert.deepEqual(back.list(), book.list());
  });
});

describe('backend: server-sent events', () => {
  it('parses data lines, multi-line data, comments, CRLF and split chunks', () => {
    const p = new SseParser();
    const out = [
      ...p.push('data: {"a":1}\n\n: comment\nevent: x\ndata: l1\r\n'),
      ...p.push('data: l2\r'),
      ...p.push('\n\r\ndata: tail'),
      ...p.push('\n\n'),
    ];
    assert.deepEqual(out, [
      { event: 'message', data: '{"a":1}', id: null },
      { event: 'x', data: 'l1\nl2', id: null },
      { event: 'message', data: 'tail', id: null },
    ]);
  });
  it('counts complete lines (signs of life) and refuses an event or an endless line over its limit', () => {
    const p = new SseParser(100);
    p.push('data: {"type":"server.heartbeat"}\n\n: keepalive\n');
    assert.equal(p.lines, 3);
    p.push('data: ' + 'x'.repeat(50));
    assert.equal(p.lines, 3, 'an unfinished line is no sign of life');
    assert.throws(() => p.push('x'.repeat(60)), SseOverflow);
    const q = new SseParser(100);
    assert.throws(() => {
      for (let i = 0; i < 20; i++) q.push('data: 0123456789\n');
    }, SseOverflow);
    const r = new SseParser(100);
    for (let i = 0; i < 50; i++)
      assert.equal(r.push('data: 0123456789\n\n').length, 1, 'dispatched events do not count against the limit');
  });
  it('reads the minimal event view: type, session, announced state', () => {
    assert.deepEqual(
      toBackendEvent(
        '{"id":"evt_1","type":"session.status","properties":{"sessionID":"ses_1","status":{"type":"retry","attempt":1}}}',
      ),
      { type: 'session.status', sessionID: 'ses_1', state: 'generating' },
    );
    assert.deepEqual(toBackendEvent('{"type":"session.idle","properties":{"sessionID":"ses_1"}}'), {
      type: 'session.idle',
      sessionID: 'ses_1',
      state: 'idle',
    });
    assert.deepEqual(
      toBackendEvent('{"type":"session.updated","properties":{"info":{"sessionID":"ses_2","title":"x"}}}'),
      { type: 'session.updated', sessionID: 'ses_2', state: null },
    );
    assert.deepEqual(toBackendEvent('{"type":"server.heartbeat","properties":{}}'), {
      type: 'server.heartbeat',
      sessionID: null,
      state: null,
    });
    assert.equal(toBackendEvent('not json'), null);
    assert.equal(toBackendEvent('[1]'), null);
  });
});

describe('backend: activity counter', () => {
  it('counts output events per session, not status events', () => {
    const c = new ActivityCounter();
    for (const type of [
      'message.part.delta',
      'message.part.delta',
      'message.part.updated',
      'session.status',
      'message.updated',
      'server.heartbeat',
    ]) {
      c.onEvent({ type, sessionID: type === 'server.heartbeat' ? null : 'ses_1', state: null });
    }
    c.onEvent({ type: 'message.part.delta', sessionID: 'ses_2', state: null });
    assert.equal(c.count('ses_1'), 3);
    assert.equal(c.count('ses_2'), 1);
    assert.equal(c.count('ses_3'), 0);
    c.retain(['ses_2']);
    assert.equal(c.count('ses_1'), 0);
    assert.equal(c.count('ses_2'), 1);
  });
});
