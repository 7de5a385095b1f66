import assert from 'node:assert/strict';
import { SampleHistory } from '../../../../src/core/health/sample-history';
import { MIN, sample, SEC, T0 } from './fixtures';

describe('health/SampleHistory', () => {
  const grown = (at: number, steps: number, id = 'ses_1') => sample({ id, at, progress: { stepCount: steps, lastStepAt: at } });

  it('picks the newest earlier sample at least the minimum spacing old as the baseline', () => {
    const h = new SampleHistory({ spacingMs: 45 * SEC });
    const a = grown(T0, 1);
    const b = grown(T0 + 20 * SEC, 2);
    const c = grown(T0 + 50 * SEC, 3);
    h.add(a, b, c);
    assert.equal(h.baseline(c), b, 'b is exactly 30 s old');
    const d = grown(T0 + 45 * SEC, 4, 'ses_2');
    h.add(grown(T0, 1, 'ses_2'), grown(T0 + 20 * SEC, 2, 'ses_2'), d);
    assert.equal(h.baseline(d)?.at, T0, 'the 25 s old sample is too young: the 45 s old one');
  });

  it('never uses a baseline older than twice the configured spacing', () => {
    const h = new SampleHistory({ spacingMs: 45 * SEC });
    const old = grown(T0, 1);
    const now = grown(T0 + 60 * MIN, 2);
    h.add(old, now);
    assert.equal(h.baseline(now), null);
    assert.deepEqual(h.pair('ses_1'), [now]);
    assert.equal(h.settled('ses_1'), false);
    const next = grown(T0 + 60 * MIN + 45 * SEC, 3);
    h.add(next);
    assert.deepEqual(h.pair('ses_1'), [now, next]);
    assert.equal(h.settled('ses_1'), true);
    assert.equal(h.maxBaselineAgeMs, 90 * SEC);
  });

  it('a baseline too young is skipped for an older one; none at all is "not settled"', () => {
    const h = new SampleHistory({ spacingMs: 45 * SEC });
    const a = grown(T0, 1);
    const b = grown(T0 + 10 * SEC, 2);
    h.add(a, b);
    assert.equal(h.baseline(b), null);
    const c = grown(T0 + 35 * SEC, 3);
    h.add(c);
    assert.equal(h.baseline(c), a);
  });

  it('tests may lower the minimum spacing', () => {
    const h = new SampleHistory({ spacingMs: 1 * SEC, minSpacingMs: 0 });
    const a = grown(T0, 1);
    const b = grown(T0 + 1 * SEC, 2);
    h.add(a, b);
    assert.equal(h.baseline(b), a);
    assert.equal(h.settled('ses_1'), true);
  });

  it('prunes old samples (keeping the latest), counts every sample, forgets vanished sessions', () => {
    const h = new SampleHistory({ spacingMs: 45 * SEC, keepMs: 3 * MIN });
    h.add(grown(T0, 1), grown(T0 + 45 * SEC, 2), grown(T0, 1, 'ses_2'), grown(T0 + 4 * MIN, 3));
    h.prune(T0 + 4 * MIN);
    assert.equal(h.samples('ses_1').length, 1);
    assert.equal(h.samples('ses_2').length, 1, 'the latest sample stays');
    assert.equal(h.count('ses_1'), 3);
    h.retain(['ses_1']);
    assert.deepEqual(h.sessionIds(), ['ses_1']);
    assert.equal(h.count('ses_2'), 0);
  });
});
