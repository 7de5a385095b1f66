// The waiting badge on the row (what is asked, how it reads, attention, flags), todo progress,
// sub-agents kept under their parent, and the events that nudge a sample.
import { strict as assert } from 'node:assert';
import { toBackendEvent } from '../../../../src/core/backend/events';
import { sessionContextValue } from '../../../../src/core/monitor/context-values';
import { badgeLook, describeRow, tooltipMarkdown } from '../../../../src/core/monitor/present';
import { needsAttention, orderByParent, type SessionRow, type WaitingView } from '../../../../src/core/monitor/row';
import { isNudge } from '../../../../src/core/monitor/sessionMonitor';
import { toRow } from '../../../../src/core/monitor/to-row';
import { assessSession } from '../../../../src/core/health/assess';
import { pair, T0 } from '../health/fixtures';
import { sessionRow } from '../../../support/session-rows';

const NOW = T0 + 60_000;

/** A healthy generating session at NOW unless told otherwise. */
function row(over: Partial<SessionRow> = {}): SessionRow {
  const latest = {
    at: NOW,
    state: 'generating' as const,
    stepCount: null,
    lastStepAt: null,
    newestId: 'msg_1',
    newestRole: 'assistant' as const,
  };
  return sessionRow({
    title: 'Fix',
    badge: 'healthy',
    verdict: 'healthy',
    action: 'leave-alone',
    state: 'generating',
    evidence: { earlier: null, latest },
    ...over,
  });
}

const PERMISSION_VIEW: WaitingView = {
  kind: 'permission',
  title: 'permission: bash rm -rf build',
  requestID: 'per_1',
  detail: { kind: 'permission', tool: 'bash', patterns: ['rm -rf build'], always: ['rm *'] },
};
const QUESTION_VIEW: WaitingView = {
  kind: 'question',
  title: 'question: Colour',
  requestID: 'que_1',
  detail: {
    kind: 'question',
    questions: [
      {
        question: 'Which *colour*?',
        header: 'Colour',
        options: [{ label: 'Red', description: 'warm' }],
        multiple: false,
        custom: true,
      },
    ],
  },
};

describe('core/monitor: sessions waiting for a person', () => {
  it('the row of a waiting assessment: badge waiting, action answer, the request for the menu', () => {
    const [a, b] = pair({}, {});
    b.waiting = {
      kind: 'permission',
      requestID: 'per_1',
      sessionID: 'ses_1',
      title: 'permission: bash rm -rf build',
      permission: { tool: 'bash', patterns: ['rm -rf build'], always: ['rm *'] },
      questions: [],
    };
    const assessment = assessSession([a, b], { providers: [], connected: [] }, { now: NOW });
    const r = toRow({
      backendKey: 'b',
      directory: '/w',
      assessment,
      baseline: a,
      latest: b,
      history: [a, b],
      listing: { providers: [], connected: [] },
    });
    assert.deepEqual([r.badge, r.verdict, r.action], ['waiting', 'waiting', 'answer']);
    assert.deepEqual(r.waiting, PERMISSION_VIEW);
    assert.equal(needsAttention(r), true);
    assert.match(sessionContextValue(r), /\+verdict-waiting\+.*\+action-answer\+attention\+waiting-permission$/);
  });

  it('the badge looks like a bell; the description says what is asked; todos count', () => {
    assert.equal(badgeLook('waiting').icon, 'bell');
    const r = row({
      badge: 'waiting',
      verdict: 'waiting',
      action: 'answer',
      waiting: PERMISSION_VIEW,
      todos: { done: 4, total: 7, inProgress: 'write tests' },
    });
    assert.equal(describeRow(r, NOW), 'permission: bash rm -rf build · 4/7 todos');
  });

  it('the tooltip names the tool and its patterns, or the question and its options, escaped', () => {
    const p = tooltipMarkdown(
      row({ badge: 'waiting', verdict: 'waiting', action: 'answer', waiting: PERMISSION_VIEW }),
      NOW,
    );
    assert.match(p, /Waiting for you/);
    assert.match(p, /tool `bash`/);
    assert.match(p, /pattern rm \\-rf build/);
    assert.match(p, /Allow Once, Allow Always or Reject/);
    const q = tooltipMarkdown(
      row({ badge: 'waiting', verdict: 'waiting', action: 'answer', waiting: QUESTION_VIEW }),
      NOW,
    );
    assert.match(q, /Which \\\*colour\\\*\?/);
    assert.match(q, /Red: warm/);
    assert.match(q, /or free text/);
  });

  it('sub-agent rows follow their parent; an orphan or a cycle stays in the list', () => {
    const rows = [
      row({ id: 'c1', parentId: 'p' }),
      row({ id: 'x' }),
      row({ id: 'p' }),
      row({ id: 'g', parentId: 'c1' }),
      row({ id: 'o', parentId: 'gone' }),
      row({ id: 'y1', parentId: 'y2' }),
      row({ id: 'y2', parentId: 'y1' }),
    ];
    assert.deepEqual(
      orderByParent(rows).map((r) => r.id),
      ['x', 'p', 'c1', 'g', 'o', 'y1', 'y2'],
    );
  });

  it('permission.* and question.* events nudge a sample; todo.updated carries the progress', () => {
    for (const type of [
      'permission.asked',
      'permission.replied',
      'question.asked',
      'question.replied',
      'question.rejected',
      'todo.updated',
    ]) {
      assert.equal(isNudge({ type, sessionID: 'ses_1', state: null }), true, type);
    }
    assert.equal(isNudge({ type: 'message.part.updated', sessionID: 'ses_1', state: null }), false);
    const e = toBackendEvent(
      JSON.stringify({
        type: 'todo.updated',
        properties: {
          sessionID: 'ses_1',
          todos: [
            { content: 'a', status: 'completed', priority: 'high' },
            { content: 'b', status: 'pending', priority: 'low' },
          ],
        },
      }),
    );
    assert.deepEqual(e, {
      type: 'todo.updated',
      sessionID: 'ses_1',
      state: null,
      todos: { done: 1, total: 2, inProgress: null },
    });
    assert.equal(
      toBackendEvent(JSON.stringify({ type: 'todo.updated', properties: { sessionID: 'ses_1', todos: 'bad' } }))?.todos,
      null,
    );
  });
});
