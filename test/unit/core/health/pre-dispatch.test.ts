import assert from 'node:assert/strict';
import { preDispatchCheck } from '../../../../src/core/health/pre-dispatch';
import {
  chooseRecoveryProvider,
  earliestConnectedReset,
  freeProviders,
  modelOn,
} from '../../../../src/core/health/provider-choice';
import { listing, MIN, provider, T0 } from './fixtures';

describe('pre-dispatch check', () => {
  it('passes: intended unmarked, connected, and another connected provider exists', () => {
    const c = preDispatchCheck('anthropic', listing([provider('anthropic'), provider('openai')]));
    assert.deepEqual(c, { ok: true, problems: [], dispatchOn: 'anthropic', fallback: 'openai' });
  });

  it('intended marked: names the provider to dispatch on instead', () => {
    const c = preDispatchCheck(
      'anthropic',
      listing([
        provider('anthropic', { quota: { markedAt: T0, resetAt: T0 + MIN } }),
        provider('openai'),
        provider('groq'),
      ]),
    );
    assert.equal(c.ok, false);
    assert.equal(c.dispatchOn, 'openai');
    assert.equal(c.fallback, 'groq');
    assert.match(c.problems[0], /quota object/);
  });

  it('intended not connected: dispatch elsewhere', () => {
    const c = preDispatchCheck('anthropic', listing([provider('anthropic', { connected: false }), provider('openai')]));
    assert.equal(c.ok, false);
    assert.equal(c.dispatchOn, 'openai');
  });

  it('no other connected provider as fallback: fails, still names the intended one', () => {
    const c = preDispatchCheck('anthropic', listing([provider('anthropic'), provider('openai', { connected: false })]));
    assert.equal(c.ok, false);
    assert.equal(c.dispatchOn, 'anthropic');
    assert.equal(c.fallback, null);
    assert.match(c.problems.join(), /fallback/);
  });

  it('a quota-marked provider is no fallback: only a connected provider that could take the work counts', () => {
    const c = preDispatchCheck(
      'anthropic',
      listing([provider('anthropic'), provider('openai', { quota: { markedAt: T0, resetAt: T0 + MIN } })]),
    );
    assert.equal(c.ok, false);
    assert.equal(c.fallback, null);
    assert.match(c.problems.join(), /no other connected provider without a quota mark/);
  });

  it('intended marked and one free alternative: the alternative is named but has no fallback of its own', () => {
    const c = preDispatchCheck(
      'anthropic',
      listing([provider('anthropic', { quota: { markedAt: T0, resetAt: null } }), provider('openai')]),
    );
    assert.equal(c.dispatchOn, 'openai');
    assert.equal(c.fallback, null, 'the marked intended provider is not a fallback for openai');
  });

  it('nothing free at all: dispatchOn null', () => {
    const c = preDispatchCheck(
      'a',
      listing([
        provider('a', { quota: { markedAt: T0, resetAt: null } }),
        provider('b', { quota: { markedAt: T0, resetAt: null } }),
      ]),
    );
    assert.equal(c.dispatchOn, null);
    assert.equal(c.ok, false);
  });
});

describe('provider choice', () => {
  const l = listing([
    provider('a', { quota: { markedAt: T0, resetAt: T0 + 5 * MIN } }),
    provider('b'),
    provider('c', { connected: false }),
    provider('d', { models: ['x', 'y'], defaultModel: 'y' }),
  ]);
  it('free providers are connected and unmarked, in connected order', () => {
    assert.deepEqual(
      freeProviders(l).map((p) => p.id),
      ['b', 'd'],
    );
    assert.equal(chooseRecoveryProvider(l, 'b')?.id, 'd');
  });
  it('earliest reset among marked connected providers', () => {
    assert.equal(earliestConnectedReset(l), T0 + 5 * MIN);
  });
  it('modelOn prefers the requested model, then the default, then the first', () => {
    const d = l.providers[3];
    assert.deepEqual(modelOn(d, 'x'), { providerID: 'd', modelID: 'x' });
    assert.deepEqual(modelOn(d), { providerID: 'd', modelID: 'y' });
    assert.deepEqual(modelOn(provider('e', { models: [] })), null);
  });
});
