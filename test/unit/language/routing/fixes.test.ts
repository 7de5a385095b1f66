// Nearest-value suggestions (src/language/routing/fixes.ts): a likely misspelling gets one, a value
// far longer than any name gets none (and costs no alignment over its length).
import assert from 'node:assert/strict';
import { MAX_SUGGESTED_FROM, nearest } from '../../../../src/language/routing/fixes';

describe('routing fixes: nearest', () => {
  it('suggests the candidate a misspelling is near', () => {
    assert.equal(nearest('hihg', ['low', 'high', 'max']), 'high');
    assert.equal(nearest('review_code', ['review-code', 'verify']), 'review-code');
    assert.equal(nearest('zzzz', ['low', 'high', 'max']), undefined);
  });

  it(`suggests nothing for a value longer than ${MAX_SUGGESTED_FROM} characters`, () => {
    assert.equal(nearest('high' + ' '.repeat(MAX_SUGGESTED_FROM), ['high']), undefined);
    assert.equal(nearest('x'.repeat(5_000_000), ['low', 'high', 'max']), undefined);
  });
});
