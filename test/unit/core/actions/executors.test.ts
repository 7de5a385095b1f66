// The executors against the stateful spec-dialect server: abort, wake, recover, dispatch, with the
// request log checked (no prompt before a read showed idle, an explicit model on every prompt).
import assert from 'node:assert/strict';
import { abortSession } from '../../../../src/core/actions/abort';
import { resolveAuthority } from '../../../../src/core/actions/authority';
import type { Composed } from '../../../../src/core/actions/compose';
import type { ActionContext } from '../../../../src/core/actions/executor-context';
import { dispatchTask } from '../../../../src/core/actions/dispatch';
import { recoverSession } from '../../../../src/core/actions/recover';
import { wakeSession } from '../../../../src/core/actions/wake';
import { ANTI_RE_HANG_CLAUSE, completionReportBlock } from '../../../../src/core/prompt/clauses';
import { startSpecActions, TWO_CONNECTED_GROQ_NOT } from '../../../support/spec-actions';
import type { SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const HOUR = 3_600_000;

describe('action executors against the stateful spec-dialect server', function () {
  let server: SpecServer;
  let ctx: ActionContext;
  let stop: () => Promise<void>;

  beforeEach(async () => {
    ({ server, ctx, stop } = await startSpecActions({ answerMs: 150, providers: TWO_CONNECTED_GROQ_NOT }));
  });
  afterEach(async () => {
    await stop();
  });

  const promptIndex = () => server.requests.findIndex((r) => r.method === 'POST' && r.path.endsWith('/prompt_async'));
  const abortIndex = () => server.requests.findIndex((r) => r.method === 'POST' && r.path.endsWith('/abort'));

  it('abort: idle only once a read shows it; not idle in time is reported, not thrown', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating' });
    server.abortDelayMs = 300;
    const r = await abortSession(ctx, id, { pollMs: 50 });
    assert.deepEqual([r.idle, r.outcome], [true, 'idle']);
    assert.ok(r.reads >= 2, 'it read generating before idle');
    assert.match(r.message, /prompts queued before the abort may never fire/);
    const stuck = d.addSession({ state: 'generating' });
    server.abortDelayMs = 10_000;
    const s = await abortSession(ctx, stuck, { waitMs: 300, pollMs: 50 });
    assert.deepEqual([s.idle, s.outcome], [false, 'not-idle']);
    const gone = await abortSession(ctx, 'ses_missing', { waitMs: 100 });
    assert.equal(gone.outcome, 'error');
    assert.equal(gone.error?.code, 'not-found');
  });

  it('wake: the last model, sent, confirmed by the answer; the prompt text kept', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { text: 'I will continue later', info: { providerID: 'anthropic', modelID: 'sonnet' } });
    const r = await wakeSession(ctx, { sessionId: id, prompt: 'Wake up\n"quoted"' });
    assert.equal(r.outcome, 'confirmed', r.message);
    assert.deepEqual(r.model, { providerID: 'anthropic', modelID: 'sonnet' });
    const sent = server.prompts[0].payload.parts[0].text;
    assert.ok(sent.startsWith('Wake up\n"quoted"\n\n'), 'the text as written comes first');
    assert.equal(r.prompt, sent, 'the prompt kept is the one sent');
    assert.deepEqual(server.prompts[0].payload.model, { providerID: 'anthropic', modelID: 'sonnet' });
  });

  it('wake: every wake prompt carries the anti-re-hang clause and the report protocol, appended when missing', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'PROJ-7 parser' });
    d.addMessage(id, { text: 'paused', info: { providerID: 'anthropic', modelID: 'sonnet' } });
    const r = await wakeSession(ctx, { sessionId: id, prompt: 'Continue.', authority: { orchestrator: 'ses_orch' } });
    assert.equal(r.outcome, 'confirmed', r.message);
    const sent = server.prompts[0].payload.parts[0].text;
    assert.ok(sent.includes(ANTI_RE_HANG_CLAUSE));
    assert.ok(sent.includes(completionReportBlock({ ticket: 'PROJ-7', orchestratorSessionId: 'ses_orch' })));
    assert.match(r.notice ?? '', /appended the anti-re-hang clause and the completion-report protocol/);
    const again = d.addSession({ state: 'idle' });
    d.addMessage(again, { text: 'paused', info: { providerID: 'anthropic', modelID: 'sonnet' } });
    const r2 = await wakeSession(ctx, { sessionId: again, prompt: sent });
    assert.equal(r2.notice, null, 'kept when present');
    assert.equal(server.prompts[1].payload.parts[0].text, sent);
  });

  it('wake: a fact-baseline document that lost a part is refused, nothing sent', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const r = await wakeSession(ctx, { sessionId: id, prompt: '1. You were woken. Nothing else.', factBaseline: true });
    assert.equal(r.outcome, 'refused');
    assert.match(r.message, /lost part 2/);
    assert.equal(server.prompts.length, 0);
  });

  it('wake: a stored user message alone is not proof (not confirmed)', async () => {
    server.answerPrompts = null;
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const r = await wakeSession(ctx, {
      sessionId: id,
      prompt: 'hello',
      model: { providerID: 'openai', modelID: 'gpt-5' },
      confirm: { withinMs: 300, pollMs: 50 },
    });
    assert.equal(r.outcome, 'not-confirmed');
    assert.match(r.message, /stored in session .* as its newest user message/);
  });

  it('wake: refused when not idle without abort-first; abort-first aborts, reads idle, then sends', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 3, lastStepAt: 1 } });
    const refused = await wakeSession(ctx, {
      sessionId: id,
      prompt: 'x',
      model: { providerID: 'openai', modelID: 'gpt-5' },
    });
    assert.equal(refused.outcome, 'refused');
    assert.equal(refused.refusal?.code, 'not-idle');
    assert.match(refused.refusal!.reason, /--abort-first/);
    assert.equal(server.prompts.length, 0);
    server.abortDelayMs = 200;
    const r = await wakeSession(ctx, {
      sessionId: id,
      prompt: 'x',
      model: { providerID: 'openai', modelID: 'gpt-5' },
      abortFirst: true,
      abort: { pollMs: 50 },
    });
    assert.equal(r.outcome, 'confirmed', r.message);
    assert.equal(r.aborted, true);
    const a = abortIndex();
    const p = promptIndex();
    const idleRead = server.requests.findIndex((q, i) => i > a && q.path === '/session' && q.states?.[id] === 'idle');
    assert.ok(a >= 0 && idleRead > a && p > idleRead, `order abort ${a} < idle read ${idleRead} < prompt ${p}`);
  });

  it('wake: refusals of the guard (marked, disconnected, the wall provider, no model) send nothing', async () => {
    const d = server.directory(DIR);
    const now = Date.now();
    server.setQuota('anthropic', { markedAt: now, resetAt: now + HOUR });
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { error: { text: 'Rate limited', reason: 'rate_limit', provider: 'openai' } });
    const marked = await wakeSession(ctx, {
      sessionId: id,
      prompt: 'x',
      model: { providerID: 'anthropic', modelID: 'sonnet' },
    });
    const off = await wakeSession(ctx, { sessionId: id, prompt: 'x', model: { providerID: 'groq', modelID: 'llama' } });
    const wall = await wakeSession(ctx, {
      sessionId: id,
      prompt: 'x',
      model: { providerID: 'openai', modelID: 'gpt-5' },
    });
    const none = await wakeSession(ctx, { sessionId: id, prompt: 'x' });
    assert.deepEqual(
      [marked.refusal?.code, off.refusal?.code, wall.refusal?.code, none.refusal?.code],
      ['provider-marked', 'provider-not-connected', 'provider-is-wall', 'no-model'],
    );
    assert.match(none.refusal!.reason, /--model/);
    assert.equal(server.prompts.length, 0);
    assert.equal(promptIndex(), -1);
  });

  it('wake with a composed prompt: the builder sees the chosen model', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle', title: 'PROJ-1 parser' });
    const seen: string[] = [];
    const r = await wakeSession(ctx, {
      sessionId: id,
      prompt: (facts): Composed => {
        seen.push(`${facts.model.providerID}/${facts.model.modelID} ${facts.session.title}`);
        return { ok: true, template: 'wake', text: 'composed' };
      },
    });
    assert.equal(r.outcome, 'confirmed');
    assert.deepEqual(seen, ['anthropic/sonnet PROJ-1 parser']);
  });

  const quotaPrompt = (facts: { model: { providerID: string } }): Composed => ({
    ok: true,
    template: 'quota-wake',
    text: `quota wake on ${facts.model.providerID}`,
  });
  const fast = { spacingMs: 60, minSpacingMs: 0, confirm: { withinMs: 3000, pollMs: 50 }, abort: { pollMs: 50 } };

  it('recover: idle wall, recovered on a free provider without abort, confirmed by an assistant message', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    const r = await recoverSession(ctx, { sessionId: id, prompt: quotaPrompt, ...fast });
    assert.equal(r.decision, 'recovered', r.message);
    assert.equal(r.confirmed, true);
    assert.deepEqual(r.model, { providerID: 'openai', modelID: 'gpt-5' });
    assert.equal(r.aborted, false);
    assert.equal(server.aborts.length, 0);
    assert.equal(server.prompts[0].payload.parts[0].text, 'quota wake on openai');
    assert.ok(server.requests.filter((q) => q.path === '/session').length >= 2, 'two samples');
  });

  it('recover: generating and frozen at a wall: abort, read idle, then the prompt', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 4, lastStepAt: Date.now() - 90_000 } });
    d.addMessage(id, { error: { text: 'Rate limited (HTTP 429)', reason: 'rate_limit', provider: 'anthropic' } });
    const r = await recoverSession(ctx, { sessionId: id, prompt: quotaPrompt, ...fast });
    assert.equal(r.decision, 'recovered', r.message);
    assert.equal(r.aborted, true);
    const a = abortIndex();
    const idleRead = server.requests.findIndex((q, i) => i > a && q.path === '/session' && q.states?.[id] === 'idle');
    assert.ok(a >= 0 && idleRead > a && promptIndex() > idleRead);
  });

  it('recover: wait-for-reset, escalated (balance, unknown reset) and refused (no wall) send nothing', async () => {
    const d = server.directory(DIR);
    const now = Date.now();
    server.setQuota('openai', { markedAt: now - 1000, resetAt: now + HOUR });
    const wait = d.addSession({ state: 'idle' });
    d.addMessage(wait, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    const w = await recoverSession(ctx, { sessionId: wait, prompt: quotaPrompt, ...fast });
    assert.equal(w.decision, 'wait-for-reset', w.message);
    assert.equal(w.waitUntil, now + HOUR);
    assert.deepEqual(
      w.marks.map((m) => m.provider),
      ['openai'],
      "only marks a source shows: the listing marks openai; anthropic's wall is in its message, not a mark",
    );

    const balance = d.addSession({ state: 'idle' });
    d.addMessage(balance, {
      error: {
        text: 'generation failed with HTTP 402 insufficient_quota',
        reason: 'insufficient_quota',
        provider: 'anthropic',
      },
    });
    const b = await recoverSession(ctx, { sessionId: balance, prompt: quotaPrompt, ...fast });
    assert.equal(b.decision, 'escalated', b.message);
    assert.ok(b.marks.some((m) => m.provider === 'openai' && m.resetAt === now + HOUR));

    server.setQuota('openai', { markedAt: now - 1000 });
    const unknown = await recoverSession(ctx, { sessionId: wait, prompt: quotaPrompt, ...fast });
    assert.equal(unknown.decision, 'escalated');

    const plain = d.addSession({ state: 'idle' });
    d.addMessage(plain, { text: 'thinking' });
    const p = await recoverSession(ctx, { sessionId: plain, prompt: quotaPrompt, ...fast });
    assert.equal(p.decision, 'refused');
    assert.match(p.message, /not at a quota wall.*use wake/);
    assert.equal(server.prompts.length, 0);
    assert.equal(server.aborts.length, 0);
  });

  it("issue 28: recover waits for the failed provider's own reset when it is the earliest, then recovers there", async () => {
    const d = server.directory(DIR);
    server.setProviders([{ id: 'anthropic', models: ['sonnet'] }], ['anthropic']);
    const now = Date.now();
    server.setQuota('anthropic', { markedAt: now - 1000, resetAt: now + 10 * 60_000 });
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    const w = await recoverSession(ctx, { sessionId: id, prompt: quotaPrompt, ...fast });
    assert.equal(w.decision, 'wait-for-reset', w.message);
    assert.equal(w.waitUntil, now + 10 * 60_000);
    // The reset passes: the backend drops the quota object. The wall gave no reset of its own;
    // the client saw the object gone, so anthropic is acceptable again.
    server.setQuota('anthropic', null);
    const r = await recoverSession(ctx, { sessionId: id, prompt: quotaPrompt, ...fast });
    assert.equal(r.decision, 'recovered', r.message);
    assert.deepEqual(server.prompts[0].payload.model, { providerID: 'anthropic', modelID: 'sonnet' });
  });

  it('issue 28: a reset already passed with the quota object still listed escalates; never a wait for a past time', async () => {
    const d = server.directory(DIR);
    const now = Date.now();
    server.setQuota('openai', { markedAt: now - HOUR, resetAt: now - 60_000 });
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, {
      error: {
        text: 'Weekly usage limit reached',
        reason: 'account_usage_limit',
        provider: 'anthropic',
        resetAt: now - 120_000,
      },
    });
    server.setQuota('anthropic', { markedAt: now - HOUR, resetAt: now - 120_000 });
    const r = await recoverSession(ctx, { sessionId: id, prompt: quotaPrompt, ...fast });
    assert.equal(r.decision, 'escalated', r.message);
    assert.equal(r.waitUntil, null);
    assert.equal(server.prompts.length, 0);
  });

  it('issue 28: a 402 written as the spec error text (no reason) escalates in recover and wake; nothing sent, no abort', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { error: { text: 'generation failed with HTTP 402 insufficient_quota', provider: 'anthropic' } });
    const r = await recoverSession(ctx, { sessionId: id, prompt: quotaPrompt, ...fast });
    assert.equal(r.decision, 'escalated', r.message);
    assert.match(r.message, /balance failure on anthropic/);
    const w = await wakeSession(ctx, { sessionId: id, prompt: 'Continue.' });
    assert.equal(w.outcome, 'escalated', w.message);
    assert.equal(w.escalation?.reason, 'balance');
    assert.match(w.message, /top up.*nothing sent/);
    const busy = d.addSession({ state: 'generating' });
    d.addMessage(busy, { error: { text: 'HTTP 402 Payment Required', provider: 'anthropic' } });
    const a = await wakeSession(ctx, { sessionId: busy, prompt: 'Continue.', abortFirst: true, abort: { pollMs: 50 } });
    assert.equal(a.outcome, 'escalated', a.message);
    assert.equal(a.aborted, false);
    assert.equal(server.prompts.length, 0);
    assert.equal(server.aborts.length, 0);
  });

  it('dispatch: the task plus the report block; a marked intended provider is refused naming the one to use instead', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    const authority = resolveAuthority({ ticket: 'PROJ-5', orchestrator: 'ses_orch1' });
    const ok = await dispatchTask(ctx, {
      sessionId: id,
      task: 'Implement PROJ-5',
      model: { providerID: 'openai', modelID: 'gpt-5' },
      authority,
    });
    assert.deepEqual([ok.outcome, ok.sent, ok.instead], ['sent', true, null]);
    assert.match(
      server.prompts[0].payload.parts[0].text,
      /^Implement PROJ-5\n\nCompletion report protocol:[\s\S]*reason=quota-exhausted/,
    );
    const now = Date.now();
    server.setQuota('openai', { markedAt: now, resetAt: now + HOUR });
    const marked = await dispatchTask(ctx, {
      sessionId: id,
      task: 'again',
      model: { providerID: 'openai', modelID: 'gpt-5' },
      authority,
    });
    assert.deepEqual([marked.outcome, marked.sent, marked.instead], ['refused', false, 'anthropic']);
    assert.match(marked.message, /dispatch on anthropic instead/);
    server.setProviders([{ id: 'openai', models: ['gpt-5'] }], ['openai']);
    const alone = await dispatchTask(ctx, {
      sessionId: id,
      task: 'again',
      model: { providerID: 'openai', modelID: 'gpt-5' },
      authority,
    });
    assert.equal(alone.outcome, 'refused');
    assert.match(alone.message, /no other connected provider without a quota mark exists as a fallback/);
    assert.equal(server.prompts.length, 1);
  });

  it('dispatch with fallback: a marked intended provider is replaced by the named alternative, checked in turn', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    const authority = resolveAuthority({ ticket: 'PROJ-6', orchestrator: 'ses_orch1' });
    const now = Date.now();
    server.setProviders(
      [
        { id: 'anthropic', models: ['sonnet'], quota: { markedAt: now, resetAt: now + HOUR } },
        { id: 'openai', models: ['gpt-5'] },
        { id: 'groq', models: ['llama'] },
      ],
      ['anthropic', 'openai', 'groq'],
    );
    const r = await dispatchTask(ctx, {
      sessionId: id,
      task: 'Implement PROJ-6',
      model: { providerID: 'anthropic', modelID: 'sonnet' },
      authority,
      fallback: true,
    });
    assert.deepEqual([r.outcome, r.sent, r.instead], ['sent', true, 'openai'], r.message);
    assert.deepEqual(r.model, { providerID: 'openai', modelID: 'gpt-5' });
    assert.deepEqual(server.prompts[0].payload.model, { providerID: 'openai', modelID: 'gpt-5' });
    assert.match(r.message, /on openai\/gpt-5 instead of anthropic/);
    // Without fallback: refused, the alternative named with a model on it.
    const refused = await dispatchTask(ctx, {
      sessionId: id,
      task: 'again',
      model: { providerID: 'anthropic', modelID: 'sonnet' },
      authority,
    });
    assert.deepEqual([refused.outcome, refused.instead], ['refused', 'openai']);
    assert.deepEqual(refused.insteadModel, { providerID: 'openai', modelID: 'gpt-5' });
    assert.equal(server.prompts.length, 1);
  });
});
