import assert from 'node:assert/strict';
import { assessSession } from '../../../../src/core/health/assess';
import { headline } from '../../../../src/core/health/precedence';
import { statusSession } from '../../../../src/core/health/status-document';
import { badgeOf } from '../../../../src/core/monitor/to-row';
import type { QuotaWall } from '../../../../src/core/model';
import { failure, listing, MIN, msg, pair, provider, T0 } from './fixtures';

describe('health/precedence: one order for badge, action, tooltip and CLI', () => {
  const wall: QuotaWall = {
    provider: 'a',
    reason: null,
    category: 'rate-limit',
    resetAt: null,
    source: 'tail-probe',
    observed: 'failed-turn',
    abortFirst: false,
    text: null,
  };
  const report = { ticket: 'T', label: null, status: 'done' as const, pr: null, summary: null, reason: null };

  it('unreadable > quota wall > report > verdict > pending', () => {
    assert.equal(headline({ verdict: 'idle', quotaWall: wall, report, unreadable: 'gone' }), 'unreadable');
    assert.equal(headline({ verdict: 'idle', quotaWall: wall, report }), 'quota-wall');
    assert.equal(headline({ verdict: 'hung', quotaWall: null, report }), 'report');
    assert.equal(headline({ verdict: 'hung', quotaWall: null, report: null }), 'hung');
    assert.equal(headline({ verdict: null, quotaWall: null, report: null }), 'pending');
  });

  it('the badge, the action and the status document agree on a session with a wall and a report', () => {
    const newest = msg('m1', { finish: 'error', failure: failure(), text: 'ticket=T-1 status=done summary="x"' });
    const [a, b] = pair({ state: 'idle', newest }, {});
    const r = assessSession([a, b], listing([provider('anthropic'), provider('openai')]), { now: T0 + MIN });
    assert.equal(badgeOf(r), 'quota-wall');
    assert.equal(r.decision.action, 'recover');
    assert.equal(statusSession(r).headline, 'quota-wall');
  });
});
