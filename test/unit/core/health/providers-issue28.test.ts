// Issue 28 item 5: providers. An id listed twice is marked if any of its records carries quota; a
// reset in the past is never waited for (a script sleeping until waitUntil was told a past time and
// retried at once, for ever; the daemon's row stayed down); the failed provider's own reset is
// waited for when it is the earliest, since it is acceptable again once that reset has passed and
// its quota object is gone (issue 20 asked for the wait; it escalated).
import assert from 'node:assert/strict';
import { guardPrompt } from '../../../../src/core/actions/guard';
import { chooseModel } from '../../../../src/core/actions/model-choice';
import { QuotaMarkBook } from '../../../../src/core/backend/quota-marks';
import { readProviderListing } from '../../../../src/core/backend/wire/providers';
import { chooseAction } from '../../../../src/core/health/action';
import { preDispatchCheck } from '../../../../src/core/health/pre-dispatch';
import { earliestConnectedReset, freeProviders } from '../../../../src/core/health/provider-choice';
import { allFreeAt, wallHolds } from '../../../../src/core/health/quota-wall';
import type { ProviderListing, QuotaWall, VerdictResult } from '../../../../src/core/model';
import { listing, MIN, msg, provider, T0 } from './fixtures';

const idle: VerdictResult = { verdict: 'idle', resample: false, basis: 'test', frozen: false };
const wall = (patch: Partial<QuotaWall> = {}): QuotaWall => ({
  provider: 'anthropic',
  reason: 'account_usage_limit',
  category: 'usage-limit',
  resetAt: null,
  ownResetAt: null,
  source: 'tail-probe',
  observed: 'failed-turn',
  abortFirst: false,
  text: null,
  ...patch,
});
const decide = (l: ProviderListing, w: QuotaWall, now = T0) =>
  chooseAction({ verdict: idle, wall: w, report: null, newest: msg('m'), listing: l, now });

/** openai listed twice: the second record carries the quota object. */
const twice = (): ProviderListing => ({
  providers: [
    provider('anthropic', { quota: { markedAt: T0, resetAt: T0 + 500 * MIN } }),
    provider('openai'),
    provider('openai', { quota: { markedAt: T0 - MIN, resetAt: T0 + 30 * MIN } }),
  ],
  connected: ['anthropic', 'openai'],
});

describe('providers (issue 28)', () => {
  describe('a provider listed twice is marked if any of its records carries quota', () => {
    it('the listing reader merges the records: one record, marked', () => {
      const l = readProviderListing({
        all: [
          { id: 'openai', models: { 'gpt-5': {} } },
          { id: 'openai', quota: { markedAt: T0, resetAt: T0 + MIN }, models: { o3: {} } },
          { id: 'openai' },
        ],
        connected: ['openai', 'openai'],
      });
      assert.equal(l.providers.length, 1);
      assert.deepEqual(l.providers[0].quota, { markedAt: T0, resetAt: T0 + MIN });
      assert.deepEqual(l.providers[0].models, ['gpt-5', 'o3']);
      assert.deepEqual(l.connected, ['openai']);
    });

    it('a listing built with duplicates: not free, not chosen, refused by the guard, not dispatched on', () => {
      const l = twice();
      assert.deepEqual(freeProviders(l), []);
      assert.notEqual(decide(l, wall()).action, 'recover');
      const choice = chooseModel({
        requested: null,
        last: { providerID: 'openai', modelID: 'm1' },
        listing: l,
        wallProvider: 'anthropic',
      });
      assert.equal(choice.model, null, choice.basis);
      const g = guardPrompt({
        directory: '/w',
        sessionId: 'ses_1',
        agent: 'build',
        model: { providerID: 'openai', modelID: 'm1' },
        text: 'go',
        listing: l,
        wallProvider: null,
      });
      assert.equal(g.ok, false);
      assert.equal(!g.ok && g.refusal.code, 'provider-marked');
      const check = preDispatchCheck('openai', l);
      assert.equal(check.ok, false);
      assert.notEqual(check.dispatchOn, 'openai');
    });

    it('the first record marked and the second not is marked just the same', () => {
      const l: ProviderListing = {
        providers: [provider('openai', { quota: { markedAt: T0, resetAt: null } }), provider('openai')],
        connected: ['openai'],
      };
      assert.deepEqual(freeProviders(l), []);
      assert.equal(decide(l, wall()).action, 'escalate');
    });
  });

  describe('a reset in the past is never waited for', () => {
    it('a quota object whose reset has passed: escalate (when it ends is unknown), never wait for a past time', () => {
      const l = listing([
        provider('anthropic', { quota: { markedAt: T0 - 60 * MIN, resetAt: T0 - 5 * MIN } }),
        provider('openai', { quota: { markedAt: T0 - 60 * MIN, resetAt: T0 - MIN } }),
      ]);
      const d = decide(l, wall({ resetAt: T0 - 5 * MIN }));
      assert.equal(d.action, 'escalate', d.basis);
      assert.equal(d.waitUntil, null);
      assert.equal(d.escalation?.reason, 'reset-unknown');
      assert.match(d.basis, /has passed but its quota mark remains/);
      assert.equal(earliestConnectedReset(l, null, undefined, T0), null);
      assert.equal(allFreeAt(l, T0), null);
    });

    it('a reset still ahead among passed ones is the one waited for', () => {
      const l = listing([
        provider('anthropic', { quota: { markedAt: T0 - 60 * MIN, resetAt: T0 - 5 * MIN } }),
        provider('openai', { quota: { markedAt: T0 - 60 * MIN, resetAt: T0 - MIN } }),
        provider('groq', { quota: { markedAt: T0 - 60 * MIN, resetAt: T0 + 20 * MIN } }),
      ]);
      const d = decide(l, wall());
      assert.equal(d.action, 'wait-for-reset', d.basis);
      assert.equal(d.waitUntil, T0 + 20 * MIN);
    });

    it("the wall's own reset in the past with its mark gone: free again, recovered there", () => {
      const l = listing([provider('anthropic')]);
      const d = decide(l, wall({ ownResetAt: T0 - MIN, resetAt: T0 - MIN }));
      assert.equal(d.action, 'recover', d.basis);
      assert.equal(d.recoverOn, 'anthropic');
    });
  });

  describe("the failed provider's own reset", () => {
    it('is waited for when it is the earliest, though only its mark gives it (it escalated)', () => {
      const l = listing([
        provider('anthropic', { quota: { markedAt: T0, resetAt: T0 + 10 * MIN } }),
        provider('openai', { quota: { markedAt: T0, resetAt: null } }),
      ]);
      const d = decide(l, wall({ resetAt: T0 + 10 * MIN }));
      assert.equal(d.action, 'wait-for-reset', d.basis);
      assert.equal(d.waitUntil, T0 + 10 * MIN);
    });

    it('after that reset, with its quota object seen gone, the provider is acceptable again', () => {
      const after = T0 + 11 * MIN;
      const seenGone = listing([
        provider('anthropic', { cooldownEndedAt: T0 + 10 * MIN + 30_000 }),
        provider('openai', { quota: { markedAt: T0, resetAt: null } }),
      ]);
      const d = decide(seenGone, wall(), after + MIN);
      assert.equal(d.action, 'recover', d.basis);
      assert.equal(d.recoverOn, 'anthropic');
      assert.equal(wallHolds(wall(), seenGone, after + MIN), false);
      // A wall known to be newer than that end still holds; so does one with no end seen at all.
      assert.equal(wallHolds(wall({ failedAt: T0 + 12 * MIN }), seenGone, after + MIN), true);
      assert.equal(wallHolds(wall(), listing([provider('anthropic')]), after), true);
      assert.notEqual(decide(listing([provider('anthropic')]), wall(), after).action, 'recover');
    });

    it("the client's mark book dates a quota object seen gone, and keeps it across runs", () => {
      let now = T0;
      const book = new QuotaMarkBook(() => now);
      book.observeQuotaObjects(listing([provider('anthropic', { quota: { markedAt: T0, resetAt: T0 + 10 * MIN } })]));
      assert.equal(book.cooldownEndedAt('anthropic'), null);
      now = T0 + 11 * MIN;
      book.observeQuotaObjects(listing([provider('anthropic')]));
      assert.equal(book.cooldownEndedAt('anthropic'), T0 + 11 * MIN);
      const again = QuotaMarkBook.fromState(JSON.parse(JSON.stringify(book.toState())), () => now);
      assert.equal(again.cooldownEndedAt('anthropic'), T0 + 11 * MIN);
      again.observeQuotaObjects(
        listing([provider('anthropic', { quota: { markedAt: T0 + 20 * MIN, resetAt: null } })]),
      );
      assert.equal(again.cooldownEndedAt('anthropic'), null, 'a new quota object: a new cooldown');
    });
  });
});
