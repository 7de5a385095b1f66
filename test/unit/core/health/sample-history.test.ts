import assert from 'node:assert/strict';
import { SampleHistory } from '../../../../src/core/health/sample-history';
import { MIN, sample, SEC, T0 } from './fixtures';

describe('health/SampleHistory', () => {
  const grown = (at: number, steps: number, id = 'ses_1') =>
    sample({ id, at, progress: { stepCount: steps, lastStepAt: at } });

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

  it('a round held to a read deadline widens the baseline window by its duration, so two samples still settle', () => {
    const h = new SampleHistory({ spacingMs: 1 * SEC, minSpacingMs: 1 * SEC });
    h.add(grown(T0, 1));
    // The first round took 3 s (one read ran to its deadline), then 1 s of spacing: 4 s apart.
    h.widenForRound(3 * SEC);
    h.add(grown(T0 + 4 * SEC, 2));
    assert.equal(h.pair('ses_1').length, 2);
    assert.equal(h.settled('ses_1'), true);
    const narrow = new SampleHistory({ spacingMs: 1 * SEC, minSpacingMs: 1 * SEC });
    narrow.add(grown(T0, 1), grown(T0 + 4 * SEC, 2));
    assert.equal(narrow.settled('ses_1'), false, 'without it the 4 s old sample is too old a baseline');
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

  describe('thinned to what verdicts need (issue 15)', () => {
    /** The unthinned rule, for comparison: the newest earlier sample in [min, max] age, or null. */
    const reference = (all: Array<{ at: number }>, latestAt: number, min: number, max: number) => {
      for (let i = all.length - 1; i >= 0; i--) {
        const age = latestAt - all[i].at;
        if (age === 0 || age < min) continue;
        return age <= max ? all[i].at : null;
      }
      return null;
    };

    it('regular rounds (45 s) keep the same baselines as the full history, with a handful of samples', () => {
      const h = new SampleHistory({ spacingMs: 45 * SEC });
      const all: Array<{ at: number }> = [];
      for (let i = 0; i < 200; i++) {
        const s = grown(T0 + i * 45 * SEC, i);
        h.add(s);
        all.push(s);
        h.prune(s.at);
        assert.equal(h.baseline(s)?.at ?? null, reference(all, s.at, 30 * SEC, 90 * SEC), `round ${i}`);
        assert.ok(h.samples('ses_1').length <= 3, `round ${i}: ${h.samples('ses_1').length} samples kept`);
      }
    });

    it('a burst of nudges (a sample every 200 ms for 10 min) keeps memory bounded and a baseline in the window', () => {
      const h = new SampleHistory({ spacingMs: 45 * SEC });
      const all: Array<{ at: number }> = [];
      let most = 0;
      let missed = 0;
      const step = ((90 - 30) * SEC) / 4;
      for (let t = 0; t <= 10 * MIN; t += 200) {
        const s = grown(T0 + t, t);
        h.add(s);
        all.push(s);
        h.prune(s.at);
        most = Math.max(most, h.samples('ses_1').length);
        const base = h.baseline(s);
        if (base) {
          const age = s.at - base.at;
          assert.ok(age >= 30 * SEC && age <= 90 * SEC, `baseline age ${age}`);
        }
        // Whenever the full history has a baseline (not at the window's far edge), so do we, and
        // at most one thinning step (15 s) older than it.
        const ref = reference(all, s.at, 30 * SEC, 90 * SEC);
        if (ref !== null && s.at - ref <= 90 * SEC - step && (!base || ref - base.at > step)) missed++;
      }
      assert.equal(missed, 0);
      assert.ok(most <= 10, `at most 10 samples per session, kept ${most} (of ${all.length})`);
    });

    it('samples arriving out of order are still thinned and ordered', () => {
      const h = new SampleHistory({ spacingMs: 45 * SEC });
      const times = [0, 50, 10, 70, 5, 100, 95, 130].map((x) => T0 + x * SEC);
      for (const at of times) h.add(grown(at, at));
      const kept = h.samples('ses_1').map((s) => s.at);
      assert.deepEqual(
        kept,
        [...kept].sort((a, b) => a - b),
      );
      assert.equal(kept[kept.length - 1], T0 + 130 * SEC, 'the newest stays');
      assert.equal(h.baseline(h.latest('ses_1')!)?.at, T0 + 100 * SEC);
    });
  });

  it("a sample read again unchanged holds the previous sample's message and list entry (equal values, one copy kept)", () => {
    const h = new SampleHistory({ spacingMs: 45 * SEC });
    const a = sample({ id: 'ses_1', at: T0, progress: { stepCount: 3, lastStepAt: T0 } });
    const b = sample({ id: 'ses_1', at: T0 + 45 * SEC, progress: { stepCount: 3, lastStepAt: T0 } });
    assert.notEqual(b.newest, a.newest);
    h.add(a, b);
    assert.equal(b.newest, a.newest, 'the equal message is the first one');
    assert.equal(b.session, a.session, 'the equal list entry is the first one');
    assert.equal(b.at, T0 + 45 * SEC, 'the sample keeps its own time');
    assert.equal(h.baseline(b), a);

    // Progress moved: a list entry of its own, its equal parts shared; a new message is kept as read.
    const c = sample({ id: 'ses_1', at: T0 + 90 * SEC, progress: { stepCount: 4, lastStepAt: T0 + 80 * SEC } });
    c.session.title = 'port the parser';
    c.newest = { ...c.newest!, id: 'msg_2', text: 'next step' };
    const d = sample({ id: 'ses_1', at: T0 + 135 * SEC, progress: { stepCount: 5, lastStepAt: T0 + 130 * SEC } });
    d.session.title = 'port the parser';
    d.newest = { ...c.newest, text: 'next step, longer' };
    h.add(c, d);
    assert.notEqual(d.session, c.session);
    assert.equal(d.session.progress?.stepCount, 5);
    assert.equal(d.newest?.text, 'next step, longer', 'a message that changed is its own');
    assert.notEqual(d.newest, c.newest);
    assert.deepEqual(
      h
        .samples('ses_1')
        .slice(-2)
        .map((s) => [s.at, s.session.progress?.stepCount, s.newest?.id]),
      [
        [T0 + 90 * SEC, 4, 'msg_2'],
        [T0 + 135 * SEC, 5, 'msg_2'],
      ],
    );
  });
});
