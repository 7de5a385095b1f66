import assert from 'node:assert/strict';
import { DIALECTS, dialectDisplayName } from '../../../../src/core/backend/dialects';
import { DialectDetector, providerListingDialect } from '../../../../src/core/backend/dialects/detect';
import { readStatusMap } from '../../../../src/core/backend/wire/sessions';
import { ShapeError } from '../../../../src/core/backend/wire/shape';

describe('dialects: the runtime table', () => {
  it('every adapter names its own row and answers every capability', () => {
    const keys = Object.keys(DIALECTS.spec.capabilities).sort();
    for (const [name, adapter] of Object.entries(DIALECTS)) {
      assert.equal(adapter.dialect, name);
      assert.ok(adapter.displayName.length > 0);
      assert.deepEqual(Object.keys(adapter.capabilities).sort(), keys);
      for (const value of Object.values(adapter.capabilities)) assert.equal(typeof value, 'boolean');
    }
    assert.deepEqual(keys, [
      'createSession',
      'events',
      'globalEvents',
      'messageCost',
      'permissions',
      'progress',
      'promptVariant',
      'questions',
      'quotaObjects',
      'sessionCost',
      'sessionStatus',
      'todos',
    ]);
  });

  it('display names for a view: known after detection, null before', () => {
    assert.equal(dialectDisplayName(null), null);
    assert.equal(dialectDisplayName('spec'), 'spec dialect');
    assert.equal(dialectDisplayName('opencode'), 'opencode');
  });

  it('the spec adapter reads state and progress from the session; derives nothing', () => {
    const [s] = DIALECTS.spec.toSessions(
      [{ id: 'ses_1', state: 'generating', progress: { stepCount: 2, lastStepAt: 5 } }],
      null,
    );
    assert.deepEqual([s.state, s.progress], ['generating', { stepCount: 2, lastStepAt: 5 }]);
    assert.equal(DIALECTS.spec.progressFromMessage({ info: {}, parts: [{ type: 'text' }] }), null);
    assert.throws(() => DIALECTS.spec.toSessions([{ id: 'ses_1', state: 'busy' }], null), ShapeError);
  });

  it('the stock opencode adapter reads state from the status map and derives progress', () => {
    const status = readStatusMap({ ses_a: { type: 'busy' } });
    const [a, b] = DIALECTS.opencode.toSessions([{ id: 'ses_a' }, { id: 'ses_b' }], status);
    assert.deepEqual([a.state, b.state], ['generating', 'idle']);
    const p = DIALECTS.opencode.progressFromMessage({ info: { time: { created: 7 } }, parts: [{ type: 'text' }] });
    assert.deepEqual(p, { stepCount: 1, lastStepAt: 7 });
  });
});

describe('dialects: the detector', () => {
  it('a session list chooses; an empty one tells nothing; a later list wins', () => {
    const d = new DialectDetector();
    assert.equal(d.adapter, null);
    assert.equal(d.fromSessionList([]), null);
    assert.equal(d.adapter, null);
    assert.equal(d.fromSessionList([{ id: 'ses_1', state: 'idle' }]), DIALECTS.spec);
    assert.equal(d.fromSessionList([{ id: 'ses_1' }]), DIALECTS.opencode);
    assert.equal(d.adapter, DIALECTS.opencode);
    assert.throws(() => d.fromSessionList([{ id: 'a', state: 'idle' }, { id: 'b' }]), ShapeError);
  });

  it('a provider listing chooses only while nothing is chosen', () => {
    assert.equal(providerListingDialect({ all: [{ id: 'x', quota: { markedAt: 1 } }], connected: [] }), 'spec');
    assert.equal(providerListingDialect({ all: [{ id: 'x' }], connected: [], default: {} }), 'opencode');
    assert.equal(providerListingDialect({ all: [], connected: [] }), null);
    assert.equal(providerListingDialect('not an object'), null);
    const d = new DialectDetector();
    d.fromProviderListing({ all: [], connected: [], default: {} });
    assert.equal(d.adapter, DIALECTS.opencode);
    d.fromProviderListing({ all: [{ id: 'x', quota: { markedAt: 1 } }], connected: [] });
    assert.equal(d.adapter, DIALECTS.opencode);
  });
});
