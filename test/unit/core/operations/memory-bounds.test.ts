import assert from 'node:assert/strict';
import {
  OPERATOR_STATE_KEEP_MS,
  OPERATOR_STATE_MAX_ENTRIES,
  TimedMemory,
} from '../../../../src/core/operations/memory-bounds';
import { AutomaticPolicy } from '../../../../src/core/operations/automatic';
import { ReportBook } from '../../../../src/core/operations/reports';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { sessionRow } from '../../../support/session-rows';

const HOUR = 3_600_000;

const idleRow = (id: string, newestId: string): SessionRow =>
  sessionRow({
    id,
    verdict: 'idle',
    action: 'wake',
    state: 'idle',
    badge: 'idle',
    evidence: {
      earlier: null,
      latest: { at: 0, state: 'idle', stepCount: null, lastStepAt: null, newestId, newestRole: 'assistant' },
    },
  } as Partial<SessionRow>);

describe('core/operations/memory-bounds: what the operator remembers stays bounded in memory', () => {
  it('keeps at most the max entries, the newest, and forgets entries older than the keep time', () => {
    let now = 1_000_000_000_000;
    const memory = new TimedMemory(() => now, 10 * HOUR, 100);
    for (let i = 0; i < 1_000; i++) memory.set(`k${i}`, now + i);
    assert.ok(memory.size <= 100, `at most 100 kept, got ${memory.size}`);
    assert.ok(memory.has('k999') && !memory.has('k0'), 'the newest are kept');
    assert.equal(Object.keys(memory.toRecord()).length, memory.size);
    now += 11 * HOUR;
    memory.set('fresh', now);
    assert.deepEqual(Object.keys(memory.toRecord()), ['fresh'], 'entries past the keep time are forgotten');
  });

  it('the later time of one key wins', () => {
    const memory = new TimedMemory(() => 0);
    memory.set('a', 5);
    memory.set('a', 3);
    assert.deepEqual(memory.toRecord(), { a: 5 });
  });

  it("automatic mode's acted verdicts and per-session history stay bounded over months of sessions", () => {
    let now = 1_000_000_000_000;
    const policy = new AutomaticPolicy(() => now);
    const switches = { abortHung: false, wakeIdle: true, recoverQuotaWalls: false, abortOverBudget: false };
    for (let i = 0; i < OPERATOR_STATE_MAX_ENTRIES * 3; i++) {
      const row = idleRow(`ses_${i}`, `msg_${i}`);
      assert.equal(policy.decide(row, switches, { trusted: true, busy: false }), 'wake');
      policy.record(row);
      now += 60_000;
    }
    assert.ok(policy.actedCount <= OPERATOR_STATE_MAX_ENTRIES, `acted ${policy.actedCount}`);
    assert.ok(policy.historyCount <= 61, `history of the last hour only, got ${policy.historyCount}`);
    const last = idleRow(`ses_${OPERATOR_STATE_MAX_ENTRIES * 3 - 1}`, `msg_${OPERATOR_STATE_MAX_ENTRIES * 3 - 1}`);
    assert.equal(
      policy.decide(last, switches, { trusted: true, busy: false }),
      null,
      'a recent verdict still acts once',
    );
    now += OPERATOR_STATE_KEEP_MS + HOUR;
    policy.record(idleRow('ses_new', 'msg_new'));
    assert.equal(policy.actedCount, 1, 'verdicts older than the keep time are forgotten');
    assert.deepEqual(Object.keys(policy.memory().acted).length, 1);
  });

  it('seen reports stay bounded, and the attention recount still sees every new mark', () => {
    let now = 1_000_000_000_000;
    const book = new ReportBook(() => now);
    let marks = book.seenCount;
    for (let i = 0; i < OPERATOR_STATE_MAX_ENTRIES + 600; i++) {
      const row = sessionRow({
        id: `ses_${i}`,
        badge: 'report-done',
        action: 'harvest',
        report: { ticket: `T-${i}`, label: null, status: 'done', pr: null, summary: 's', reason: null },
        evidence: {
          earlier: null,
          latest: {
            at: 0,
            state: 'idle',
            stepCount: null,
            lastStepAt: null,
            newestId: `m${i}`,
            newestRole: 'assistant',
          },
        },
      } as Partial<SessionRow>);
      assert.equal(book.markSeen(row), true);
      assert.notEqual(book.seenCount, marks, 'every mark changes the count the badge recount watches');
      marks = book.seenCount;
      now += 1_000;
    }
    assert.ok(Object.keys(book.seenEntries()).length <= OPERATOR_STATE_MAX_ENTRIES);
  });
});
