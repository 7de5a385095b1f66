// What a quota wall rests on: a failed turn, a long retry, or only a frozen session on a marked
// provider. The category is null unless a message or a retry named it, and the status document,
// the row tooltip and the quota-wall prompt each state exactly the observation.
import assert from 'node:assert/strict';
import { assessSession } from '../../../../src/core/health/assess';
import { detectQuotaWall } from '../../../../src/core/health/quota-wall';
import { buildStatusDocument } from '../../../../src/core/health/status-document';
import { judgeVerdict } from '../../../../src/core/health/verdict';
import { composeQuotaWallWakePrompt } from '../../../../src/core/prompt/quota-wake';
import { failure, listing, MIN, msg, pair, provider, SEC, T0 } from './fixtures';

const frozenOnAnthropic = () =>
  pair(
    { state: 'generating', progress: { stepCount: 3, lastStepAt: T0 }, newest: msg('m', { providerID: 'anthropic' }) },
    {},
  );
const markedAnthropic = listing([
  provider('anthropic', { quota: { markedAt: T0 - 10 * MIN, resetAt: T0 + 60 * MIN } }),
  provider('openai'),
]);

describe('quota wall: what was observed', () => {
  it('a frozen generating session on a marked provider: observed provider-marked, category null, the mark kept', () => {
    const [a, b] = frozenOnAnthropic();
    const w = detectQuotaWall(b, judgeVerdict(a, b), markedAnthropic);
    assert.ok(w);
    assert.equal(w.category, null, 'nothing named a category');
    assert.equal(w.observed, 'provider-marked');
    assert.equal(w.markedAt, T0 - 10 * MIN);
    assert.equal(w.resetAt, T0 + 60 * MIN);
  });

  it('a failed turn is observed failed-turn, a long retry is observed retry, each with its named category', () => {
    const [a, b] = pair({ state: 'idle', newest: msg('m', { finish: 'error', failure: failure() }) }, {});
    const failed = detectQuotaWall(b, judgeVerdict(a, b), markedAnthropic);
    assert.deepEqual(failed && [failed.observed, failed.category], ['failed-turn', 'usage-limit']);
    const retry = { attempt: 4, message: 'Rate limit reached', next: T0 + 45 * SEC + 30 * MIN };
    const [c, d] = pair({ state: 'generating', retry, newest: msg('m', { providerID: 'local', partCount: 0 }) }, {});
    const retried = detectQuotaWall(d, judgeVerdict(c, d), null);
    assert.deepEqual(retried && [retried.observed, retried.category], ['retry', 'rate-limit']);
  });

  it('status --json: quotaWall.observed, category null on an inferred wall', () => {
    const [a, b] = frozenOnAnthropic();
    const assessment = assessSession([a, b], markedAnthropic, { now: b.at });
    const doc = buildStatusDocument({
      assessments: [assessment],
      listing: markedAnthropic,
      baseUrl: 'http://x/',
      directory: '/w',
      dialect: 'spec',
      sampledAt: [a.at, b.at],
    });
    const q = doc.sessions[0].quotaWall;
    assert.ok(q);
    assert.equal(q.observed, 'provider-marked');
    assert.equal(q.category, null);
  });

  it('the prompt of an inferred wall says the session stopped moving under a cooldown, with mark and reset; never "killed"', () => {
    const text = composeQuotaWallWakePrompt({
      now: T0,
      wall: {
        provider: 'anthropic',
        category: null,
        observed: 'provider-marked',
        markedAt: T0 - 10 * MIN,
        resetAt: T0 + 60 * MIN,
        text: null,
      },
      nextModel: { providerID: 'openai', modelID: 'gpt-5' },
      done: { steps: [], commits: [], pullRequest: null, uncommittedFiles: [] },
      resume: 'continue',
      report: { ticket: 'T-1', label: null, orchestratorSessionId: 'ses_o' },
    });
    assert.match(
      text,
      /^What happened: your session stopped moving while anthropic was under a usage-limit cooldown \(marked 2026-01-05T11:50:00\.000Z, reset 2026-01-05T13:00:00\.000Z, as the provider listing gives them\)\. No message showed a failure\./,
    );
    assert.doesNotMatch(text, /killed|HTTP 429|rate limit/);
  });
});
