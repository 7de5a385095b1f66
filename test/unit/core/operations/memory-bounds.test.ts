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

  it('automatic mode forgets a verdict once its session moved to a newer message, and sessions gone a month', () => {
    let now = 1_000_000_000_000;
    const policy = new AutomaticPolicy(() => now);
    const switches = { abortHung: false, wakeIdle: true, recoverQuotaWalls: false, abortOverBudget: false };
    const ctx = { trusted: true, busy: false };
    const sessions = 2_000;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < sessions; i++) {
        const row = idleRow(`ses_${i}`, `msg_${round}`);
        assert.equal(policy.decide(row, switches, ctx), 'wake', `round ${round}: a new message is a new verdict`);
        policy.record(row);
        assert.equal(policy.decide(row, switches, ctx), null, 'never twice on one verdict');
      }
      now += 2 * HOUR;
    }
    assert.equal(policy.actedCount, sessions, 'one verdict per session: those on older messages are forgotten');
    assert.ok(policy.historyCount <= sessions);
    // A session that stays on one message keeps its verdict for as long as it is listed.
    for (let day = 0; day < 40; day++) {
      now += 24 * HOUR;
      assert.equal(policy.decide(idleRow('ses_0', 'msg_4'), switches, ctx), null, `day ${day}: still acted on`);
    }
    assert.equal(policy.actedCount, 1, 'the sessions not considered for a month are forgotten');
    assert.equal(policy.historyCount, 0, 'no action in the last hour');
    assert.deepEqual(Object.keys(policy.memory().acted).length, 1);
    assert.ok(OPERATOR_STATE_KEEP_MS < 40 * 24 * HOUR);
  });

  it('a remembered verdict (after a restart) still blocks a second action on it', () => {
    const now = 1_000_000_000_000;
    const first = new AutomaticPolicy(() => now);
    const switches = { abortHung: false, wakeIdle: true, recoverQuotaWalls: false, abortOverBudget: false };
    const row = idleRow('ses_1', 'msg_1');
    first.record(row);
    const second = new AutomaticPolicy(() => now + 1_000);
    second.remember(first.memory());
    assert.equal(second.decide(row, switches, { trusted: true, busy: false }), null);
    assert.equal(second.decide(idleRow('ses_1', 'msg_2'), switches, { trusted: true, busy: false }), 'wake');
    assert.equal(second.actedCount, 0, 'the remembered verdict on msg_1 is forgotten once the session is on msg_2');
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
