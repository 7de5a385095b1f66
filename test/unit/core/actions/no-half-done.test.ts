// Issue 28 item 10, no half-done act: before an abort that a wake must follow, the model, the
// prompt and the send guard are settled; when the wake cannot follow, nothing is aborted and the
// refusal says why. An outcome that sent something (the abort) never says "nothing sent", and is
// never a refusal (exit 3 never follows a POST). Against the stateful spec-dialect server.
import assert from 'node:assert/strict';
import type { ActionContext } from '../../../../src/core/actions/executor-context';
import { recoverSession } from '../../../../src/core/actions/recover';
import { wakeSession } from '../../../../src/core/actions/wake';
import { recoverExit } from '../../../../src/cli/recover';
import { EXIT } from '../../../../src/cli/exit-codes';
import { startSpecActions, TWO_CONNECTED_GROQ_NOT } from '../../../support/spec-actions';
import type { SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const HOUR = 3_600_000;

describe('no half-done act: the wake is settled before the abort (issue 28 item 10)', function () {
  let server: SpecServer;
  let ctx: ActionContext;
  let stop: () => Promise<void>;

  beforeEach(async () => {
    ({ server, ctx, stop } = await startSpecActions({ answerMs: 100, providers: TWO_CONNECTED_GROQ_NOT }));
  });
  afterEach(async () => {
    await stop();
  });

  const posts = () => server.requests.filter((r) => r.method === 'POST');

  it('abort-and-wake with no connected provider free of a mark: refused, nothing aborted', async () => {
    const now = Date.now();
    server.setQuota('anthropic', { markedAt: now, resetAt: now + HOUR });
    server.setQuota('openai', { markedAt: now, resetAt: now + HOUR });
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 3, lastStepAt: 1 } });
    d.addMessage(id, { text: 'working', info: { providerID: 'anthropic', modelID: 'sonnet' } });
    const r = await wakeSession(ctx, { sessionId: id, prompt: 'Continue.', abortFirst: true, abort: { pollMs: 20 } });
    assert.equal(r.outcome, 'refused', r.message);
    assert.equal(r.refusal?.code, 'no-model');
    assert.match(r.message, /^refused, nothing sent: .*no connected provider without a quota mark/);
    assert.deepEqual(posts(), [], 'no abort, no prompt');
    assert.equal(r.aborted, false);
  });

  it('abort-and-wake whose model is refused by the guard (disconnected): refused before the abort', async () => {
    const id = server.directory(DIR).addSession({ state: 'generating' });
    const r = await wakeSession(ctx, {
      sessionId: id,
      prompt: 'Continue.',
      model: { providerID: 'groq', modelID: 'llama' },
      abortFirst: true,
      abort: { pollMs: 20 },
    });
    assert.equal(r.refusal?.code, 'provider-not-connected');
    assert.equal(server.aborts.length, 0);
  });

  it('abort-and-wake whose composed prompt fails: refused before the abort', async () => {
    const id = server.directory(DIR).addSession({ state: 'generating' });
    const r = await wakeSession(ctx, {
      sessionId: id,
      prompt: () => ({ ok: false, template: 'wake', problem: 'the inventory said no' }),
      model: { providerID: 'openai', modelID: 'gpt-5' },
      abortFirst: true,
    });
    assert.equal(r.outcome, 'refused');
    assert.match(r.message, /the inventory said no/);
    assert.equal(server.aborts.length, 0);
  });

  it('when the wake cannot follow after the abort went out: not a refusal, never "nothing sent"', async () => {
    const id = server.directory(DIR).addSession({ state: 'generating' });
    server.onRequest = (q) => {
      if (q.method === 'POST' && q.path.endsWith('/abort'))
        server.setQuota('openai', { markedAt: Date.now(), resetAt: Date.now() + HOUR });
    };
    const r = await wakeSession(ctx, {
      sessionId: id,
      prompt: 'Continue.',
      model: { providerID: 'openai', modelID: 'gpt-5' },
      abortFirst: true,
      abort: { pollMs: 20 },
    });
    assert.equal(server.aborts.length, 1);
    assert.equal(server.prompts.length, 0);
    assert.notEqual(r.outcome, 'refused', 'exit 3 never follows a POST');
    assert.equal(r.aborted, true);
    assert.ok(!/nothing sent/.test(r.message), r.message);
    assert.match(r.message, /aborted .*, but the wake did not follow: .*quota mark.*a person must wake it/);
  });

  it('recover of a generating wall with a --model the guard refuses: refused, nothing aborted', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 4, lastStepAt: Date.now() - 90_000 } });
    d.addMessage(id, { error: { text: 'Rate limited (HTTP 429)', reason: 'rate_limit', provider: 'anthropic' } });
    const r = await recoverSession(ctx, {
      sessionId: id,
      prompt: () => ({ ok: true, template: 'quota-wake', text: 'quota wake' }),
      model: { providerID: 'groq', modelID: 'llama' },
      spacingMs: 60,
      minSpacingMs: 0,
      abort: { pollMs: 20 },
    });
    assert.equal(r.decision, 'refused', r.message);
    assert.equal(r.refusal?.code, 'provider-not-connected');
    assert.equal(server.aborts.length, 0, 'nothing aborted');
    assert.equal(r.aborted, false);
  });

  it('recover whose wake cannot follow after the abort: exit 1 (not 3), never "nothing sent"', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 4, lastStepAt: Date.now() - 90_000 } });
    d.addMessage(id, { error: { text: 'Rate limited (HTTP 429)', reason: 'rate_limit', provider: 'anthropic' } });
    server.onRequest = (q) => {
      if (q.method === 'POST' && q.path.endsWith('/abort'))
        server.setQuota('openai', { markedAt: Date.now(), resetAt: Date.now() + HOUR });
    };
    const r = await recoverSession(ctx, {
      sessionId: id,
      prompt: () => ({ ok: true, template: 'quota-wake', text: 'quota wake' }),
      spacingMs: 60,
      minSpacingMs: 0,
      abort: { pollMs: 20 },
    });
    assert.equal(server.aborts.length, 1);
    assert.equal(server.prompts.length, 0);
    assert.notEqual(r.decision, 'refused');
    assert.equal(recoverExit(r), EXIT.failed);
    assert.ok(!/nothing sent/.test(r.message), r.message);
    assert.match(r.message, /but the wake did not follow/);
  });
});
