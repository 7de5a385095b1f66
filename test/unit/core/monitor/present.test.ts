import { strict as assert } from 'node:assert';
import { sessionContextValue } from '../../../../src/core/monitor/context-values';
import {
  ago,
  agoCoarse,
  badgeLook,
  describeRow,
  escapeMarkdown,
  tooltipMarkdown,
  until,
  untilCoarse,
} from '../../../../src/core/monitor/present';
import { needsAttention, type SessionRow } from '../../../../src/core/monitor/row';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

function row(over: Partial<SessionRow> = {}): SessionRow {
  return {
    key: 'b|/w|ses_1',
    backendKey: 'b',
    directory: '/w',
    id: 'ses_1',
    title: 'Fix the parser',
    badge: 'healthy',
    verdict: 'healthy',
    action: 'leave-alone',
    pending: null,
    state: 'generating',
    stepCount: 42,
    lastMovedAt: NOW - 12_000,
    model: 'local/m1',
    quotaWall: null,
    report: null,
    failureText: null,
    newestText: null,
    evidence: {
      earlier: {
        at: NOW - 45_000,
        state: 'generating',
        stepCount: 40,
        lastStepAt: NOW - 50_000,
        newestId: 'msg_1',
        newestRole: 'assistant',
      },
      latest: {
        at: NOW,
        state: 'generating',
        stepCount: 42,
        lastStepAt: NOW - 12_000,
        newestId: 'msg_2',
        newestRole: 'assistant',
      },
    },
    ...over,
  };
}

describe('core/monitor/present', () => {
  it('describes step count, movement and model', () => {
    assert.equal(describeRow(row(), NOW), 'step 42 · moved <1m ago · local/m1');
  });

  it('describes a quota wall with its reset, or says the reset is unknown', () => {
    const resetAt = NOW + (2 * 60 + 3) * 60_000;
    const withReset = describeRow(
      row({
        badge: 'quota-wall',
        quotaWall: { provider: 'anthropic', reason: 'account_usage_limit', category: 'usage-limit', resetAt },
      }),
      NOW,
    );
    assert.match(withReset, /resets \d{4}-\d\d-\d\d \d\d:\d\d \(in 2h 15m\)$/);
    assert.match(
      describeRow(row({ quotaWall: { provider: null, reason: null, category: 'rate-limit', resetAt: null } }), NOW),
      /reset unknown$/,
    );
    assert.match(
      describeRow(row({ quotaWall: { provider: 'p', reason: null, category: 'balance', resetAt: null } }), NOW),
      /balance: needs top-up$/,
    );
  });

  it('relative times in the row text are coarse: minutes, then 5-minute steps, then hours', () => {
    const at = (ms: number) => agoCoarse(NOW - ms, NOW);
    assert.equal(at(0), '<1m ago');
    assert.equal(at(59_999), '<1m ago');
    assert.equal(at(60_000), '1m ago');
    assert.equal(at(4 * 60_000 + 59_000), '4m ago');
    assert.equal(at(7 * 60_000), '5m ago');
    assert.equal(at(14 * 60_000 + 59_000), '10m ago');
    assert.equal(at(59 * 60_000), '55m ago');
    assert.equal(at(90 * 60_000), '1h ago');
    assert.equal(at(47 * 3600_000), '47h ago');
    assert.equal(at(72 * 3600_000), '3d ago');
    assert.equal(agoCoarse(NOW + 5_000, NOW), '<1m ago', 'a clock skew into the future reads as just now');
    const to = (ms: number) => untilCoarse(NOW + ms, NOW);
    assert.equal(to(0), 'now');
    assert.equal(to(-1), 'now');
    assert.equal(to(30_000), 'in <1m');
    assert.equal(to(61_000), 'in 2m');
    assert.equal(to(6 * 60_000), 'in 10m');
    assert.equal(to(60 * 60_000), 'in 1h');
    assert.equal(to(61 * 60_000), 'in 1h 15m');
    assert.equal(to(50 * 3600_000), 'in 2d 2h');
  });

  it('a row that did not move reads the same over consecutive 30-60 s rounds, except at a coarse step', () => {
    // A stalled session (last moved 20 min ago), sampled every 45 s for 4 minutes: the text
    // changes at most once (the 20m -> 25m step), not every round.
    const stalled = row({ lastMovedAt: NOW - 20 * 60_000 - 10_000, stepCount: 42 });
    const texts = Array.from({ length: 6 }, (_, i) => describeRow(stalled, NOW + i * 45_000));
    assert.ok(new Set(texts).size <= 2, texts.join('\n'));
    // A moving one (moved at each sample) always reads "<1m ago".
    const moving = Array.from({ length: 6 }, (_, i) =>
      describeRow(row({ lastMovedAt: NOW + i * 45_000 - 3_000 }), NOW + i * 45_000),
    );
    assert.equal(new Set(moving).size, 1);
    // A quota wall's reset countdown in the text moves in 15-minute steps over an hour.
    const wall = row({
      lastMovedAt: NOW - 31 * 60_000,
      badge: 'quota-wall',
      quotaWall: {
        provider: 'p',
        reason: null,
        category: 'usage-limit',
        resetAt: NOW + 3 * 3600_000,
        markedAt: NOW - 20 * 60_000 - 10_000,
      },
    });
    const walls = Array.from({ length: 8 }, (_, i) => describeRow(wall, NOW + i * 45_000));
    assert.ok(new Set(walls).size <= 3, walls.join('\n'));
  });

  it('the tooltip keeps the exact time of the last movement', () => {
    const md = tooltipMarkdown(row(), NOW);
    assert.match(md, /Last moved: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(12s ago\)/);
  });

  it('says why there is no verdict yet', () => {
    const d = describeRow(
      row({
        badge: 'unknown',
        verdict: null,
        action: null,
        pending: 'first sample taken',
        stepCount: null,
        lastMovedAt: null,
        model: null,
      }),
      NOW,
    );
    assert.equal(d, 'first sample taken');
  });

  it('composes contextValue flags that menus can match one by one', () => {
    assert.equal(sessionContextValue(row()), 'sessionOps:session+verdict-healthy+state-generating+action-leaveAlone');
    const hung = sessionContextValue(row({ badge: 'hung', verdict: 'hung', action: 'abort-and-wake' }));
    assert.match(hung, /\+verdict-hung(\+|$)/);
    assert.match(hung, /\+action-abortAndWake(\+|$)/);
    assert.match(hung, /\+attention(\+|$)/);
    const wall = sessionContextValue(
      row({
        badge: 'quota-wall',
        verdict: 'idle',
        state: 'idle',
        action: 'recover',
        quotaWall: { provider: 'p', reason: 'rate_limit', category: 'rate-limit', resetAt: null },
      }),
    );
    assert.match(wall, /\+state-idle\+.*\+quotaWall(\+|$)/);
    const report = sessionContextValue(
      row({
        badge: 'report-done',
        verdict: 'idle',
        state: 'idle',
        action: 'harvest',
        report: { ticket: 'T-1', label: null, status: 'done', pr: null, summary: null, reason: null },
      }),
    );
    assert.match(report, /\+report(\+|$)/);
  });

  it('counts attention: hung, quota walls, reports, idle with unfinished work; not healthy or idle-done', () => {
    assert.equal(needsAttention(row()), false);
    assert.equal(needsAttention(row({ badge: 'hung' })), true);
    assert.equal(needsAttention(row({ badge: 'quota-wall' })), true);
    assert.equal(needsAttention(row({ badge: 'report-blocked' })), true);
    assert.equal(needsAttention(row({ badge: 'idle', action: 'wake' })), true);
    assert.equal(needsAttention(row({ badge: 'idle', action: 'leave-alone' })), false);
    assert.equal(needsAttention(row({ badge: 'unknown' })), false);
  });

  it("the tooltip says why automatic mode leaves a session alone, and a parent's names its sub-agents' verdicts", () => {
    const stuck = { reason: 'stuck', text: 'stuck: woken 3 times without a report; a person decides' };
    const idle = row({ badge: 'idle', verdict: 'idle', action: 'wake', state: 'idle' });
    assert.match(
      tooltipMarkdown(idle, NOW, { automaticSkip: stuck }),
      /Automatic mode leaves it alone \(stuck\): stuck: woken 3 times without a report; a person decides/,
    );
    assert.doesNotMatch(tooltipMarkdown(idle, NOW), /Automatic mode/);
    assert.equal(needsAttention(idle), true, 'a stuck session (it needs a wake again) counts in the attention badge');
    const children = [
      row({ id: 'ses_c1', title: 'explore', parentId: 'ses_1', verdict: 'hung', action: 'abort-and-wake' }),
      row({ id: 'ses_c2', title: null, parentId: 'ses_1', verdict: null, action: null }),
    ];
    const md = tooltipMarkdown(row(), NOW, { subAgents: children });
    assert.match(
      md,
      /Sub-agents \(2\):\n- explore `ses_c1`: \*\*hung\*\* · abort-and-wake\n- `ses_c2`: \*\*no verdict yet\*\*/,
    );
    const many = Array.from({ length: 12 }, (_, i) => row({ id: `ses_k${i}`, parentId: 'ses_1' }));
    assert.match(tooltipMarkdown(row(), NOW, { subAgents: many }), /- and 2 more/);
  });

  it('escapes server text in the tooltip so it cannot become a link or markup', () => {
    const md = tooltipMarkdown(
      row({ failureText: 'see [here](command:workbench.action.reloadWindow) <img src=x>' }),
      NOW,
    );
    assert.ok(!md.includes('[here](command:'), md);
    assert.ok(md.includes('\\[here\\]\\(command:workbench\\.action\\.reloadWindow\\)'));
    assert.ok(md.includes('\\<img src=x\\>'));
    assert.match(md, /earlier sample \(45s ago\): state \*\*generating\*\*, steps 40, newest `msg_1`/);
    assert.match(md, /latest sample \(0s ago\): state \*\*generating\*\*, steps 42, newest `msg_2`/);
    assert.equal(escapeMarkdown('a*b_c'), 'a\\*b\\_c');
  });

  it('has a distinct icon for every badge', () => {
    const badges = [
      'unknown',
      'healthy',
      'idle',
      'hung',
      'quota-wall',
      'report-done',
      'report-blocked',
      'report-handoff',
    ] as const;
    assert.equal(new Set(badges.map((b) => badgeLook(b).icon)).size, badges.length);
  });

  it('formats relative times', () => {
    assert.equal(ago(NOW - 5_000, NOW), '5s ago');
    assert.equal(ago(NOW - 3 * 3600_000 - 60_000, NOW), '3h 1m ago');
    assert.equal(until(NOW - 1, NOW), 'now');
    assert.equal(until(NOW + 3 * 86400_000, NOW), 'in 3d 0h');
  });

  it("shows a quota mark's age, a transient retry on a healthy row, and why a row is unknown (issue 10)", () => {
    const wall = {
      provider: 'local',
      reason: 'rate_limit',
      category: 'rate-limit' as const,
      resetAt: null,
      markedAt: NOW - 47 * 60_000,
    };
    assert.match(describeRow(row({ badge: 'quota-wall', quotaWall: wall }), NOW), /reset unknown · marked 45m ago$/);
    assert.match(tooltipMarkdown(row({ badge: 'quota-wall', quotaWall: wall }), NOW), /; marked 47m ago/);
    const retrying = row({ retrying: 'retrying (attempt 2, next in 5 s)' });
    assert.equal(describeRow(retrying, NOW), 'step 42 · moved <1m ago · local/m1 · retrying (attempt 2, next in 5 s)');
    assert.match(tooltipMarkdown(retrying, NOW), /not a quota wall/);
    const unknown = row({
      badge: 'unknown',
      verdict: null,
      action: null,
      unreadable: 'GET /session/{id}/message failed: HTTP 500',
      pending: 'the newest message could not be read: HTTP 500',
    });
    assert.match(describeRow(unknown, NOW), /^unknown: GET \/session\/\{id\}\/message failed: HTTP 500/);
    assert.match(sessionContextValue(unknown), /\+verdict-unknown(\+|$)/);
  });
});

describe('the Sessions row tooltip states what a quota wall rests on', () => {
  it('inferred from a marked provider, seen in a failed turn, seen as a long retry', () => {
    const base = { provider: 'anthropic', reason: null, resetAt: null, markedAt: NOW - 10 * 60_000 };
    const inferred = tooltipMarkdown(
      row({ badge: 'quota-wall', quotaWall: { ...base, category: null, observed: 'provider-marked' } }),
      NOW,
    );
    assert.match(inferred, /inferred: the session stopped moving while \*\*anthropic\*\* is under a quota mark/);
    assert.doesNotMatch(inferred, /Quota wall: null/);
    const failed = tooltipMarkdown(
      row({ badge: 'quota-wall', quotaWall: { ...base, category: 'usage-limit', observed: 'failed-turn' } }),
      NOW,
    );
    assert.match(failed, /seen in a failed turn/);
    const retry = tooltipMarkdown(
      row({ badge: 'quota-wall', quotaWall: { ...base, category: 'rate-limit', observed: 'retry' } }),
      NOW,
    );
    assert.match(retry, /seen as a long retry/);
  });
});
