import { strict as assert } from 'node:assert';
import { AutomaticPolicy } from '../../../../src/core/operations/automatic';
import type { AutomaticSwitches } from '../../../../src/core/settings/operator-settings';
import { verdictKey } from '../../../../src/core/keys';
import { describeOperation, OperationBook } from '../../../../src/core/operations/book';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { sessionRow } from '../../../support/session-rows';

const row = (over: Partial<SessionRow> = {}): SessionRow => sessionRow(over);
const ALL: AutomaticSwitches = { abortHung: true, wakeIdle: true, recoverQuotaWalls: true, abortOverBudget: true };
const NONE: AutomaticSwitches = {
  abortHung: false,
  wakeIdle: false,
  recoverQuotaWalls: false,
  abortOverBudget: false,
};
const ok = { trusted: true, busy: false };

describe('core/operations/book', () => {
  it('tracks a running operation, its progress and its outcome; busy only while running', () => {
    let t = 1000;
    const book = new OperationBook(() => t, 60_000);
    const seen: string[] = [];
    book.onDidChange((k) => seen.push(k));
    book.start('k', 'abort', 'aborting');
    assert.equal(book.busy('k'), true);
    assert.equal(describeOperation(book.get('k')), 'aborting…');
    book.progress('k', 'waiting for idle');
    book.finish('k', 'idle', 'aborted, idle confirmed');
    assert.equal(book.busy('k'), false);
    assert.equal(describeOperation(book.get('k')), 'aborted, idle confirmed');
    assert.equal(seen.length, 3);
    t += 61_000;
    assert.equal(book.get('k'), undefined, 'a finished operation leaves the row after keepMs');
  });

  it('a scheduled retry stays until cleared', () => {
    let t = 0;
    const book = new OperationBook(() => t, 1000);
    book.finish('k', 'scheduled', 'retry at 14:05', { action: 'scheduled-retry', at: 5000 });
    t = 10_000;
    assert.equal(book.scheduled('k'), true);
    book.clear('k');
    assert.equal(book.scheduled('k'), false);
  });
});

describe('core/operations/automatic', () => {
  it('does nothing when off, untrusted, busy or without a settled verdict', () => {
    const p = new AutomaticPolicy(() => 0);
    assert.equal(p.decide(row(), NONE, ok), null);
    assert.equal(p.decide(row(), ALL, { trusted: false, busy: false }), null);
    assert.equal(p.decide(row(), ALL, { trusted: true, busy: true }), null);
    assert.equal(p.decide(row({ verdict: null, action: null }), ALL, ok), null);
  });

  it('wakes idle-unfinished, recovers walls, aborts hung only with abortHung', () => {
    const p = new AutomaticPolicy(() => 0);
    assert.equal(p.decide(row(), { ...NONE, wakeIdle: true }, ok), 'wake');
    const hung = row({ verdict: 'hung', action: 'abort-and-wake', state: 'generating', badge: 'hung' });
    assert.equal(p.decide(hung, { ...NONE, wakeIdle: true, recoverQuotaWalls: true }, ok), null);
    assert.equal(p.decide(hung, { ...NONE, abortHung: true }, ok), 'abort-and-wake');
    const wall = row({
      action: 'recover',
      badge: 'quota-wall',
      quotaWall: { provider: 'a', reason: null, category: 'rate-limit', resetAt: null },
    });
    assert.equal(p.decide(wall, { ...NONE, recoverQuotaWalls: true }, ok), 'recover');
    const spinning = { ...wall, state: 'generating' as const, verdict: 'hung' as const };
    assert.equal(
      p.decide(spinning, { ...NONE, recoverQuotaWalls: true }, ok),
      null,
      'a wall still generating needs an abort: only with abortHung',
    );
    assert.equal(p.decide(row({ action: 'harvest' }), ALL, ok), null);
    assert.equal(p.decide(row({ action: 'escalate' }), ALL, ok), null);
  });

  it('never acts twice on one verdict, acts again on a new one, and caps actions per hour', () => {
    let t = 0;
    const p = new AutomaticPolicy(() => t, 2);
    const r1 = row();
    p.record(r1);
    assert.equal(p.decide(r1, ALL, ok), null, 'same verdict');
    const r2 = row({ evidence: { earlier: null, latest: { ...r1.evidence.latest, newestId: 'msg_2' } } });
    assert.notEqual(verdictKey(r1), verdictKey(r2));
    assert.equal(p.decide(r2, ALL, ok), 'wake');
    p.record(r2);
    const r3 = row({ evidence: { earlier: null, latest: { ...r1.evidence.latest, newestId: 'msg_3' } } });
    assert.equal(p.decide(r3, ALL, ok), null, 'cap reached');
    t += 3_600_001;
    assert.equal(p.decide(r3, ALL, ok), 'wake');
  });
});

describe('core/operations/automatic: over budget', () => {
  const cost = { usd: 1.2, tokens: { input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, messages: null };
  const over = (o: Partial<SessionRow> = {}) =>
    row({
      verdict: 'healthy',
      action: 'leave-alone',
      state: 'generating',
      badge: 'healthy',
      cost,
      budgetLevel: 100,
      ...o,
    });

  it('aborts a generating session past its budget only with abortOverBudget, on a settled verdict, never twice', () => {
    const p = new AutomaticPolicy(() => 0);
    assert.equal(p.decide(over(), { ...ALL, abortOverBudget: false }, ok), null);
    assert.equal(p.decide(over({ verdict: null, action: null }), ALL, ok), null, 'never on one snapshot');
    assert.equal(p.decide(over({ verdict: 'waiting', action: 'answer', badge: 'waiting' }), ALL, ok), null);
    assert.equal(p.decide(over({ state: 'idle', verdict: 'idle', action: 'wake' }), ALL, ok), null, 'never woken');
    assert.equal(p.decide(over({ budgetLevel: 80 }), { ...NONE, abortOverBudget: true }, ok), null);
    const r = over();
    assert.equal(p.decide(r, { ...NONE, abortOverBudget: true }, ok), 'abort');
    p.record(r);
    assert.equal(p.decide(r, { ...NONE, abortOverBudget: true }, ok), null, 'never twice on one verdict');
    assert.equal(AutomaticPolicy.armed({ ...NONE, abortOverBudget: true }), true);
  });

  it('a hung session past its budget is aborted, not aborted and woken', () => {
    const p = new AutomaticPolicy(() => 0);
    const hung = over({ verdict: 'hung', action: 'abort-and-wake', badge: 'hung' });
    assert.equal(p.decide(hung, ALL, ok), 'abort');
    assert.equal(p.decide(hung, { ...ALL, abortOverBudget: false }, ok), null);
  });
});
