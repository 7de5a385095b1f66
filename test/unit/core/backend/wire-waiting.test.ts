// The stock-opencode readers of pending permissions, pending questions and todo lists (shapes as
// GET /doc of opencode 1.18.33 and the real server show them); bad shapes are a ShapeError.
import assert from 'node:assert/strict';
import { readPermissionList } from '../../../../src/core/backend/wire/permission';
import { answersProblem, readQuestionList } from '../../../../src/core/backend/wire/question';
import { readTodoList } from '../../../../src/core/backend/wire/todo';
import { ShapeError } from '../../../../src/core/backend/wire/shape';

const PERMISSION = {
  id: 'per_209b5bbdf001rz1Q0iHE920rfA',
  sessionID: 'ses_df64a609dffeqVf1h1LFXrsCjm',
  permission: 'bash',
  patterns: ['ls -la'],
  metadata: { command: 'ls -la' },
  always: ['ls *'],
  tool: { messageID: 'msg_1', callID: 'call_1' },
};

const QUESTION = {
  id: 'que_209b5ba62001yHPZN91E33iIq7',
  sessionID: 'ses_df64a5f7bffeNzJTwsSID9zghT',
  questions: [
    {
      question: 'Which colour?',
      header: 'Colour',
      options: [
        { label: 'Red', description: 'warm' },
        { label: 'Blue', description: 'cool' },
      ],
    },
  ],
  tool: { messageID: 'msg_2', callID: 'call_2' },
};

describe('wire: pending permissions, questions, todos (stock opencode)', () => {
  it('a permission request: the tool, its patterns and the always patterns; metadata is not kept', () => {
    const { requests, warnings } = readPermissionList([PERMISSION]);
    assert.deepEqual(warnings, []);
    assert.deepEqual(requests, [
      {
        kind: 'permission',
        requestID: PERMISSION.id,
        sessionID: PERMISSION.sessionID,
        title: 'permission: bash ls -la',
        permission: { tool: 'bash', patterns: ['ls -la'], always: ['ls *'] },
        questions: [],
      },
    ]);
    assert.ok(!JSON.stringify(requests).includes('metadata'));
  });

  it('a permission without patterns is titled by its tool; many patterns are shortened', () => {
    const [a, b] = readPermissionList([
      { ...PERMISSION, patterns: [] },
      { ...PERMISSION, id: 'per_2', patterns: ['a', 'b', 'c', 'd'] },
    ]).requests;
    assert.equal(a.title, 'permission: bash');
    assert.equal(b.title, 'permission: bash a, b, c …');
  });

  it('a question request: the questions, their options, multiple and free text (custom defaults to true)', () => {
    const { requests } = readQuestionList([
      QUESTION,
      { ...QUESTION, id: 'que_2', questions: [{ question: 'Pick', options: [], multiple: true, custom: false }] },
    ]);
    assert.equal(requests[0].title, 'question: Colour');
    assert.deepEqual(requests[0].questions, [
      {
        question: 'Which colour?',
        header: 'Colour',
        options: [
          { label: 'Red', description: 'warm' },
          { label: 'Blue', description: 'cool' },
        ],
        multiple: false,
        custom: true,
      },
    ]);
    assert.equal(requests[1].title, 'question: Pick');
    assert.deepEqual(requests[1].questions[0], {
      question: 'Pick',
      header: null,
      options: [],
      multiple: true,
      custom: false,
    });
  });

  it('unsafe ids are skipped with a warning, never put into a path', () => {
    const p = readPermissionList([{ ...PERMISSION, id: '../../session' }, PERMISSION]);
    assert.equal(p.requests.length, 1);
    assert.match(p.warnings[0], /not a safe path segment/);
    const q = readQuestionList([{ ...QUESTION, sessionID: 'a/b' }]);
    assert.deepEqual(q.requests, []);
    assert.equal(q.warnings.length, 1);
  });

  it('bad shapes are a ShapeError with a readable reason', () => {
    assert.throws(
      () => readPermissionList({}),
      (e: unknown) => e instanceof ShapeError && /permission list is not an array/.test(e.message),
    );
    assert.throws(
      () => readPermissionList([{ ...PERMISSION, permission: 7 }]),
      /permission 0 permission is not a string/,
    );
    assert.throws(() => readPermissionList([{ ...PERMISSION, patterns: [1] }]), /patterns\[0\] is not a string/);
    assert.throws(() => readQuestionList([{ ...QUESTION, questions: 'x' }]), /questions is not an array/);
    assert.throws(
      () => readQuestionList([{ ...QUESTION, questions: [{ question: 'q', options: [{ label: 3 }] }] }]),
      /option 0 label is not a string/,
    );
    assert.throws(() => readTodoList([{ content: 'a' }]), /todo 0 status is not a string/);
    assert.throws(() => readTodoList(null), ShapeError);
  });

  it('todo progress: completed of the non-cancelled items, and the first in progress', () => {
    assert.deepEqual(
      readTodoList([
        { content: 'read', status: 'completed', priority: 'high' },
        { content: 'fix', status: 'in_progress', priority: 'high' },
        { content: 'drop', status: 'cancelled', priority: 'low' },
        { content: 'test', status: 'pending', priority: 'low' },
      ]),
      { done: 1, total: 3, inProgress: 'fix' },
    );
    assert.deepEqual(readTodoList([]), { done: 0, total: 0, inProgress: null });
  });

  it('answers are checked before they are sent', () => {
    assert.equal(answersProblem([['Red']]), null);
    assert.equal(answersProblem([[], ['a', 'b']]), null);
    assert.match(answersProblem([])!, /non-empty array/);
    assert.match(answersProblem(['Red'])!, /answer 0 is not an array/);
    assert.match(answersProblem([[1]])!, /answer 0 holds something other than a label/);
  });
});
