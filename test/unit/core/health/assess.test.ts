import assert from 'node:assert/strict';
import { assessSession } from '../../../../src/core/health/assess';
import { buildStatusDocument } from '../../../../src/core/health/status-document';
import { failure, listing, MIN, msg, pair, provider, sample, SEC, T0 } from './fixtures';

describe('assessSession and the status document', () => {
  it('a message assessed again (read again unchanged) gives the same report, parsed once; another message its own', () => {
    const newest = msg('m', {
      text: 'Done.\nticket=PROJ-8 status=blocked reason=quota-exhausted summary="out of quota"',
    });
    const first = assessSession([sample({ state: 'idle', newest })], listing([]), { now: T0 });
    const again = assessSession([sample({ state: 'idle', at: T0 + 45 * SEC, newest })], listing([]), { now: T0 });
    assert.equal(first.report?.status, 'blocked');
    assert.equal(again.report, first.report, 'the same reading object');
    const other = assessSession(
      [sample({ state: 'idle', newest: msg('m2', { text: 'Done.\nticket=PROJ-9 status=done summary="x"' }) })],
      listing([]),
      { now: T0 },
    );
    assert.equal(other.report?.ticket, 'PROJ-9');
  });

  it('idle with a done report in the newest message: harvest with the parsed report', () => {
    const [a, b] = pair(
      {
        state: 'idle',
        newest: msg('m', {
          text: 'Finished.\nticket=PROJ-7 label=Kind/Bug status=done pr=#12 summary="fixed the parser"',
        }),
      },
      {},
    );
    const r = assessSession([a, b], listing([provider('x')]), { now: T0 });
    assert.equal(r.verdict, 'idle');
    assert.equal(r.decision.action, 'harvest');
    assert.deepEqual(r.report, {
      ticket: 'PROJ-7',
      label: 'Kind/Bug',
      status: 'done',
      pr: '#12',
      summary: 'fixed the parser',
      reason: null,
    });
  });

  it('one sample: unsettled, leave alone', () => {
    const r = assessSession([sample({ state: 'generating' })], listing([]), { now: T0 });
    assert.equal(r.settled, false);
    assert.equal(r.verdict, null);
    assert.equal(r.decision.action, 'leave-alone');
  });

  it('uses the last pair of several samples', () => {
    const s1 = sample({ at: T0, state: 'generating', newest: msg('m1') });
    const s2 = sample({ at: T0 + 45 * SEC, state: 'idle', newest: msg('m2') });
    const s3 = sample({ at: T0 + 90 * SEC, state: 'idle', newest: msg('m2') });
    assert.equal(assessSession([s1, s2, s3], listing([]), { now: T0 }).verdict, 'idle');
  });

  it('the document: required fields, unsettled verdict from the latest state, providers connected or marked only', () => {
    const l = listing([
      provider('anthropic', { quota: { markedAt: T0, resetAt: T0 + 30 * MIN } }),
      provider('openai'),
      provider('catalogue-only', { connected: false }),
    ]);
    const [a, b] = pair({ state: 'idle', newest: msg('m', { finish: 'error', failure: failure() }) }, {});
    const walled = assessSession([a, b], l, { now: T0 });
    const lone = assessSession([sample({ id: 'ses_2', state: 'generating' })], l, { now: T0 });
    const doc = buildStatusDocument({
      assessments: [walled, lone],
      listing: l,
      baseUrl: 'http://x/',
      directory: '/w',
      dialect: 'spec',
      sampledAt: [T0, T0 + 45 * SEC],
    });
    assert.deepEqual(doc.sessions[0].quotaWall && { ...doc.sessions[0].quotaWall }, {
      provider: 'anthropic',
      reason: 'account_usage_limit',
      category: 'usage-limit',
      resetAt: T0 + 30 * MIN,
      source: 'tail-probe',
      observed: 'failed-turn',
      abortFirst: false,
    });
    assert.equal(doc.sessions[0].action, 'recover');
    assert.equal(doc.sessions[1].verdict, 'healthy');
    assert.equal(doc.sessions[1].settled, false);
    assert.equal(doc.sessions[1].action, 'leave-alone');
    assert.deepEqual(
      doc.providers.map((p) => [p.id, p.connected, p.quota]),
      [
        ['anthropic', true, { markedAt: T0, resetAt: T0 + 30 * MIN }],
        ['openai', true, null],
      ],
    );
    assert.equal(doc.allFreeAt, T0 + 30 * MIN);
  });
});
