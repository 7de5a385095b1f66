// Verdict `waiting` / action `answer` (a pending permission or question), its place in the one
// precedence, and the provider scope of recovery (sessionOps.recovery.providers, --providers).
import assert from 'node:assert/strict';
import { chooseAction } from '../../../../src/core/health/action';
import { assessSession } from '../../../../src/core/health/assess';
import { headline } from '../../../../src/core/health/precedence';
import {
  chooseRecoveryProvider,
  freeProviders,
  inScope,
  parseProviderScope,
} from '../../../../src/core/health/provider-choice';
import { judgeVerdict } from '../../../../src/core/health/verdict';
import type { ProviderListing, WaitingRequest } from '../../../../src/core/model';
import { failure, msg, pair, T0 } from './fixtures';

const PERMISSION: WaitingRequest = {
  kind: 'permission',
  requestID: 'per_1',
  sessionID: 'ses_1',
  title: 'permission: bash ls',
  permission: { tool: 'bash', patterns: ['ls'], always: ['ls *'] },
  questions: [],
};
const QUESTION: WaitingRequest = {
  kind: 'question',
  requestID: 'que_1',
  sessionID: 'ses_1',
  title: 'question: Colour',
  permission: null,
  questions: [{ question: 'Which?', header: 'Colour', options: [], multiple: false, custom: true }],
};

const LISTING: ProviderListing = {
  providers: [
    { id: 'anthropic', name: null, connected: true, quota: null, models: ['claude'] },
    { id: 'opencode', name: null, connected: true, quota: null, models: ['free'] },
    { id: 'openai', name: null, connected: true, quota: null, models: ['gpt'] },
  ],
  connected: ['anthropic', 'opencode', 'openai'],
};

describe('waiting for a person: verdict and action', () => {
  it('frozen and generating with a pending permission: waiting / answer, never hung', () => {
    const [a, b] = pair({ newest: msg('msg_1', { runningTool: { name: 'bash', since: T0 - 3_600_000 } }) }, {});
    b.waiting = PERMISSION;
    const v = judgeVerdict(a, b, { toolCeilingMs: 60_000 });
    assert.equal(v.verdict, 'waiting');
    assert.match(v.basis, /pending permission \(permission: bash ls\)/);
    const d = chooseAction({ verdict: v, wall: null, report: null, newest: b.newest, listing: LISTING, now: T0 });
    assert.equal(d.action, 'answer');
    assert.equal(d.abortFirst, false);
  });

  it('a pending question: waiting even when the samples disagree on state', () => {
    const [a, b] = pair({ state: 'idle' }, { state: 'generating' });
    b.waiting = QUESTION;
    assert.equal(judgeVerdict(a, b).verdict, 'waiting');
  });

  it('one sample is still no verdict; the same frozen pair without a request is hung', () => {
    const [a, b] = pair({}, {});
    b.waiting = PERMISSION;
    assert.equal(judgeVerdict(b).verdict, null);
    b.waiting = null;
    assert.equal(judgeVerdict(a, b).verdict, 'hung');
  });

  it('assessSession carries the request; waiting heads the precedence before a quota wall', () => {
    const [a, b] = pair({}, {});
    b.waiting = QUESTION;
    const s = assessSession([a, b], LISTING, { now: T0 });
    assert.deepEqual([s.verdict, s.decision.action, s.waiting?.requestID], ['waiting', 'answer', 'que_1']);
    assert.equal(
      headline({
        verdict: 'waiting',
        quotaWall: {
          provider: 'anthropic',
          reason: null,
          category: 'usage-limit',
          resetAt: null,
          source: 'tail-probe',
          observed: 'failed-turn',
          abortFirst: false,
          text: null,
        },
        report: null,
      }),
      'waiting',
    );
    const walled = pair({ newest: msg('msg_1', { failure: failure() }) }, {});
    walled[1].waiting = PERMISSION;
    assert.equal(assessSession(walled, LISTING, { now: T0 }).decision.action, 'answer');
  });
});

describe('provider scope of recovery and wake', () => {
  it('absent: any connected provider; empty: all but the built-in opencode; a list: only those', () => {
    assert.equal(inScope('opencode', null), true);
    assert.equal(inScope('opencode', []), false);
    assert.equal(inScope('anthropic', []), true);
    assert.equal(inScope('opencode', ['opencode']), true);
    assert.equal(inScope('anthropic', ['openai']), false);
    assert.deepEqual(
      freeProviders(LISTING, ['anthropic'], []).map((p) => p.id),
      ['openai'],
    );
    assert.equal(chooseRecoveryProvider(LISTING, 'anthropic')?.id, 'opencode');
    assert.equal(chooseRecoveryProvider(LISTING, 'anthropic', [])?.id, 'openai');
    assert.equal(chooseRecoveryProvider(LISTING, 'anthropic', ['opencode'])?.id, 'opencode');
    assert.equal(chooseRecoveryProvider(LISTING, 'openai', ['openai']), null);
  });

  it('the recovery decision honours the scope', () => {
    const [a, b] = pair({ state: 'idle', newest: msg('msg_1', { failure: failure(), finish: 'error' }) }, {});
    assert.equal(assessSession([a, b], LISTING, { now: T0 }).decision.recoverOn, 'opencode');
    assert.equal(assessSession([a, b], LISTING, { now: T0, providers: [] }).decision.recoverOn, 'openai');
    assert.equal(assessSession([a, b], LISTING, { now: T0, providers: ['anthropic'] }).decision.action, 'escalate');
  });

  it('parses "a, b,,c" and refuses what is not a provider id', () => {
    assert.deepEqual(parseProviderScope('a, b,,c'), ['a', 'b', 'c']);
    assert.deepEqual(parseProviderScope(''), []);
    assert.throws(() => parseProviderScope('a,../x'), /is not a provider id/);
  });
});
