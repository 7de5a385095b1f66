// Failed attempts per address: four are free, then each failure blocks for a doubling time (capped);
// a success clears; an idle address is forgotten; the addresses tracked are bounded.
import { strict as assert } from 'node:assert';
import { FailureLimiter, FORGET_AFTER_MS, MAX_BLOCK_MS } from '../../../../../src/core/watch/auth/rate-limit';

describe('core/watch/auth/rate-limit', () => {
  it('the fifth failure blocks for 1 s, then 2 s, 4 s ... at most MAX_BLOCK_MS', () => {
    let now = 0;
    const l = new FailureLimiter(() => now);
    for (let i = 0; i < 4; i++) assert.equal(l.fail('a'), 0);
    assert.equal(l.blockedFor('a'), 0);
    assert.equal(l.fail('a'), 1_000);
    assert.equal(l.blockedFor('a'), 1_000);
    assert.equal(l.blockedFor('b'), 0, 'another address is not blocked');
    now += 1_000;
    assert.equal(l.blockedFor('a'), 0);
    assert.equal(l.fail('a'), 2_000);
    assert.equal(l.fail('a'), 4_000);
    for (let i = 0; i < 30; i++) l.fail('a');
    assert.equal(l.blockedFor('a'), MAX_BLOCK_MS);
  });

  it('a success clears the address; an address idle for FORGET_AFTER_MS starts again', () => {
    let now = 0;
    const l = new FailureLimiter(() => now);
    for (let i = 0; i < 5; i++) l.fail('a');
    l.succeed('a');
    assert.equal(l.blockedFor('a'), 0);
    for (let i = 0; i < 5; i++) l.fail('b');
    now += FORGET_AFTER_MS + 1;
    assert.equal(l.fail('b'), 0, 'forgotten: the count starts again');
  });

  it('tracks at most maxAddresses (the oldest failure forgotten first)', () => {
    const l = new FailureLimiter(() => 0, 100);
    for (let i = 0; i < 1_000; i++) l.fail(`10.0.${Math.floor(i / 256)}.${i % 256}`);
    assert.equal(l.size, 100);
  });
});
