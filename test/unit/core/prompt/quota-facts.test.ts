// Every fact of the quota-wall prompt comes from a source that was read, and otherwise says it is
// not known and tells the worker to check.
import assert from 'node:assert/strict';
import { composeQuotaWallWakePrompt } from '../../../../src/core/prompt/quota-wake';

const NOW = Date.UTC(2026, 0, 5, 12);
const input = {
  now: NOW,
  wall: { provider: 'anthropic', category: 'usage-limit' as const, resetAt: null, observed: 'failed-turn' as const },
  nextModel: { providerID: 'openai', modelID: 'gpt-5' },
  resume: 'continue',
  report: { ticket: 'T-1' },
};

describe('quota-wall prompt: facts read or said unknown', () => {
  it('nothing read: steps, commits and the pull request are not known, and the worker is told to check', () => {
    const text = composeQuotaWallWakePrompt({
      ...input,
      done: { steps: null, commits: null, pullRequest: null, uncommittedFiles: null },
    });
    assert.doesNotMatch(text, /no step recorded|none since the task started|none yet/);
    assert.match(
      text,
      /Steps:\n {2}- not known: no progress or todo list was read; check your todo list and last messages/,
    );
    assert.match(text, /Commits:\n {2}- not known: the git log of your worktree was not read; run git log/);
    assert.match(text, /Pull request: not known; check whether one exists/);
  });
  it('read: the facts as read, with their source', () => {
    const text = composeQuotaWallWakePrompt({
      ...input,
      done: {
        steps: ['42 model rounds so far (progress.stepCount)'],
        commits: [],
        pullRequest: '#12 open',
        uncommittedFiles: [],
      },
    });
    assert.match(text, /- 42 model rounds so far/);
    assert.match(text, /Commits:\n {2}- none in the git log of your worktree/);
    assert.match(text, /Pull request: #12 open/);
  });
});
