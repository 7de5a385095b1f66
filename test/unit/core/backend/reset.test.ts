// Reset estimates written in a failure text are parsed relative to when the failure happened.
import assert from 'node:assert/strict';
import { resetFromText } from '../../../../src/core/backend/wire/reset';

const AT = Date.UTC(2026, 0, 5, 12, 0, 0);
const MIN = 60_000;

describe('reset estimates in failure text', () => {
  it('relative: "resets in 3 days", "try again in 20 minutes", "in 1 hour 30 minutes", "in 45s"', () => {
    assert.equal(resetFromText('Weekly limit reached, resets in 3 days', AT), AT + 3 * 24 * 60 * MIN);
    assert.equal(resetFromText('Rate limited. Please try again in 20 minutes.', AT), AT + 20 * MIN);
    assert.equal(resetFromText('usage limit: try again in 1 hour 30 minutes', AT), AT + 90 * MIN);
    assert.equal(resetFromText('Please retry in 45s', AT), AT + 45_000);
  });
  it('a clock time with a zone: "after 14:00 UTC" (the next such time)', () => {
    assert.equal(resetFromText('You can continue after 14:00 UTC', AT), Date.UTC(2026, 0, 5, 14, 0, 0));
    assert.equal(resetFromText('You can continue after 09:30 UTC', AT), Date.UTC(2026, 0, 6, 9, 30, 0));
  });
  it('no time at all, or no reference time for a relative one: unknown', () => {
    assert.equal(resetFromText('resets on Monday', AT), null);
    assert.equal(resetFromText('try again in 20 minutes', null), null);
    assert.equal(resetFromText('resets at 2026-05-04T10:00:00Z', null), Date.parse('2026-05-04T10:00:00Z'));
  });
});
