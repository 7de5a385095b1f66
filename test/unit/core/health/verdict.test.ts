import assert from 'node:assert/strict';
import { judgeVerdict, MIN_SPACING_MS } from '../../../../src/core/health/verdict';
import { msg, pair, sample, SEC, T0 } from './fixtures';

describe('health verdict (two samples, spec table and rules 1-3)', () => {
  describe('healthy', () => {
    it('generating in both with stepCount growing', () => {
      const [a, b] = pair(
        { progress: { stepCount: 10, lastStepAt: T0 } },
        { progress: { stepCount: 12, lastStepAt: T0 + 40 * SEC } },
      );
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, 'healthy');
      assert.equal(v.resample, false);
      assert.match(v.basis, /stepCount grew/);
    });

    it('generating in both with the newest message id advancing (progress frozen)', () => {
      const [a, b] = pair({ progress: { stepCount: 3, lastStepAt: T0 } }, { newest: msg('msg_2') });
      assert.equal(judgeVerdict(a, b).verdict, 'healthy');
    });

    it('a long tool call keeps lastStepAt stale while stepCount grows: healthy', () => {
      const stale = T0 - 10 * 60 * SEC;
      const [a, b] = pair(
        { progress: { stepCount: 40, lastStepAt: stale } },
        { progress: { stepCount: 41, lastStepAt: stale } },
      );
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, 'healthy');
      assert.equal(v.frozen, false);
    });

    it('rule 3: absent progress falls back to the newest message id', () => {
      const [a, b] = pair({ progress: null }, { newest: msg('msg_9') });
      assert.equal(judgeVerdict(a, b).verdict, 'healthy');
    });

    it('only the lastStepAt heartbeat moved: not all frozen, so not hung', () => {
      const [a, b] = pair(
        { progress: { stepCount: 5, lastStepAt: T0 } },
        { progress: { stepCount: 5, lastStepAt: T0 + 30 * SEC } },
      );
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, 'healthy');
      assert.match(v.basis, /heartbeat/);
    });

    it('stock opencode: a tool the server reports running is a live signal', () => {
      const tool = { name: 'bash', since: T0 - 60 * SEC };
      const [a, b] = pair(
        { progress: { stepCount: 2, lastStepAt: T0 - 60 * SEC }, newest: msg('msg_1', { runningTool: tool }) },
        {},
      );
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, 'healthy');
      assert.match(v.basis, /tool "bash" running/);
    });
  });

  describe('event-stream output (stock opencode)', () => {
    it('output seen between the samples keeps a frozen-looking streaming session from reading hung', () => {
      const [a, b] = pair({ progress: { stepCount: 2, lastStepAt: T0 }, activity: 10 }, { activity: 57 });
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, 'healthy');
      assert.match(v.basis, /47 output events/);
    });
    it('no output, or no stream read at all, proves nothing: still hung', () => {
      const [a, b] = pair({ progress: { stepCount: 2, lastStepAt: T0 }, activity: 10 }, {});
      assert.equal(judgeVerdict(a, b).verdict, 'hung');
      const [c, d] = pair({ progress: { stepCount: 2, lastStepAt: T0 } }, { activity: 5 });
      assert.equal(judgeVerdict(c, d).verdict, 'hung', 'a count on one side only is no comparison');
    });
    it('output while idle in both samples: sample again', () => {
      const [a, b] = pair({ state: 'idle', activity: 1 }, { activity: 3 });
      assert.equal(judgeVerdict(a, b).verdict, null);
    });
  });

  describe('hung', () => {
    it('generating in both with stepCount, lastStepAt and newest id all frozen', () => {
      const [a, b] = pair({ progress: { stepCount: 7, lastStepAt: T0 - 5 * SEC } }, {});
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, 'hung');
      assert.equal(v.frozen, true);
      assert.equal(v.resample, false);
    });

    it('generating, no progress, newest id frozen', () => {
      const [a, b] = pair({ progress: null }, {});
      assert.equal(judgeVerdict(a, b).verdict, 'hung');
    });

    it('a user message as the newest message, frozen while generating: the queued prompt is never consumed', () => {
      const [a, b] = pair(
        { progress: { stepCount: 1, lastStepAt: T0 }, newest: msg('msg_5', { role: 'user', providerID: null }) },
        {},
      );
      assert.equal(judgeVerdict(a, b).verdict, 'hung');
    });
  });

  describe('idle', () => {
    it('idle in both with progress stale', () => {
      const [a, b] = pair({ state: 'idle', progress: { stepCount: 9, lastStepAt: T0 - 60 * SEC } }, {});
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, 'idle');
      assert.equal(v.frozen, false);
    });

    it('idle in both with progress absent', () => {
      const [a, b] = pair({ state: 'idle', progress: null }, {});
      assert.equal(judgeVerdict(a, b).verdict, 'idle');
    });

    it('a user message as the newest message while idle is still idle (the action decides the wake)', () => {
      const [a, b] = pair({ state: 'idle', newest: msg('msg_3', { role: 'user' }) }, {});
      assert.equal(judgeVerdict(a, b).verdict, 'idle');
    });

    it('idle with an empty tail in both samples (30+ s apart) is idle, not momentary', () => {
      const [a, b] = pair({ state: 'idle', newest: msg('msg_4', { partCount: 0 }) }, {});
      assert.equal(judgeVerdict(a, b).verdict, 'idle');
    });
  });

  describe('rule 1: never a verdict from one snapshot, never a guess', () => {
    it('one sample gives no verdict, in particular never hung', () => {
      for (const s of [
        sample({ state: 'generating', progress: { stepCount: 1, lastStepAt: T0 - 3600 * SEC } }),
        sample({ state: 'idle' }),
      ]) {
        const v = judgeVerdict(s);
        assert.equal(v.verdict, null);
        assert.equal(v.resample, true);
        assert.match(v.basis, /single snapshot/);
      }
    });

    it('momentary idle with an empty tail after a generating sample: sample again', () => {
      const [a, b] = pair(
        { state: 'generating', progress: { stepCount: 4, lastStepAt: T0 } },
        { state: 'idle', newest: msg('msg_2', { partCount: 0, text: '' }) },
      );
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, null);
      assert.equal(v.resample, true);
      assert.match(v.basis, /disagree on state \(generating, then idle\)/);
      // ... and the third sample, generating again with steps, settles it as healthy.
      const c = sample({
        at: b.at + 45 * SEC,
        state: 'generating',
        progress: { stepCount: 6, lastStepAt: b.at + 40 * SEC },
        newest: msg('msg_3'),
      });
      assert.equal(judgeVerdict(b, c).verdict, null);
      const d = sample({
        at: c.at + 45 * SEC,
        state: 'generating',
        progress: { stepCount: 9, lastStepAt: c.at + 40 * SEC },
        newest: msg('msg_4'),
      });
      assert.equal(judgeVerdict(c, d).verdict, 'healthy');
    });

    it('idle then generating: sample again', () => {
      const [a, b] = pair({ state: 'idle' }, { state: 'generating' });
      assert.equal(judgeVerdict(a, b).verdict, null);
    });

    it('idle in both but the newest message moved in between: sample again', () => {
      const [a, b] = pair({ state: 'idle' }, { newest: msg('msg_2') });
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, null);
      assert.match(v.basis, /newest message changed/);
    });

    it('idle in both but stepCount grew: progress is not stale, sample again', () => {
      const [a, b] = pair(
        { state: 'idle', progress: { stepCount: 1, lastStepAt: T0 } },
        { progress: { stepCount: 3, lastStepAt: T0 + 20 * SEC } },
      );
      assert.equal(judgeVerdict(a, b).verdict, null);
    });

    it('samples closer than 30 s are refused (no verdict)', () => {
      const a = sample({ at: T0, progress: { stepCount: 1, lastStepAt: T0 } });
      const b = sample({ at: T0 + MIN_SPACING_MS - 1, progress: { stepCount: 1, lastStepAt: T0 } });
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, null);
      assert.match(v.basis, /at least 30 s/);
      assert.equal(judgeVerdict(a, b, { minSpacingMs: 0 }).verdict, 'hung');
    });

    it('samples of different sessions are a programming error', () => {
      assert.throws(
        () => judgeVerdict(sample({ id: 'a' }), sample({ id: 'b', at: T0 + 45 * SEC })),
        /different sessions/,
      );
    });
  });
});
