// "It changed" is not "it grew": healthy needs growth or an advance; samples that cannot be
// compared are sampled again, never called healthy.
import assert from 'node:assert/strict';
import { judgeVerdict } from '../../../../src/core/health/verdict';
import { msg, pair, SEC, T0 } from './fixtures';

describe('health verdict: changed is not grew', () => {
  it('a newest message id that goes backwards is not healthy: sample again', () => {
    const [a, b] = pair({ progress: { stepCount: 5, lastStepAt: T0 }, newest: msg('msg_9') }, { newest: msg('msg_3') });
    const v = judgeVerdict(a, b);
    assert.equal(v.verdict, null);
    assert.equal(v.resample, true);
    assert.match(v.basis, /went backwards \(msg_9 -> msg_3\)/);
  });

  it('a stepCount that drops (the backend restarted) is not healthy: sample again', () => {
    const [a, b] = pair(
      { progress: { stepCount: 40, lastStepAt: T0 } },
      { progress: { stepCount: 2, lastStepAt: T0 + 30 * SEC } },
    );
    const v = judgeVerdict(a, b);
    assert.equal(v.verdict, null);
    assert.equal(v.resample, true);
    assert.match(v.basis, /stepCount dropped \(40 -> 2\)/);
  });

  it('progress present in only one sample and the newest id frozen: sample again', () => {
    for (const [pa, pb] of [
      [null, { stepCount: 3, lastStepAt: T0 }],
      [{ stepCount: 3, lastStepAt: T0 }, null],
    ] as const) {
      const [a, b] = pair({ progress: pa }, { progress: pb });
      const v = judgeVerdict(a, b);
      assert.equal(v.verdict, null, JSON.stringify([pa, pb]));
      assert.equal(v.resample, true);
      assert.match(v.basis, /progress in only one sample/);
    }
  });

  it('progress present in only one sample: the newest message id decides (rule 3)', () => {
    const [a, b] = pair({ progress: null }, { progress: { stepCount: 1, lastStepAt: T0 }, newest: msg('msg_2') });
    const v = judgeVerdict(a, b);
    assert.equal(v.verdict, 'healthy');
    assert.match(v.basis, /newest message id advanced \(msg_1 -> msg_2\)/);
  });

  it('a first message where there was none is an advance', () => {
    const [a, b] = pair({ progress: null, newest: null }, { newest: msg('msg_1') });
    assert.equal(judgeVerdict(a, b).verdict, 'healthy');
  });

  it('a newest message that vanished is not healthy: sample again', () => {
    const [a, b] = pair({ progress: null, newest: msg('msg_4') }, { newest: null });
    const v = judgeVerdict(a, b);
    assert.equal(v.verdict, null);
    assert.equal(v.resample, true);
  });

  it('a heartbeat that goes backwards with nothing else moving: sample again', () => {
    const [a, b] = pair(
      { progress: { stepCount: 5, lastStepAt: T0 + 60 * SEC } },
      { progress: { stepCount: 5, lastStepAt: T0 } },
    );
    const v = judgeVerdict(a, b);
    assert.equal(v.verdict, null);
    assert.match(v.basis, /lastStepAt heartbeat went backwards/);
  });

  it('heartbeat-only movement stays not hung, with its own evidence', () => {
    const [a, b] = pair(
      { progress: { stepCount: 5, lastStepAt: T0 } },
      { progress: { stepCount: 5, lastStepAt: T0 + 30 * SEC } },
    );
    const v = judgeVerdict(a, b);
    assert.equal(v.verdict, 'healthy');
    assert.equal(v.frozen, false);
    assert.match(v.basis, /only the lastStepAt heartbeat advanced/);
  });
});
