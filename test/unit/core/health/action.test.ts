import assert from 'node:assert/strict';
import { chooseAction } from '../../../../src/core/health/action';
import { DEFAULT_MONITOR_SETTINGS } from '../../../../src/core/settings/operator-settings';
import type { QuotaWall, VerdictResult } from '../../../../src/core/model';
import { listing, MIN, msg, provider, T0 } from './fixtures';

const v = (verdict: VerdictResult['verdict'], frozen = verdict === 'hung'): VerdictResult => ({
  verdict,
  resample: verdict === null,
  basis: 'test',
  frozen,
});
const wall = (patch: Partial<QuotaWall> = {}): QuotaWall => ({
  provider: 'anthropic',
  reason: 'account_usage_limit',
  category: 'usage-limit',
  resetAt: null,
  source: 'tail-probe',
  observed: 'failed-turn',
  abortFirst: false,
  text: null,
  ...patch,
});
const report = { ticket: 'T-1', label: null, status: 'done' as const, pr: '#4', summary: 'done', reason: null };
const base = {
  wall: null,
  report: null,
  newest: msg('msg_1'),
  listing: listing([provider('anthropic'), provider('openai')]),
  now: T0,
};

describe('action per session', () => {
  it('healthy: leave alone', () => {
    assert.equal(chooseAction({ ...base, verdict: v('healthy') }).action, 'leave-alone');
  });

  it('no settled verdict: leave alone, never act on a guess', () => {
    const d = chooseAction({ ...base, verdict: v(null), wall: wall() });
    assert.equal(d.action, 'leave-alone');
    assert.match(d.basis, /no verdict yet/);
  });

  it('idle with an unfinished task: wake', () => {
    assert.equal(chooseAction({ ...base, verdict: v('idle') }).action, 'wake');
  });

  it('idle with a user message newest (prompt never answered): wake', () => {
    const d = chooseAction({ ...base, verdict: v('idle'), newest: msg('m', { role: 'user' }) });
    assert.equal(d.action, 'wake');
    assert.match(d.basis, /unanswered prompt/);
  });

  it('idle after a failure that is no quota wall: wake', () => {
    const d = chooseAction({
      ...base,
      verdict: v('idle'),
      newest: msg('m', {
        finish: 'error',
        failure: { text: 'tool failed', reason: null, provider: null, statusCode: null, category: null, resetAt: null },
      }),
    });
    assert.equal(d.action, 'wake');
  });

  it('idle with no message at all: leave alone', () => {
    assert.equal(chooseAction({ ...base, verdict: v('idle'), newest: null }).action, 'leave-alone');
  });

  it('a completion report present: harvest', () => {
    assert.equal(chooseAction({ ...base, verdict: v('idle'), report }).action, 'harvest');
    assert.equal(chooseAction({ ...base, verdict: v('hung'), report }).action, 'harvest');
  });

  it('hung: abort then wake', () => {
    const d = chooseAction({ ...base, verdict: v('hung') });
    assert.equal(d.action, 'abort-and-wake');
    assert.equal(d.abortFirst, true);
  });

  describe('quota walls', () => {
    it('recover on a connected provider with no quota object other than the failed one', () => {
      const d = chooseAction({ ...base, verdict: v('idle'), wall: wall() });
      assert.equal(d.action, 'recover');
      assert.equal(d.recoverOn, 'openai');
      assert.equal(d.abortFirst, false);
    });

    it('recover aborts first when the session is still generating and frozen', () => {
      const d = chooseAction({ ...base, verdict: v('hung'), wall: wall({ abortFirst: true, source: 'retry-status' }) });
      assert.equal(d.action, 'recover');
      assert.equal(d.abortFirst, true);
    });

    it('the failed provider is never the recovery provider, even when the listing has not marked it', () => {
      const d = chooseAction({ ...base, verdict: v('idle'), wall: wall(), listing: listing([provider('anthropic')]) });
      assert.notEqual(d.action, 'recover');
    });

    it("a wall's provider is acceptable again once its mark is gone and its own reset has passed", () => {
      const l = listing([
        provider('anthropic'),
        provider('openai', { quota: { markedAt: T0 - MIN, resetAt: T0 + 60 * MIN } }),
      ]);
      const d = chooseAction({
        ...base,
        verdict: v('idle'),
        wall: wall({ resetAt: T0 - MIN, ownResetAt: T0 - MIN }),
        listing: l,
      });
      assert.equal(d.action, 'recover', d.basis);
      assert.equal(d.recoverOn, 'anthropic');
    });

    it("issue 28: the wall's own provider's reset is waited for when it is the earliest (its mark gives it)", () => {
      // anthropic's reset comes only from its listing mark: once it has passed and the mark is
      // gone, anthropic is acceptable again (wallHolds), so waiting for it is right.
      const l = listing([
        provider('anthropic', { quota: { markedAt: T0, resetAt: T0 + 10 * MIN } }),
        provider('openai', { quota: { markedAt: T0, resetAt: T0 + 30 * MIN } }),
      ]);
      const d = chooseAction({ ...base, verdict: v('idle'), wall: wall({ resetAt: T0 + 10 * MIN }), listing: l });
      assert.equal(d.action, 'wait-for-reset', d.basis);
      assert.equal(d.waitUntil, T0 + 10 * MIN);
    });

    it('wait-for-reset waits for no provider outside the allowed scope', () => {
      const l = listing([
        provider('anthropic', { quota: { markedAt: T0, resetAt: null } }),
        provider('openai', { quota: { markedAt: T0, resetAt: T0 + 10 * MIN } }),
        provider('groq', { quota: { markedAt: T0, resetAt: T0 + 30 * MIN } }),
      ]);
      const d = chooseAction({ ...base, verdict: v('idle'), wall: wall(), listing: l, providers: ['groq'] });
      assert.equal(d.waitUntil, T0 + 30 * MIN);
    });

    it('an escalation reports only marks a source shows', () => {
      const l = listing([provider('anthropic'), provider('openai', { quota: { markedAt: T0 - MIN, resetAt: null } })]);
      const d = chooseAction({ ...base, verdict: v('idle'), wall: wall(), listing: l });
      assert.equal(d.action, 'escalate');
      assert.deepEqual(d.escalation?.marks, [{ provider: 'openai', markedAt: T0 - MIN, resetAt: null }]);
    });

    it('a marked or disconnected provider is not free', () => {
      const l = listing([
        provider('anthropic', { quota: { markedAt: T0, resetAt: T0 + 30 * MIN } }),
        provider('openai', { quota: { markedAt: T0, resetAt: T0 + 90 * MIN } }),
        provider('groq', { connected: false }),
      ]);
      const d = chooseAction({ ...base, verdict: v('idle'), wall: wall(), listing: l });
      assert.equal(d.action, 'wait-for-reset');
      assert.equal(d.waitUntil, T0 + 30 * MIN, "anthropic's: its mark's reset, the wall gave none (issue 28)");
      const own = chooseAction({ ...base, verdict: v('idle'), wall: wall({ ownResetAt: T0 + 20 * MIN }), listing: l });
      assert.equal(own.waitUntil, T0 + 30 * MIN, "the wall's own reset and anthropic's mark both passed by then");
    });

    it('wait-for-reset only within reach (default 120 min); beyond it, escalate', () => {
      const far = listing([
        provider('anthropic', {
          quota: { markedAt: T0, resetAt: T0 + DEFAULT_MONITOR_SETTINGS.resetWithinReachMs + MIN },
        }),
      ]);
      const farWall = wall({ ownResetAt: T0 + DEFAULT_MONITOR_SETTINGS.resetWithinReachMs + MIN });
      const d = chooseAction({ ...base, verdict: v('idle'), wall: farWall, listing: far });
      assert.equal(d.action, 'escalate');
      assert.equal(d.escalation?.reason, 'reset-out-of-reach');
      assert.equal(
        chooseAction({
          ...base,
          verdict: v('idle'),
          wall: farWall,
          listing: far,
          resetWithinReachMs: DEFAULT_MONITOR_SETTINGS.resetWithinReachMs + 2 * MIN,
        }).action,
        'wait-for-reset',
      );
    });

    it('reset unknown and no free provider: escalate, reporting every marked provider', () => {
      const l = listing([provider('anthropic', { quota: { markedAt: T0 - MIN, resetAt: null } })]);
      const d = chooseAction({ ...base, verdict: v('idle'), wall: wall(), listing: l });
      assert.equal(d.action, 'escalate');
      assert.equal(d.escalation?.reason, 'reset-unknown');
      assert.deepEqual(d.escalation?.marks, [{ provider: 'anthropic', markedAt: T0 - MIN, resetAt: null }]);
    });

    it('a reset of a provider that is not connected does not count', () => {
      const l = listing([
        provider('anthropic', { quota: { markedAt: T0, resetAt: null } }),
        provider('openai', { connected: false, quota: { markedAt: T0, resetAt: T0 + MIN } }),
      ]);
      assert.equal(chooseAction({ ...base, verdict: v('idle'), wall: wall(), listing: l }).action, 'escalate');
    });

    it('balance failure: escalate even when another provider is free', () => {
      const d = chooseAction({
        ...base,
        verdict: v('idle'),
        wall: wall({ category: 'balance', reason: 'insufficient_quota' }),
      });
      assert.equal(d.action, 'escalate');
      assert.equal(d.escalation?.reason, 'balance');
    });

    it('a quota wall outranks a report and the hung verdict', () => {
      assert.equal(
        chooseAction({ ...base, verdict: v('hung'), wall: wall({ abortFirst: true }), report }).action,
        'recover',
      );
    });
  });
});
