// Dispatch by route, the variant (issue 31 item 3): the route's effort is sent as the model's
// variant of that name from the provider listing's variant table, only to a backend whose prompt
// payload takes a variant (capabilities.promptVariant: stock opencode). The spec's payload defines
// agent, model and parts only: there the effort is not sent, and the client itself refuses a
// payload with a variant.
import assert from 'node:assert/strict';
import { resolveAuthority } from '../../../../src/core/actions/authority';
import type { ActionContext } from '../../../../src/core/actions/executor-context';
import { dispatchTask, effortVariant } from '../../../../src/core/actions/dispatch';
import { guardPrompt } from '../../../../src/core/actions/guard';
import { BackendClient } from '../../../../src/core/backend/client';
import { BackendError } from '../../../../src/core/backend/errors';
import type { GuardedPrompt } from '../../../../src/core/backend/guarded-prompt';
import { payloadBody, textPrompt } from '../../../../src/core/backend/payload';
import type { ProviderListing } from '../../../../src/core/model';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const SONNET = { providerID: 'anthropic', modelID: 'sonnet' };

const listing = (variants?: Record<string, readonly string[]>): ProviderListing => ({
  providers: [
    {
      id: 'anthropic',
      name: null,
      connected: true,
      quota: null,
      models: ['sonnet'],
      defaultModel: null,
      ...(variants ? { variants } : {}),
    },
    { id: 'openai', name: null, connected: true, quota: null, models: ['gpt-5'], defaultModel: null },
  ],
  connected: ['anthropic', 'openai'],
});

describe('dispatch by route: the effort as the model variant', function () {
  it('effortVariant: the variant of the effort when the model lists it and the dialect takes it; else null and why', () => {
    const takes = { backend: { capabilities: { promptVariant: true } } } as unknown as ActionContext;
    const spec = { backend: { capabilities: { promptVariant: false } } } as unknown as ActionContext;
    const table = listing({ sonnet: ['high', 'max'] });
    assert.deepEqual(effortVariant(takes, 'high', SONNET, table), { variant: 'high', note: null });
    assert.deepEqual(effortVariant(takes, null, SONNET, table), { variant: null, note: null });
    assert.match(effortVariant(takes, 'low', SONNET, table).note ?? '', /variants \(high, max\) have none named low/);
    assert.match(effortVariant(takes, 'high', SONNET, listing()).note ?? '', /has no variant table/);
    assert.match(effortVariant(spec, 'high', SONNET, table).note ?? '', /defines no variant/);
  });

  it('the guard puts a listed variant in the payload, refuses an unlisted one; the body carries variant only when set', () => {
    const input = { directory: DIR, sessionId: 'ses_1', agent: 'build', model: SONNET, text: 'go', wallProvider: null };
    const ok = guardPrompt({ ...input, listing: listing({ sonnet: ['high'] }), variant: 'high' });
    assert.ok(ok.ok);
    assert.equal(JSON.parse(payloadBody(ok.prompt.payload)).variant, 'high');
    const bad = guardPrompt({ ...input, listing: listing({ sonnet: ['high'] }), variant: 'max' });
    assert.ok(!bad.ok);
    assert.equal(bad.refusal.code, 'invalid-payload');
    assert.deepEqual(Object.keys(JSON.parse(payloadBody(textPrompt('build', SONNET, 'go')))), [
      'agent',
      'model',
      'parts',
    ]);
  });

  describe('against the spec-dialect server', () => {
    let server: SpecServer;
    let client: BackendClient;
    beforeEach(async () => {
      server = await startSpecServer();
      server.setProviders(
        [
          { id: 'anthropic', models: { sonnet: { variants: { high: {}, max: {} } } } },
          { id: 'openai', models: ['gpt-5'] },
        ],
        ['anthropic', 'openai'],
      );
      client = new BackendClient({ baseUrl: server.url });
    });
    afterEach(async () => {
      await client.close();
      await server.stop();
    });

    it("a dialect that takes a variant: the dispatch payload carries the effort's variant", async () => {
      const id = server.directory(DIR).addSession({ state: 'idle' });
      const sent: GuardedPrompt[] = [];
      // The spec server stands in for a backend whose payload takes a variant: the prompt is recorded, not posted.
      const backend: ActionContext['backend'] = {
        listSessions: client.listSessions.bind(client),
        newestMessage: client.newestMessage.bind(client),
        abort: client.abort.bind(client),
        listProviders: client.listProviders.bind(client),
        sampleRound: client.sampleRound.bind(client),
        vcsStatus: client.vcsStatus.bind(client),
        firstUserMessage: client.firstUserMessage.bind(client),
        capabilities: { events: false, sessionStatus: false, quotaObjects: true, progress: true, promptVariant: true },
        promptAsync: async (p: GuardedPrompt) => void sent.push(p),
      };
      const r = await dispatchTask(
        { backend, directory: DIR },
        {
          sessionId: id,
          task: 'Fix it.',
          model: SONNET,
          authority: resolveAuthority({ ticket: 'PROJ-1', orchestrator: 'ses_o' }),
          effort: 'max',
        },
      );
      assert.equal(r.outcome, 'sent', r.message);
      assert.equal(r.variant, 'max');
      assert.match(r.message, /anthropic\/sonnet variant max/);
      assert.equal(sent[0].payload.variant, 'max');
      assert.equal(JSON.parse(payloadBody(sent[0].payload)).variant, 'max');
    });

    it('the spec dialect: the effort is not sent (a note says so); the client refuses a payload with a variant', async () => {
      const id = server.directory(DIR).addSession({ state: 'idle' });
      const r = await dispatchTask(
        { backend: client, directory: DIR },
        {
          sessionId: id,
          task: 'Fix it.',
          model: SONNET,
          authority: resolveAuthority({ ticket: 'PROJ-1', orchestrator: 'ses_o' }),
          effort: 'high',
        },
      );
      assert.equal(r.outcome, 'sent', r.message);
      assert.equal(r.variant, null);
      assert.match(r.variantNote ?? '', /not sent: this backend's prompt payload defines no variant/);
      assert.deepEqual(Object.keys(server.prompts[0].payload).sort(), ['agent', 'model', 'parts']);
      const guarded = guardPrompt({
        directory: DIR,
        sessionId: id,
        agent: 'build',
        model: SONNET,
        text: 'x',
        listing: await client.listProviders(DIR),
        wallProvider: null,
        variant: 'high',
      });
      assert.ok(guarded.ok);
      await assert.rejects(
        client.promptAsync(guarded.prompt),
        (e: unknown) =>
          e instanceof BackendError && e.code === 'invalid-request' && /defines no variant/.test(e.message),
      );
      assert.equal(server.prompts.length, 1, 'nothing more was posted');
    });
  });
});
