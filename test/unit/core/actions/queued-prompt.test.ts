// Issue 28 item 2, no instruction lost: a prompt queued before an abort (the newest message read
// with limit=1, a user message after the last assistant message) is re-sent in the wake verbatim,
// under a line saying so; where its text cannot be read, the wake says so and the row asks a
// person. Against the stateful spec-dialect server, every request recorded.
import assert from 'node:assert/strict';
import { abortSession } from '../../../../src/core/actions/abort';
import type { ActionContext } from '../../../../src/core/actions/executor-context';
import { promptBuilder } from '../../../../src/core/actions/prompt-builder';
import { recoverSession } from '../../../../src/core/actions/recover';
import { wakeSession } from '../../../../src/core/actions/wake';
import { abortOutcome, wakeOutcome } from '../../../../src/core/operations/result-outcome';
import { QUEUED_RESENT_LINE, QUEUED_UNREADABLE_LINE } from '../../../../src/core/prompt/queued';
import { startSpecActions } from '../../../support/spec-actions';
import type { SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const HOUR = 3_600_000;
const QUEUED = 'Also fix the CRLF test in parser.spec.ts\n  and keep "quotes" and `ticks` as written.';
const base = { action: 'abort-and-wake' as const, rowKey: 'k', sessionId: 's', label: 'worker', automatic: false };

describe('a prompt queued before an abort is re-sent in the wake (issue 28 item 2)', function () {
  let server: SpecServer;
  let ctx: ActionContext;
  let stop: () => Promise<void>;

  beforeEach(async () => {
    ({ server, ctx, stop } = await startSpecActions({ answerMs: 100 }));
  });
  afterEach(async () => {
    await stop();
  });

  const sentText = () => server.prompts[0].payload.parts[0].text;

  it('abort-and-wake: the queued text goes into the wake verbatim under the re-sent line; nothing says "dropped"', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 3, lastStepAt: 1 } });
    d.addMessage(id, { text: 'working', info: { providerID: 'anthropic', modelID: 'sonnet' } });
    d.addMessage(id, { role: 'user', text: QUEUED });
    const builder = promptBuilder({
      template: 'wake',
      now: () => Date.now(),
      inventory: [],
      directory: DIR,
      worktree: DIR,
      authority: { ticket: 'PROJ-3', orchestrator: 'ses_orch' },
      aborted: true,
    });
    const r = await wakeSession(ctx, {
      sessionId: id,
      prompt: (facts) => builder.build(facts),
      model: { providerID: 'openai', modelID: 'gpt-5' },
      abortFirst: true,
      abort: { pollMs: 20 },
      confirm: { withinMs: 2000, pollMs: 20 },
    });
    assert.equal(r.outcome, 'confirmed', r.message);
    assert.equal(server.prompts.length, 1);
    const text = sentText();
    assert.ok(text.includes(`${QUEUED_RESENT_LINE}\n----- queued prompt, verbatim -----\n${QUEUED}\n`), text);
    assert.ok(text.startsWith('You were woken at '), 'the wake still opens with why it was woken');
    assert.ok(!/dropped/i.test(text), 'never "dropped"');
    assert.deepEqual(r.queued && r.queued.text, QUEUED);
    assert.match(r.message, /queued before the abort is re-sent/);
    assert.equal(r.prompt, text, 'the prompt kept is the one sent');
  });

  it('a queued message without readable text: the wake says so, and the row asks a person', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating' });
    d.addMessage(id, { role: 'user', parts: [{ type: 'file' }] });
    const r = await wakeSession(ctx, {
      sessionId: id,
      prompt: 'Continue with the next step.',
      model: { providerID: 'openai', modelID: 'gpt-5' },
      abortFirst: true,
      abort: { pollMs: 20 },
      confirm: { withinMs: 2000, pollMs: 20 },
    });
    assert.equal(r.outcome, 'confirmed', r.message);
    assert.ok(sentText().includes(QUEUED_UNREADABLE_LINE), sentText());
    assert.ok(!/dropped/i.test(sentText()));
    const o = wakeOutcome(base, r, 'custom', { via: 'recover' });
    assert.match(o.rowText, /queued prompt could not be read: re-send it/);
    assert.equal(o.notice?.level, 'warning');
  });

  it('recover of a generating wall: the queued prompt is re-sent in the quota-wall wake', async () => {
    const d = server.directory(DIR);
    const now = Date.now();
    server.setQuota('anthropic', { markedAt: now - 60_000, resetAt: now + 30 * 24 * HOUR });
    const id = d.addSession({ state: 'generating', progress: { stepCount: 4, lastStepAt: now - 90_000 } });
    d.addMessage(id, { role: 'user', text: QUEUED, info: { providerID: 'anthropic', modelID: 'sonnet' } });
    const r = await recoverSession(ctx, {
      sessionId: id,
      prompt: (facts) => ({
        ok: true,
        template: 'quota-wake',
        text: `What happened: wall\n\nwoken on ${facts.model.providerID}`,
      }),
      spacingMs: 60,
      minSpacingMs: 0,
      abort: { pollMs: 20 },
      confirm: { withinMs: 2000, pollMs: 20 },
    });
    assert.equal(r.decision, 'recovered', r.message);
    assert.equal(r.aborted, true);
    assert.ok(sentText().includes(`${QUEUED_RESENT_LINE}\n----- queued prompt, verbatim -----\n${QUEUED}\n`));
    assert.ok(sentText().startsWith('What happened: wall\n\n'));
  });

  it('a plain abort (no wake follows) names the queued prompt with its text for a person to re-send', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating' });
    d.addMessage(id, { role: 'user', text: QUEUED });
    const r = await abortSession(ctx, id, { pollMs: 20 });
    assert.equal(r.idle, true, r.message);
    assert.deepEqual(r.queued && r.queued.text, QUEUED);
    assert.ok(r.message.includes(JSON.stringify(QUEUED)), r.message);
    const o = abortOutcome({ ...base, action: 'abort' }, r);
    assert.ok(o.notice?.text.includes(JSON.stringify(QUEUED)), o.notice?.text);
    assert.match(o.notice?.text ?? '', /never ran: re-send it/);
  });
});
