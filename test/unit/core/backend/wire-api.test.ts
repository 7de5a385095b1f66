// The `/api` engine's bodies (shapes observed on opencode 1.18.33 and named by its `GET /doc`) read
// into the one model: messages (markers, failures, interrupts, parts), session pages, the running
// map, and the provider / model listings, which carry API keys that must never come through.
import assert from 'node:assert/strict';
import { apiMessageToRaw, isSwitchMarker, readApiMessagePage } from '../../../../src/core/backend/wire/api-message';
import {
  listsModel,
  listsVariant,
  readApiModels,
  readApiProviderListing,
} from '../../../../src/core/backend/wire/api-providers';
import { readActiveMap, readApiSessionList, readSessionModel } from '../../../../src/core/backend/wire/api-sessions';
import { toMessageSnapshot } from '../../../../src/core/backend/wire/message';
import { readMessagePage } from '../../../../src/core/backend/wire/message-page';
import { deriveProgress } from '../../../../src/core/backend/wire/opencode-progress';
import { holder, EngineBook, isSurface } from '../../../../src/core/backend/engines';

const model = { id: 'm1', providerID: 'local' };
const assistant = (extra: Record<string, unknown>) => ({
  id: 'msg_2',
  time: { created: 1000 },
  type: 'assistant',
  agent: 'build',
  model,
  content: [{ type: 'text', id: 'text-0', text: '' }],
  ...extra,
});

function snapshot(m: Record<string, unknown>) {
  const raw = apiMessageToRaw(m);
  assert.ok(raw);
  return toMessageSnapshot(raw);
}

describe('wire: /api engine messages', () => {
  it('reads a finished assistant turn with its model, text, cost and tokens', () => {
    const m = assistant({
      time: { created: 1000, completed: 2000 },
      content: [{ type: 'text', id: 'text-0', text: 'status=done summary=ok' }],
      finish: 'stop',
      cost: 0.5,
      tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
    });
    const s = snapshot(m);
    assert.deepEqual(
      { id: s.id, role: s.role, finish: s.finish, text: s.text, p: s.providerID, m: s.modelID, done: s.completedAt },
      {
        id: 'msg_2',
        role: 'assistant',
        finish: 'stop',
        text: 'status=done summary=ok',
        p: 'local',
        m: 'm1',
        done: 2000,
      },
    );
    const page = readMessagePage([apiMessageToRaw(m)], {});
    assert.equal(page.messages[0].cost?.usd, 0.5);
    assert.equal(page.messages[0].cost?.tokens.input, 10);
    assert.equal(page.messages[0].final, true);
  });

  it("reads a 402 from the engine's error text as a balance failure (HTTP status parsed from its fixed wording)", () => {
    const s = snapshot(
      assistant({
        content: [],
        finish: 'error',
        error: {
          type: 'unknown',
          message:
            'Provider request failed with HTTP 402: {"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}',
        },
      }),
    );
    assert.equal(s.finish, 'error');
    assert.equal(s.failure?.statusCode, 402);
    assert.equal(s.failure?.category, 'balance');
    assert.ok(!s.failure?.text.includes('exceeded'), 'the provider body is not kept in the failure text');
  });

  it('reads a 429 after the retries as a rate limit, an interrupt as an aborted turn (no wall), other errors as unknown', () => {
    const rate = snapshot(
      assistant({
        finish: 'error',
        error: { type: 'unknown', message: 'Provider request failed with HTTP 429: {"error":{"type":"rate_limit"}}' },
      }),
    );
    assert.equal(rate.failure?.category, 'rate-limit');
    const cut = snapshot(
      assistant({ finish: 'error', error: { type: 'unknown', message: 'Provider turn interrupted' } }),
    );
    assert.equal(cut.failure?.category, null);
    assert.match(cut.failure?.text ?? '', /MessageAbortedError/);
    const other = snapshot(
      assistant({
        finish: 'error',
        error: { type: 'unknown', message: 'Provider request failed with HTTP 402 somewhere' },
      }),
    );
    assert.equal(other.failure?.statusCode, null, 'only the exact wording yields a status');
  });

  it('model-switched and agent-switched entries are markers, never turns; a page reports them by count only', () => {
    const marker = { id: 'msg_3', time: { created: 3 }, type: 'model-switched', model };
    assert.equal(isSwitchMarker(marker), true);
    assert.equal(apiMessageToRaw(marker), null);
    assert.equal(apiMessageToRaw({ id: 'msg_4', time: { created: 4 }, type: 'agent-switched', agent: 'build' }), null);
    const page = readApiMessagePage({ data: [marker], cursor: { next: 'c1', previous: 'c0' } });
    assert.deepEqual(
      { n: page.messages.length, count: page.count, first: page.firstId, next: page.next },
      { n: 0, count: 1, first: 'msg_3', next: 'c1' },
    );
  });

  it('user, synthetic, system and compaction entries are not assistant turns; user text is kept', () => {
    const user = snapshot({ id: 'msg_1', time: { created: 1 }, text: 'do the thing', type: 'user' });
    assert.deepEqual([user.role, user.text], ['user', 'do the thing']);
    assert.equal(
      snapshot({ id: 'msg_5', time: { created: 1 }, sessionID: 'ses_x', text: 't', type: 'synthetic' }).role,
      'user',
    );
    assert.equal(snapshot({ id: 'msg_6', time: { created: 1 }, text: 't', type: 'system' }).role, 'system');
    assert.equal(
      snapshot({ id: 'msg_7', time: { created: 1 }, type: 'compaction', reason: 'auto', summary: 's', recent: 'r' })
        .role,
      'compaction',
    );
  });

  it('a running tool is a running tool, and progress grows with parts and finished tools', () => {
    const running = assistant({
      content: [
        {
          type: 'tool',
          id: 't1',
          name: 'bash',
          state: { status: 'running', input: {}, structured: {}, content: [] },
          time: { created: 1100, ran: 1200 },
        },
      ],
    });
    const s = snapshot(running);
    assert.deepEqual(s.runningTool, { name: 'bash', since: 1200 });
    const before = deriveProgress(apiMessageToRaw(running));
    const done = assistant({
      content: [
        {
          type: 'tool',
          id: 't1',
          name: 'bash',
          state: { status: 'completed' },
          time: { created: 1100, ran: 1200, completed: 1900 },
        },
        { type: 'text', id: 'x', text: 'ok' },
      ],
    });
    const after = deriveProgress(apiMessageToRaw(done));
    assert.ok(before && after && after.stepCount > before.stepCount && after.lastStepAt > before.lastStepAt);
  });

  it('rejects a page that is not one', () => {
    assert.throws(() => readApiMessagePage([]), /not an object/);
    assert.throws(() => readApiMessagePage({ data: [{ id: 1 }] }), /id is not a string/);
  });
});

describe('wire: /api engine sessions and running map', () => {
  it("keeps the directory's sessions only, and leaves the engine's zero cost unread", () => {
    const list = readApiSessionList(
      {
        data: [
          {
            id: 'ses_a',
            title: 'A',
            time: { created: 1, updated: 2 },
            cost: 0,
            tokens: {},
            location: { directory: '/w/a' },
          },
          { id: 'ses_b', title: 'B', time: { created: 1, updated: 2 }, location: { directory: '/w/b' } },
          { id: '../x', title: 'bad', time: {}, location: { directory: '/w/a' } },
        ],
        cursor: { next: 'n1' },
      },
      '/w/a',
    );
    assert.deepEqual(
      list.sessions.map((s) => s.id),
      ['ses_a'],
    );
    assert.equal(list.sessions[0].cost, undefined);
    assert.equal(list.next, 'n1');
    assert.equal(list.warnings.length, 2);
    assert.match(list.warnings.join('\n'), /1 sessions of other directories left out/);
  });

  it("reads the running map and a session's own model", () => {
    const m = readActiveMap({ data: { ses_a: { type: 'running' } } });
    assert.deepEqual([...m.entries()], [['ses_a', { state: 'generating', retry: null }]]);
    assert.equal(readActiveMap({ data: {} }).size, 0);
    assert.throws(() => readActiveMap({}), /data is not an object/);
    assert.deepEqual(
      readSessionModel({ data: { id: 'ses_a', model: { id: 'm1', providerID: 'local', variant: 'default' } } }),
      { providerID: 'local', modelID: 'm1', variant: null },
      'a switch without a variant reads back as "default": no variant',
    );
    assert.deepEqual(
      readSessionModel({ data: { id: 'ses_a', model: { id: 'm1', providerID: 'local', variant: 'high' } } }),
      { providerID: 'local', modelID: 'm1', variant: 'high' },
    );
    assert.deepEqual(readSessionModel({ data: { id: 'ses_a', model: { id: 'm1', providerID: 'local' } } }), {
      providerID: 'local',
      modelID: 'm1',
      variant: null,
    });
    assert.equal(readSessionModel({ data: { id: 'ses_a' } }), null);
  });
});

describe('wire: /api engine providers and models (API keys never read)', () => {
  const providers = {
    location: { directory: '/w/a', project: { id: 'global', directory: '/w/a' } },
    data: [
      {
        id: 'opencode',
        name: 'OpenCode Zen',
        api: { type: 'aisdk', url: 'https://x' },
        request: { headers: {}, body: { apiKey: 'public' } },
      },
      {
        id: 'local',
        name: 'Local',
        api: { type: 'aisdk', url: 'http://127.0.0.1/v1', settings: { apiKey: 'sk-SECRET-1' } },
        request: { headers: { authorization: 'Bearer sk-SECRET-2' }, body: {} },
      },
      { id: 'off', name: 'Off', disabled: true, api: { settings: { apiKey: 'sk-SECRET-3' } }, request: {} },
    ],
  };
  const models = {
    location: providers.location,
    data: [
      {
        id: 'm1',
        providerID: 'local',
        name: 'M1',
        enabled: true,
        variants: [
          { id: 'high', headers: { authorization: 'Bearer sk-SECRET-4' }, body: { reasoning_effort: 'high' } },
          { id: 'low', headers: {}, body: { reasoning_effort: 'low' } },
        ],
      },
      { id: 'm2', providerID: 'local', name: 'M2', enabled: false },
      { id: 'big-pickle', providerID: 'opencode', name: 'x', enabled: true },
    ],
  };

  it('lists providers with ids, names and enabled models only', () => {
    const byProvider = readApiModels(models);
    const listing = readApiProviderListing(providers, byProvider);
    assert.deepEqual(listing.connected, ['opencode', 'local']);
    assert.deepEqual(listing.providers.find((p) => p.id === 'local')?.models, ['m1']);
    assert.deepEqual(listing.providers.find((p) => p.id === 'local')?.variants, { m1: ['high', 'low'] });
    assert.equal(listing.providers.find((p) => p.id === 'opencode')?.variants, undefined, 'no variants listed: none');
    assert.equal(listing.providers.find((p) => p.id === 'off')?.connected, false);
    assert.ok(
      !/SECRET|public|apiKey|authorization|reasoning_effort/.test(JSON.stringify(listing)),
      "no key, header, setting or variant's options come through",
    );
    assert.equal(listsModel(byProvider, 'local', 'm1'), true);
    assert.equal(listsModel(byProvider, 'local', 'm2'), false, 'a disabled model is not listed');
    assert.equal(listsModel(byProvider, 'nope', 'zzz'), false);
    assert.equal(listsVariant(byProvider, 'local', 'm1', 'high'), true);
    assert.equal(listsVariant(byProvider, 'local', 'm1', 'max'), false);
    assert.equal(listsVariant(byProvider, 'opencode', 'big-pickle', 'high'), false);
  });
});

describe('engines: which engine holds a session', () => {
  it('the engine with a message holds it; neither: a new session', () => {
    assert.equal(holder(true, false), 'legacy');
    assert.equal(holder(false, true), 'api');
    assert.equal(holder(false, false), null);
  });

  it('auto finds out per session on a server with both; api / legacy force one; no old routes: all /api', () => {
    const auto = new EngineBook('auto');
    assert.equal(auto.of('ses_a'), 'legacy', 'until /api is known to be served, one engine');
    auto.legacy = true;
    auto.api = true;
    assert.equal(auto.both, true);
    assert.equal(auto.of('ses_a'), null);
    auto.set('ses_a', 'api');
    assert.equal(auto.of('ses_a'), 'api');
    assert.equal(auto.fallback, 'legacy');
    auto.legacy = false;
    assert.deepEqual([auto.apiOnly, auto.of('ses_b'), auto.fallback], [true, 'api', 'api']);
    const api = new EngineBook('api');
    assert.deepEqual([api.apiOnly, api.of('ses_a')], [true, 'api']);
    const legacy = new EngineBook('legacy');
    legacy.legacy = true;
    assert.deepEqual([legacy.both, legacy.of('ses_a')], [false, 'legacy']);
    assert.equal(isSurface('auto'), true);
    assert.equal(isSurface('v2'), false);
  });
});
