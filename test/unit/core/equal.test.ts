import { strict as assert } from 'node:assert';
import { equal } from '../../../src/core/equal';

describe('core/equal', () => {
  it('compares JSON-like values structurally', () => {
    assert.equal(equal({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }), true);
    assert.equal(equal({ a: [1, { b: 2 }] }, { a: [1, { b: 3 }] }), false);
    assert.equal(equal([1], { 0: 1 }), false);
    assert.equal(equal(null, {}), false);
    assert.equal(equal(NaN, NaN), true);
  });

  it('counts a key whose value is undefined as absent, on either side', () => {
    assert.equal(equal({ a: 1, b: undefined }, { a: 1 }), true);
    assert.equal(equal({ a: 1 }, { a: 1, b: undefined }), true);
    assert.equal(equal({ a: 1 }, { a: 1, b: null }), false);
  });
});
