import assert from 'node:assert/strict';
import { newestRawMessage, toMessageSnapshot } from '../../../../src/core/backend/wire/message';
import { deriveProgress } from '../../../../src/core/backend/wire/opencode-progress';
import { readProviderListing } from '../../../../src/core/backend/wire/providers';
import { resetFromHeaders, resetFromText } from '../../../../src/core/backend/wire/reset';
import {
  opencodeSession,
  readSessionList,
  readStatusMap,
  specSession,
} from '../../../../src/core/backend/wire/sessions';
import { ShapeError } from '../../../../src/core/backend/wire/shape';
import { providerListingDialect, sessionListDialect } from '../../../../src/core/backend/dialects/detect';

// Shapes observed on stock opencode 1.18.33 (trimmed).
const ocAssistant = (patch: Record<string, unknown> = {}, parts: unknown[] = []) => ({
  info: {
    id: 'msg_201c35da6001',
    role: 'assistant',
    modelID: 'm1',
    providerID: 'local',
    time: { created: 1000 },
    sessionID: 'ses_x',
    ...patch,
  },
  parts,
});

describe('wire: messages', () => {
  it('spec dialect: error text part with metadata gives the failure, finish error', () => {
    const m = toMessageSnapshot({
      info: { id: 'msg_2', role: 'assistant', finish: 'error' },
      parts: [
        { type: 'text', text: 'partial work' },
        {
          type: 'text',
          text: 'Weekly usage limit reached. Resets 2026-05-04T10:00:00Z',
          metadata: { error: true, reason: 'account_usage_limit', provider: 'anthropic' },
        },
      ],
    });
    assert.equal(m.finish, 'error');
    assert.equal(m.text, 'partial work', 'error text is not part of the message text');
    assert.deepEqual(m.failure, {
      text: 'Weekly usage limit reached. Resets 2026-05-04T10:00:00Z',
      reason: 'account_usage_limit',
      provider: 'anthropic',
      statusCode: null,
      category: 'usage-limit',
      resetAt: Date.parse('2026-05-04T10:00:00Z'),
    });
    assert.equal(m.providerID, 'anthropic');
  });

  it('spec dialect: an error part without a quota reason is a failure but no quota category', () => {
    const m = toMessageSnapshot({
      info: { id: 'm', role: 'assistant', finish: 'error' },
      parts: [{ type: 'text', text: 'tool crashed', metadata: { error: true } }],
    });
    assert.equal(m.failure?.category, null);
  });

  it('spec dialect: a balance failure is named by its reason (insufficient_quota)', () => {
    const m = toMessageSnapshot({
      info: { id: 'm', role: 'assistant', finish: 'error' },
      parts: [
        {
          type: 'text',
          text: 'generation failed with HTTP 402 insufficient_quota',
          metadata: { error: true, reason: 'insufficient_quota', provider: 'openai' },
        },
      ],
    });
    assert.equal(m.failure?.category, 'balance');
    assert.equal(m.failure?.statusCode, null, 'the spec dialect carries no structured status');
  });

  it('opencode: APIError 429 with retry-after -> rate-limit, reset from the header, finish normalized to error', () => {
    const m = toMessageSnapshot(
      ocAssistant({
        time: { created: 1000, completed: 5000 },
        error: {
          name: 'APIError',
          data: {
            message: 'Rate limit reached',
            statusCode: 429,
            isRetryable: true,
            responseHeaders: { 'retry-after': '3600' },
            responseBody: '{"error":{"type":"rate_limit"}}',
          },
        },
      }),
    );
    assert.equal(m.finish, 'error');
    assert.equal(m.failure?.category, 'rate-limit');
    assert.equal(m.failure?.reason, 'rate_limit');
    assert.equal(m.failure?.resetAt, 5000 + 3600_000);
    assert.equal(m.failure?.provider, null);
    assert.equal(m.providerID, 'local');
  });

  it('opencode: APIError 402 insufficient_quota -> balance', () => {
    const m = toMessageSnapshot(
      ocAssistant({
        error: {
          name: 'APIError',
          data: {
            message: 'You exceeded your current quota',
            statusCode: 402,
            isRetryable: false,
            responseBody: '{"error":{"code":"insufficient_quota"}}',
          },
        },
      }),
    );
    assert.equal(m.failure?.category, 'balance');
    assert.equal(m.failure?.reason, 'insufficient_quota');
  });

  it('opencode: aborted and other errors are failures without a quota category', () => {
    assert.equal(
      toMessageSnapshot(ocAssistant({ error: { name: 'MessageAbortedError', data: { message: 'Aborted' } } })).failure
        ?.category,
      null,
    );
    assert.equal(
      toMessageSnapshot(ocAssistant({ error: { name: 'APIError', data: { message: 'boom', statusCode: 500 } } }))
        .failure?.category,
      null,
    );
    assert.match(
      toMessageSnapshot(ocAssistant({ error: { name: 'ProviderAuthError', data: { message: 'bad key' } } })).failure
        ?.text ?? '',
      /ProviderAuthError: bad key/,
    );
  });

  it('opencode: a user message takes its provider from info.model; tool parts in state running are reported', () => {
    const u = toMessageSnapshot({
      info: { id: 'm', role: 'user', model: { providerID: 'local', modelID: 'm1' } },
      parts: [{ type: 'text', text: 'do it' }],
    });
    assert.equal(u.providerID, 'local');
    assert.equal(u.text, 'do it');
    const t = toMessageSnapshot(
      ocAssistant({}, [
        { type: 'step-start' },
        { type: 'tool', tool: 'bash', state: { status: 'running', time: { start: 1500 } } },
      ]),
    );
    assert.deepEqual(t.runningTool, { name: 'bash', since: 1500 });
    assert.equal(t.partCount, 2);
  });

  it('newest message: element 0, or the highest id when a server ignores limit', () => {
    assert.equal(newestRawMessage([]), null);
    const list = [
      { info: { id: 'msg_1', role: 'user' } },
      { info: { id: 'msg_3', role: 'assistant' } },
      { info: { id: 'msg_2', role: 'assistant' } },
    ];
    assert.equal((newestRawMessage(list)?.info as { id: string }).id, 'msg_3');
  });

  it('malformed: not an array, no info, id not a string, parts not an array', () => {
    assert.throws(() => newestRawMessage({}), ShapeError);
    assert.throws(() => toMessageSnapshot({ parts: [] }), ShapeError);
    assert.throws(() => toMessageSnapshot({ info: { id: 5, role: 'assistant' } }), ShapeError);
    assert.throws(() => toMessageSnapshot({ info: { id: 'm', role: 'assistant' }, parts: 'x' }), ShapeError);
    assert.throws(
      () => toMessageSnapshot({ info: { id: 'm', role: 'assistant' }, parts: [{ type: 'text', text: 7 }] }),
      ShapeError,
    );
  });
});

describe('wire: derived progress (stock opencode)', () => {
  it('grows when a part is added or finishes, lastStepAt is the newest time stamp', () => {
    const streaming = ocAssistant({}, [{ type: 'step-start' }, { type: 'text', text: '', time: { start: 1100 } }]);
    const finished = ocAssistant({ time: { created: 1000, completed: 1900 } }, [
      { type: 'step-start' },
      { type: 'text', text: 'hi', time: { start: 1100, end: 1800 } },
      { type: 'step-finish' },
    ]);
    const a = deriveProgress(streaming)!;
    const b = deriveProgress(finished)!;
    assert.deepEqual(a, { stepCount: 2, lastStepAt: 1100 });
    assert.ok(b.stepCount > a.stepCount);
    assert.equal(b.lastStepAt, 1900);
  });

  it('a stalled stream reads the same twice (frozen)', () => {
    const m = ocAssistant({}, [{ type: 'step-start' }, { type: 'text', text: '', time: { start: 1100 } }]);
    assert.deepEqual(deriveProgress(m), deriveProgress(structuredClone(m)));
  });

  it('tool state transitions move it', () => {
    const running = ocAssistant({}, [{ type: 'tool', state: { status: 'running', time: { start: 1200 } } }]);
    const done = ocAssistant({}, [{ type: 'tool', state: { status: 'completed', time: { start: 1200, end: 9000 } } }]);
    assert.notDeepEqual(deriveProgress(running), deriveProgress(done));
  });

  it('no message, no progress', () => {
    assert.equal(deriveProgress(null), null);
  });
});

describe('wire: sessions', () => {
  it('spec dialect detected from state; progress checked', () => {
    const list = readSessionList([
      { id: 'ses_1', state: 'generating', progress: { stepCount: 3, lastStepAt: 99 } },
      { id: 'ses_2', state: 'idle' },
    ]);
    assert.equal(sessionListDialect(list.sessions), 'spec');
    assert.deepEqual(
      list.sessions.map(specSession).map((s) => [s.id, s.state, s.progress]),
      [
        ['ses_1', 'generating', { stepCount: 3, lastStepAt: 99 }],
        ['ses_2', 'idle', null],
      ],
    );
  });

  it('opencode dialect: no state; busy/retry = generating, absent = idle', () => {
    const list = readSessionList([
      { id: 'ses_a', title: 't', time: { created: 1, updated: 2 } },
      { id: 'ses_b' },
      { id: 'ses_c' },
    ]);
    assert.equal(sessionListDialect(list.sessions), 'opencode');
    const status = readStatusMap({
      ses_a: { type: 'busy' },
      ses_b: { type: 'retry', attempt: 2, message: 'Rate limit reached', next: 12345 },
    });
    const [a, b, c] = list.sessions.map((s) => opencodeSession(s, status));
    assert.deepEqual([a.state, a.title, a.updatedAt], ['generating', 't', 2]);
    assert.deepEqual([b.state, b.retry], ['generating', { attempt: 2, message: 'Rate limit reached', next: 12345 }]);
    assert.deepEqual([c.state, c.retry], ['idle', null]);
  });

  it('empty list: dialect unknown', () => {
    assert.equal(sessionListDialect(readSessionList([]).sessions), null);
  });

  it('unsafe ids are left out with a warning', () => {
    const list = readSessionList([
      { id: '../../etc', state: 'idle' },
      { id: 'ses_ok', state: 'idle' },
    ]);
    assert.deepEqual(
      list.sessions.map((s) => s.id),
      ['ses_ok'],
    );
    assert.match(list.warnings[0], /not a safe path segment/);
  });

  it("spec dialect: a parentID (stock opencode's name) is read like stock opencode's; an unsafe one is not", () => {
    assert.equal(specSession({ id: 'ses_c', state: 'idle', parentID: 'ses_p' }).parentId, 'ses_p');
    assert.equal(specSession({ id: 'ses_c', state: 'idle' }).parentId, null);
    assert.equal(specSession({ id: 'ses_c', state: 'idle', parentID: '../x' }).parentId, null);
  });

  it('malformed: bad state, bad progress, mixed dialects, id missing', () => {
    assert.throws(() => specSession({ id: 'x', state: 'running' }), ShapeError);
    assert.throws(
      () => specSession({ id: 'x', state: 'idle', progress: { stepCount: '3', lastStepAt: 1 } }),
      ShapeError,
    );
    assert.throws(
      () => sessionListDialect(readSessionList([{ id: 'a', state: 'idle' }, { id: 'b' }]).sessions),
      ShapeError,
    );
    assert.throws(() => readSessionList([{ state: 'idle' }]), ShapeError);
    assert.throws(() => readSessionList({ sessions: [] }), ShapeError);
  });
});

describe('wire: provider listing', () => {
  it('drops options (API keys), keeps quota, connected flags and model ids', () => {
    const body = {
      all: [
        { id: 'local', name: 'Local', options: { apiKey: 'sk-SECRET' }, models: { m1: { name: 'M1' } } },
        { id: 'anthropic', quota: { markedAt: 10, resetAt: 20 }, models: ['claude'] },
        { id: 'zen', quota: { markedAt: 11 } },
      ],
      connected: ['local', 'anthropic', 'extra'],
      default: { local: 'm1' },
    };
    const listing = readProviderListing(body);
    assert.ok(!JSON.stringify(listing).includes('SECRET'));
    assert.ok(!JSON.stringify(listing).includes('options'));
    const [local, anthropic, zen, extra] = listing.providers;
    assert.deepEqual(local, {
      id: 'local',
      name: 'Local',
      connected: true,
      quota: null,
      models: ['m1'],
      defaultModel: 'm1',
    });
    assert.deepEqual(anthropic.quota, { markedAt: 10, resetAt: 20 });
    assert.deepEqual(zen.quota, { markedAt: 11, resetAt: null });
    assert.equal(zen.connected, false);
    assert.equal(extra.id, 'extra');
    assert.equal(providerListingDialect(body), 'spec');
  });

  it('malformed: all not an array, connected entries not strings, quota without markedAt', () => {
    assert.throws(() => readProviderListing({ all: {}, connected: [] }), ShapeError);
  });

  it('a model variant table: its names per model, never its options (issue 31)', () => {
    const listing = readProviderListing({
      all: [
        {
          id: 'anthropic',
          options: { apiKey: 'SECRET' },
          models: {
            big: { id: 'big', options: { x: 'SECRET' }, variants: { high: { thinking: 'SECRET' }, max: {} } },
            plain: { id: 'plain' },
            empty: { id: 'empty', variants: {} },
          },
        },
        { id: 'spec', models: [{ id: 'm', variants: { low: {} } }, 'n'] },
        { id: 'bare', models: { a: {} } },
      ],
      connected: ['anthropic'],
    });
    assert.ok(!JSON.stringify(listing).includes('SECRET'));
    const [anthropic, spec, bare] = listing.providers;
    assert.deepEqual({ ...anthropic.variants }, { big: ['high', 'max'], empty: [] });
    assert.deepEqual({ ...spec.variants }, { m: ['low'] });
    assert.equal(bare.variants, undefined);
    assert.throws(() => readProviderListing({ all: [], connected: [1] }), ShapeError);
    assert.throws(() => readProviderListing({ all: [{ id: 'a', quota: { resetAt: 1 } }], connected: [] }), ShapeError);
  });
});

describe('wire: reset estimates', () => {
  it('retry-after seconds, retry-after-ms, an HTTP date', () => {
    assert.equal(resetFromHeaders({ 'Retry-After': '120' }, 1000), 121_000);
    assert.equal(resetFromHeaders({ 'retry-after-ms': '1500' }, 1000), 2500);
    assert.equal(
      resetFromHeaders({ 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' }, 1000),
      Date.parse('Wed, 21 Oct 2026 07:28:00 GMT'),
    );
    assert.equal(resetFromHeaders({}, 1000), null);
    assert.equal(resetFromHeaders({ 'retry-after': '5' }, null), null);
  });
  it('an ISO time in the text', () => {
    assert.equal(resetFromText('resets at 2026-05-04T10:00:00+02:00'), Date.parse('2026-05-04T10:00:00+02:00'));
    assert.equal(resetFromText('resets on Monday'), null);
  });
});
