import assert from 'node:assert/strict';
import { chooseModel, parseModelRef, qualifies } from '../../../../src/core/actions/model-choice';
import type { ProviderListing, ProviderRecord } from '../../../../src/core/model';

const p = (id: string, extra: Partial<ProviderRecord> = {}): ProviderRecord => ({
  id,
  name: null,
  connected: true,
  quota: null,
  models: [],
  ...extra,
});
const listing = (
  providers: ProviderRecord[],
  connected = providers.filter((x) => x.connected).map((x) => x.id),
): ProviderListing => ({ providers, connected });

describe('model choice', () => {
  it('a requested model is used as given (the guard checks it)', () => {
    const c = chooseModel({
      requested: { providerID: 'x', modelID: 'y' },
      last: null,
      listing: listing([]),
      wallProvider: null,
    });
    assert.deepEqual([c.model, c.source], [{ providerID: 'x', modelID: 'y' }, 'requested']);
  });
  it("the session's last model when its provider is connected, unmarked and lists it", () => {
    const c = chooseModel({
      requested: null,
      last: { providerID: 'a', modelID: 'm9' },
      listing: listing([p('a', { models: ['m1', 'm9'] }), p('b', { models: ['x'] })]),
      wallProvider: null,
    });
    assert.deepEqual([c.model, c.source], [{ providerID: 'a', modelID: 'm9' }, 'session']);
  });
  it('a last model its provider does not list: a model seen answering recently there, then the default', () => {
    const l = listing([p('a', { models: ['m1', 'm2', 'm3'], defaultModel: 'm3' }), p('b', { models: ['x'] })]);
    const recent = chooseModel({
      requested: null,
      last: { providerID: 'a', modelID: 'gone' },
      recent: [
        { providerID: 'b', modelID: 'x' },
        { providerID: 'a', modelID: 'm2' },
      ],
      listing: l,
      wallProvider: null,
    });
    assert.deepEqual(recent.model, { providerID: 'a', modelID: 'm2' });
    const fallback = chooseModel({
      requested: null,
      last: { providerID: 'a', modelID: 'gone' },
      listing: l,
      wallProvider: null,
    });
    assert.deepEqual(fallback.model, { providerID: 'a', modelID: 'm3' });
  });
  it("the last provider marked: the next free provider's default model, else its first", () => {
    const l = listing([
      p('a', { quota: { markedAt: 1, resetAt: null }, models: ['m1'] }),
      p('b', { models: ['b1', 'b2'], defaultModel: 'b2' }),
      p('c', { models: ['c1'] }),
    ]);
    const c = chooseModel({
      requested: null,
      last: { providerID: 'a', modelID: 'm1' },
      listing: l,
      wallProvider: null,
    });
    assert.deepEqual([c.model, c.source], [{ providerID: 'b', modelID: 'b2' }, 'provider']);
    assert.match(c.basis, /last provider a does not qualify/);
    const first = chooseModel({
      requested: null,
      last: null,
      listing: listing([p('c', { models: ['c1', 'c2'] })]),
      wallProvider: null,
    });
    assert.deepEqual(first.model, { providerID: 'c', modelID: 'c1' });
  });
  it('never the wall provider, a disconnected or a marked one; prefer orders the free ones', () => {
    const l = listing([
      p('wall', { models: ['w'] }),
      p('off', { connected: false, models: ['o'] }),
      p('b', { models: ['b1'] }),
      p('c', { models: ['c1'] }),
    ]);
    const c = chooseModel({
      requested: null,
      last: { providerID: 'wall', modelID: 'w' },
      listing: l,
      wallProvider: 'wall',
    });
    assert.deepEqual(c.model, { providerID: 'b', modelID: 'b1' });
    assert.deepEqual(
      chooseModel({ requested: null, last: null, listing: l, wallProvider: 'wall', prefer: 'c' }).model,
      { providerID: 'c', modelID: 'c1' },
    );
    assert.equal(qualifies('off', l, null), false);
    assert.equal(qualifies('wall', l, 'wall'), false);
  });
  it('none qualifies: no model, and the basis says to add --model', () => {
    const c = chooseModel({
      requested: null,
      last: null,
      listing: listing([p('a', { quota: { markedAt: 1, resetAt: 2 } })]),
      wallProvider: null,
    });
    assert.equal(c.model, null);
    assert.match(c.basis, /no connected provider without a quota mark.*--model PROVIDER\/MODEL/);
    assert.match(
      chooseModel({ requested: null, last: null, listing: listing([p('a')]), wallProvider: null }).basis,
      /list no model/,
    );
  });
  it('parses provider/model (model ids may hold slashes)', () => {
    assert.deepEqual(parseModelRef('openrouter/meta/llama'), { providerID: 'openrouter', modelID: 'meta/llama' });
    assert.equal(parseModelRef('nomodel'), null);
    assert.equal(parseModelRef('/m'), null);
    assert.equal(parseModelRef('p/'), null);
  });
});
