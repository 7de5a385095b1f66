// Issue 28 item 3, "no prompt contains a placeholder": recovery composes from the worker's durable
// record (its first user message) like every other composer, an unknown value is said to be
// unknown (never a placeholder constant), and the send guard, below every host, refuses a prompt
// still carrying one (typed code `unfilled-placeholder`, naming what to fill) before anything is sent.
import assert from 'node:assert/strict';
import { ORCHESTRATOR_PLACEHOLDER, resolveAuthority, TICKET_PLACEHOLDER } from '../../../../src/core/actions/authority';
import { composePrompt } from '../../../../src/core/actions/compose';
import type { ActionContext } from '../../../../src/core/actions/executor-context';
import { guardPrompt, PROMPT_PLACEHOLDERS } from '../../../../src/core/actions/guard';
import { promptBuilder } from '../../../../src/core/actions/prompt-builder';
import { recoverSession } from '../../../../src/core/actions/recover';
import { startSpecActions } from '../../../support/spec-actions';
import type { SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const HOUR = 3_600_000;
const LISTING = {
  providers: [{ id: 'openai', name: 'openai', models: ['gpt-5'], quota: null }],
  connected: ['openai'],
  defaults: {},
} as never;

describe('no prompt contains a placeholder (issue 28 item 3)', function () {
  it('the guard refuses a prompt carrying an unfilled placeholder, naming what to fill; nothing is guarded', () => {
    for (const ph of [ORCHESTRATOR_PLACEHOLDER, TICKET_PLACEHOLDER]) {
      assert.ok(PROMPT_PLACEHOLDERS.includes(ph));
      const g = guardPrompt({
        directory: DIR,
        sessionId: 's',
        agent: 'build',
        model: { providerID: 'openai', modelID: 'gpt-5' },
        text: `Report to the orchestrator session ${ph} on ticket=${ph}.`,
        listing: LISTING,
        wallProvider: null,
      });
      assert.equal(g.ok, false);
      if (g.ok) return;
      assert.equal(g.refusal.code, 'unfilled-placeholder');
      assert.ok(g.refusal.reason.includes(ph), g.refusal.reason);
      assert.match(g.refusal.reason, /fill/);
    }
    const ok = guardPrompt({
      directory: DIR,
      sessionId: 's',
      agent: 'build',
      model: { providerID: 'openai', modelID: 'gpt-5' },
      text: 'report line: ticket=PROJ-7 status=<done|blocked|handoff> summary=<one line>',
      listing: LISTING,
      wallProvider: null,
    });
    assert.equal(ok.ok, true);
  });

  it('composed without an orchestrator or a ticket read anywhere: says they are unknown, carries no placeholder', () => {
    const c = composePrompt('wake', {
      now: Date.UTC(2026, 10, 27),
      authority: resolveAuthority({}),
      inventory: { files: [], commits: null, source: null, note: '' } as never,
      task: 'the parser',
    });
    assert.equal(c.ok, true);
    if (!c.ok) return;
    for (const ph of PROMPT_PLACEHOLDERS) assert.ok(!c.text.includes(ph), c.text);
    assert.match(c.text, /unknown/);
  });

  describe('recover without --orchestrator', () => {
    let server: SpecServer;
    let ctx: ActionContext;
    let stop: () => Promise<void>;

    beforeEach(async () => {
      ({ server, ctx, stop } = await startSpecActions({ answerMs: 100 }));
    });
    afterEach(async () => {
      await stop();
    });

    it('the recovery prompt reports to the orchestrator of the worker first user message (no placeholder)', async () => {
      const d = server.directory(DIR);
      const now = Date.now();
      server.setQuota('anthropic', { markedAt: now - 60_000, resetAt: now + 30 * 24 * HOUR });
      const id = d.addSession({ state: 'generating', progress: { stepCount: 4, lastStepAt: now - 90_000 } });
      d.addMessage(id, { role: 'user', text: 'Build the parser. ticket: PROJ-7, orchestrator session ses_orch1' });
      d.addMessage(id, { text: 'working', info: { providerID: 'anthropic', modelID: 'sonnet' } });
      const builder = promptBuilder({
        template: 'wake',
        now: () => Date.now(),
        inventory: [],
        directory: DIR,
        worktree: DIR,
        authority: { env: {} },
      });
      const r = await recoverSession(ctx, {
        sessionId: id,
        prompt: (facts) => builder.build(facts),
        spacingMs: 60,
        minSpacingMs: 0,
        abort: { pollMs: 20 },
        confirm: { withinMs: 2000, pollMs: 20 },
      });
      assert.equal(r.decision, 'recovered', r.message);
      const text = server.prompts[0].payload.parts[0].text;
      assert.ok(!text.includes(ORCHESTRATOR_PLACEHOLDER), text);
      assert.match(text, /to the orchestrator session ses_orch1 through/);
      assert.match(text, /ticket=PROJ-7/);
    });
  });
});
