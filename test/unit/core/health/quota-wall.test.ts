import assert from 'node:assert/strict';
import { allFreeAt, detectQuotaWall, observedWall, retryWall, tailProbe } from '../../../../src/core/health/quota-wall';
import { judgeVerdict } from '../../../../src/core/health/verdict';
import { failure, listing, msg, pair, provider, sample, SEC, T0 } from './fixtures';

const failed = (patch = {}) => msg('msg_2', { finish: 'error', failure: failure(patch) });

describe('quota-wall detection (spec order: tail probe, state, provider listing)', () => {
  describe('1. tail probe', () => {
    it('assistant + finish error + error part with a quota reason', () => {
      const w = tailProbe(
        sample({
          state: 'idle',
          newest: failed({ reason: 'free_tier_limit', category: 'free-tier', provider: 'openrouter' }),
        }),
      );
      assert.deepEqual(w && { p: w.provider, r: w.reason, c: w.category, s: w.source }, {
        p: 'openrouter',
        r: 'free_tier_limit',
        c: 'free-tier',
        s: 'tail-probe',
      });
    });

    it('an error text part that is not a quota wall is no wall', () => {
      const m = msg('msg_2', {
        finish: 'error',
        failure: failure({ reason: 'tool_error', category: null, text: 'bash: command not found' }),
      });
      assert.equal(tailProbe(sample({ state: 'idle', newest: m })), null);
    });

    it('needs role assistant and finish error', () => {
      assert.equal(
        tailProbe(sample({ newest: msg('m', { role: 'user', finish: 'error', failure: failure() }) })),
        null,
      );
      assert.equal(tailProbe(sample({ newest: msg('m', { finish: 'stop', failure: failure() }) })), null);
      assert.equal(tailProbe(sample({ newest: null })), null);
    });

    it('falls back to the message provider when the part names none', () => {
      const w = tailProbe(
        sample({ newest: msg('m', { finish: 'error', providerID: 'local', failure: failure({ provider: null }) }) }),
      );
      assert.equal(w?.provider, 'local');
    });
  });

  describe('2. state decides about aborting', () => {
    it('idle plus the tail probe: the turn already died, no abort', () => {
      const [a, b] = pair({ state: 'idle', newest: failed() }, {});
      const w = detectQuotaWall(b, judgeVerdict(a, b), null);
      assert.equal(w?.abortFirst, false);
    });

    it('generating plus the tail probe: abort first', () => {
      const [a, b] = pair({ state: 'generating', newest: failed() }, {});
      assert.equal(detectQuotaWall(b, judgeVerdict(a, b), null)?.abortFirst, true);
    });

    it('stock opencode retry status with a rate-limit message: a wall with next as the reset, abort first', () => {
      const retry = { attempt: 3, message: 'Rate limit reached', next: T0 + 3600 * SEC };
      const [a, b] = pair({ state: 'generating', retry, newest: msg('m', { providerID: 'local', partCount: 0 }) }, {});
      const w = detectQuotaWall(b, judgeVerdict(a, b), null);
      assert.deepEqual(w && { p: w.provider, c: w.category, r: w.resetAt, s: w.source, a: w.abortFirst }, {
        p: 'local',
        c: 'rate-limit',
        r: T0 + 3600 * SEC,
        s: 'retry-status',
        a: true,
      });
    });

    it('a retry for a non-quota reason (overloaded) is no wall', () => {
      assert.equal(retryWall(sample({ retry: { attempt: 1, message: 'Provider is overloaded', next: T0 } })), null);
    });
  });

  describe('3. provider listing', () => {
    it('a frozen generating session on a provider with a quota object: retry spin, abort first', () => {
      const [a, b] = pair(
        {
          state: 'generating',
          progress: { stepCount: 3, lastStepAt: T0 },
          newest: msg('m', { providerID: 'anthropic' }),
        },
        {},
      );
      const l = listing([
        provider('anthropic', { quota: { markedAt: T0 - 60 * SEC, resetAt: T0 + 3600 * SEC } }),
        provider('openai'),
      ]);
      const w = detectQuotaWall(b, judgeVerdict(a, b), l);
      assert.deepEqual(w && { s: w.source, a: w.abortFirst, r: w.resetAt }, {
        s: 'provider-listing',
        a: true,
        r: T0 + 3600 * SEC,
      });
    });

    it('a healthy session on a marked provider has no wall', () => {
      const [a, b] = pair(
        { progress: { stepCount: 3, lastStepAt: T0 } },
        { progress: { stepCount: 5, lastStepAt: T0 + 30 * SEC } },
      );
      const l = listing([provider('anthropic', { quota: { markedAt: T0, resetAt: null } })]);
      assert.equal(detectQuotaWall(b, judgeVerdict(a, b), l), null);
    });

    it("the listing's resetAt for the failed provider wins over the failure's estimate", () => {
      const [a, b] = pair({ state: 'idle', newest: failed({ resetAt: T0 + 10 * SEC }) }, {});
      const l = listing([provider('anthropic', { quota: { markedAt: T0, resetAt: T0 + 99 * SEC } })]);
      assert.equal(detectQuotaWall(b, judgeVerdict(a, b), l)?.resetAt, T0 + 99 * SEC);
    });

    it('a balance failure has no reset time', () => {
      const s = sample({
        state: 'idle',
        newest: failed({ category: 'balance', reason: 'insufficient_quota', resetAt: T0 + 5 * SEC }),
      });
      assert.equal(observedWall(s)?.resetAt, null);
    });
  });

  describe('allFreeAt: the latest resetAt among marked providers', () => {
    it('is the latest reset', () => {
      const l = listing([
        provider('a', { quota: { markedAt: T0, resetAt: T0 + 10 * SEC } }),
        provider('b', { quota: { markedAt: T0, resetAt: T0 + 50 * SEC } }),
        provider('c'),
      ]);
      assert.equal(allFreeAt(l), T0 + 50 * SEC);
    });
    it('is unknown (null) when one marked provider has no reset, or a balance failure', () => {
      assert.equal(
        allFreeAt(
          listing([
            provider('a', { quota: { markedAt: T0, resetAt: T0 + 1 } }),
            provider('b', { quota: { markedAt: T0, resetAt: null } }),
          ]),
        ),
        null,
      );
      assert.equal(
        allFreeAt(listing([provider('a', { quota: { markedAt: T0, resetAt: T0 + 1, category: 'balance' } })])),
        null,
      );
    });
    it('is null when nothing is marked', () => {
      assert.equal(allFreeAt(listing([provider('a')])), null);
    });
  });
});
