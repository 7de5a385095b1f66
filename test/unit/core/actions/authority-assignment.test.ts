// Who assigned a worker (src/core/actions/assignment.ts) and rule 1 on it (authority.ts): the
// durable record first, else the first user message read once and remembered; a recorded
// orchestrator other than the one a prompt speaks for is a mismatch whatever the newest message
// is; without an orchestrator of its own a prompt reports to the recorded one (no placeholder).
import assert from 'node:assert/strict';
import { readAssigner, recordAssignment, type Assigner } from '../../../../src/core/actions/assignment';
import { reportTargetIn, resolveAuthority, retaskRefusal } from '../../../../src/core/actions/authority';
import type { ActionContext } from '../../../../src/core/actions/executor-context';
import { completionReportBlock } from '../../../../src/core/prompt/clauses';
import { isFactBaselineDocument } from '../../../../src/core/prompt/wake-rules';
import { composeFactBaseline } from '../../../../src/core/prompt/fact-baseline';
import { MemoryAssignments } from '../../../../src/core/operations/assignments';
import {
  emptyOperatorState,
  mergeOperatorState,
  parseOperatorState,
} from '../../../../src/core/operations/state-store-operator';
import { assignmentKey, type AssignmentRecord } from '../../../../src/core/actions/assignment';

const first = (orchestrator: string | null): Assigner => ({
  orchestrator,
  ticket: 'PROJ-7',
  source: 'first-message',
  detail: 'its first user message',
});

describe('core/actions/assignment and authority rule 1 on the record', () => {
  it('a recorded orchestrator other than the speaker is a mismatch (the newest message names none); the refusal names the record', () => {
    const a = resolveAuthority({ orchestrator: 'ses_other', assigned: first('ses_mine') });
    assert.equal(a.mismatch, true);
    assert.match(
      retaskRefusal(a, 'dispatch') ?? '',
      /^authority rule 1: the worker's assignment \(its first user message\) names orchestrator ses_mine, but this prompt speaks for ses_other; only the session holding the orchestrating authority may re-task the worker/,
    );
    assert.equal(
      retaskRefusal(resolveAuthority({ orchestrator: 'ses_mine', assigned: first('ses_mine') }), 'dispatch'),
      null,
    );
    assert.equal(
      retaskRefusal(
        resolveAuthority({ orchestrator: 'ses_other', assigned: first('ses_mine'), holdsAuthority: true }),
        'fact-baseline',
      ),
      null,
    );
    // A record naming none constrains nothing.
    assert.equal(resolveAuthority({ orchestrator: 'ses_other', assigned: first(null) }).mismatch, false);
  });

  it('a prompt naming no orchestrator reports to the recorded one (and takes its ticket), never to a placeholder; a re-task by nobody is refused', () => {
    const a = resolveAuthority({ assigned: first('ses_mine') });
    assert.equal(a.report.orchestratorSessionId, 'ses_mine');
    assert.equal(a.report.ticket, 'PROJ-7');
    assert.doesNotMatch(completionReportBlock(a.report), /<orchestrator session id>/);
    assert.match(retaskRefusal(a, 'fact-baseline') ?? '', /but this prompt names none/);
  });

  it('reportTargetIn reads the completion-report block; isFactBaselineDocument knows a fact baseline whoever wrote it', () => {
    const block = completionReportBlock({ ticket: 'PROJ-7', orchestratorSessionId: 'ses_x1' });
    assert.equal(reportTargetIn(`Do this.\n\n${block}`), 'ses_x1');
    assert.equal(
      reportTargetIn(completionReportBlock({ ticket: 'T-1', orchestratorSessionId: '<orchestrator session id>' })),
      null,
    );
    assert.equal(reportTargetIn('the orchestrator ses_x1 restarted'), null);
    const baseline = composeFactBaseline({
      event: 'orchestrator restarted',
      facts: [{ statement: 'PR #34 merged', source: 'https://x/pr/34', at: '2026-11-23T11:00Z' }],
      invalidAssumptions: ['none'],
      assignment: { kind: 'task', step: 'rebase on main' },
      now: Date.UTC(2026, 10, 25),
      uncommittedFiles: [],
      report: { ticket: 'PROJ-7', orchestratorSessionId: 'ses_x1' },
    });
    assert.equal(isFactBaselineDocument(baseline), true);
    assert.equal(isFactBaselineDocument('Please continue with the parser.'), false);
  });

  it('readAssigner: the record first; else the first user message, read once and remembered; a failed read is said and not remembered', async () => {
    let reads = 0;
    let fail = false;
    const book = new MemoryAssignments();
    const ctx = {
      directory: '/w',
      assignments: book,
      clock: { now: () => 1000, sleep: async () => undefined },
      backend: {
        firstUserMessage: async () => {
          reads++;
          if (fail) throw new Error('connection refused');
          return { text: 'Port it. ticket=PROJ-7. Report to orchestrator ses_mine.' };
        },
      },
    } as unknown as ActionContext;
    // No user message at all: assigned by nobody, and remembered (the transcript is read once).
    const none = {
      ...ctx,
      backend: {
        firstUserMessage: async () => {
          reads++;
          return null;
        },
      },
    } as unknown as ActionContext;
    assert.equal((await readAssigner(none, 'ses_new')).orchestrator, null);
    await readAssigner(none, 'ses_new');
    assert.equal(reads, 1);
    assert.equal((await book.get('/w', 'ses_new'))?.orchestrator, null);
    reads = 0;
    fail = true;
    const unread = await readAssigner(ctx, 'ses_w');
    assert.equal(unread.source, 'unread');
    assert.match(unread.detail, /could not be read \(connection refused\)/);
    fail = false;
    assert.deepEqual(await readAssigner(ctx, 'ses_w'), {
      orchestrator: 'ses_mine',
      ticket: 'PROJ-7',
      source: 'first-message',
      detail: 'its first user message',
    });
    await readAssigner(ctx, 'ses_w');
    assert.equal(reads, 2, 'remembered after the first successful read');
    // A dispatch is recorded and outranks the first message; recording the same orchestrator again writes nothing new.
    assert.equal(
      await recordAssignment(ctx, 'ses_w', 'dispatch', 'ses_new', null, await readAssigner(ctx, 'ses_w')),
      null,
    );
    assert.equal((await readAssigner(ctx, 'ses_w')).orchestrator, 'ses_new');
    assert.equal((await readAssigner(ctx, 'ses_w')).source, 'dispatch');
  });

  it('the operator state keeps assignments: malformed ones dropped; a dispatch outranks a first message, then the newer wins', () => {
    const rec = (over: Partial<AssignmentRecord>): AssignmentRecord => ({
      directory: '/w',
      sessionId: 'ses_w',
      orchestrator: 'ses_a',
      ticket: null,
      source: 'first-message',
      at: 1000,
      ...over,
    });
    const key = assignmentKey('/w', 'ses_w');
    const parsed = parseOperatorState({
      version: 1,
      assignments: {
        [key]: rec({}),
        [assignmentKey('/w', 'ses_bad')]: { ...rec({ sessionId: 'ses_bad' }), source: 'rumour' },
        wrongkey: rec({}),
      },
    });
    assert.deepEqual(Object.keys(parsed.assignments), [key]);
    const disk = {
      ...emptyOperatorState(),
      assignments: { [key]: rec({ source: 'dispatch', orchestrator: 'ses_d', at: 1000 }) },
    };
    const mine = { ...emptyOperatorState(), assignments: { [key]: rec({ orchestrator: 'ses_f', at: 5000 }) } };
    assert.equal(mergeOperatorState(disk, mine, 6000).assignments[key].orchestrator, 'ses_d');
    const newer = {
      ...emptyOperatorState(),
      assignments: { [key]: rec({ source: 'dispatch', orchestrator: 'ses_n', at: 2000 }) },
    };
    assert.equal(mergeOperatorState(disk, newer, 6000).assignments[key].orchestrator, 'ses_n');
    assert.equal(mergeOperatorState(emptyOperatorState(), mine, 5000).assignments[key].orchestrator, 'ses_f');
  });
});
