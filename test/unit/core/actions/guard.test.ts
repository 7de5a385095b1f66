import assert from 'node:assert/strict';
import { guardPrompt, isGuardedPrompt } from '../../../../src/core/actions/guard';
import type { ProviderListing } from '../../../../src/core/model';

const listing: ProviderListing = {
  providers: [
    {
      id: 'anthropic',
      name: null,
      connected: true,
      quota: { markedAt: 1, resetAt: 2_000_000_000_000 },
      models: ['sonnet'],
    },
    { id: 'openai', name: null, connected: true, quota: null, models: ['gpt-5'] },
    { id: 'groq', name: null, connected: false, quota: null, models: ['llama'] },
  ],
  connected: ['anthropic', 'openai'],
};
const base = {
  directory: '/w',
  sessionId: 'ses_1',
  agent: 'build',
  text: 'wake up\n"quoted"',
  listing,
  wallProvider: null,
};

describe('send guard', () => {
  it('passes an explicit model on a connected, unmarked provider that is not the wall', () => {
    const r = guardPrompt({ ...base, model: { providerID: 'openai', modelID: 'gpt-5' } });
    assert.ok(r.ok);
    assert.equal(r.prompt.text, base.text);
    assert.deepEqual(r.prompt.payload, {
      agent: 'build',
      model: { providerID: 'openai', modelID: 'gpt-5' },
      parts: [{ type: 'text', text: base.text }],
    });
    assert.ok(Object.isFrozen(r.prompt) && Object.isFrozen(r.prompt.payload));
    assert.ok(isGuardedPrompt(r.prompt));
    assert.equal(isGuardedPrompt({ ...r.prompt }), false, 'a copy is not guarded');
  });

  const cases: Array<
    [string, Partial<typeof base> & { model: { providerID: string; modelID: string } | null }, string, RegExp]
  > = [
    ['no model', { model: null }, 'no-model', /--model PROVIDER\/MODEL/],
    ['empty model id', { model: { providerID: 'openai', modelID: '' } }, 'no-model', /--model/],
    [
      'disconnected provider',
      { model: { providerID: 'groq', modelID: 'llama' } },
      'provider-not-connected',
      /not connected.*--model.*free: openai/,
    ],
    ['unknown provider', { model: { providerID: 'nope', modelID: 'x' } }, 'provider-not-connected', /not connected/],
    [
      'quota-marked provider',
      { model: { providerID: 'anthropic', modelID: 'sonnet' } },
      'provider-marked',
      /quota mark \(until 2033.*--model/,
    ],
    [
      'the wall provider',
      { model: { providerID: 'openai', modelID: 'gpt-5' }, wallProvider: 'openai' as never },
      'provider-is-wall',
      /quota wall; choose another provider with --model/,
    ],
    [
      'empty prompt',
      { model: { providerID: 'openai', modelID: 'gpt-5' }, text: '  \n' },
      'empty-prompt',
      /prompt is empty/,
    ],
    ['empty agent', { model: { providerID: 'openai', modelID: 'gpt-5' }, agent: '' }, 'invalid-payload', /--agent/],
  ];
  for (const [name, patch, code, reason] of cases) {
    it(`refuses: ${name}, keeping the prompt and the model`, () => {
      const r = guardPrompt({ ...base, ...patch } as never);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.refusal.code, code);
      assert.match(r.refusal.reason, reason);
      assert.equal(r.refusal.prompt, (patch as { text?: string }).text ?? base.text);
      assert.deepEqual(r.refusal.model, patch.model);
    });
  }

  it('a client-side mark merged into the listing (stock opencode) refuses like a quota object', () => {
    const marked: ProviderListing = {
      ...listing,
      providers: listing.providers.map((p) =>
        p.id === 'openai' ? { ...p, quota: { markedAt: 5, resetAt: null } } : p,
      ),
    };
    const r = guardPrompt({ ...base, listing: marked, model: { providerID: 'openai', modelID: 'gpt-5' } });
    assert.ok(!r.ok && r.refusal.code === 'provider-marked' && /reset unknown/.test(r.refusal.reason));
  });

  it("a model the provider listing does not name is refused, and the message lists the provider's models", () => {
    const r = guardPrompt({ ...base, model: { providerID: 'openai', modelID: 'no-such-model' } });
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.refusal.code, 'model-unknown');
      assert.match(r.refusal.reason, /openai does not list no-such-model; its models: gpt-5/);
    }
  });
});
