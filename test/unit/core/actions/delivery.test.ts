// Issue 28 item 8, delivery told truthfully: a POST whose answer never came is "unknown" (never
// "not delivered"); the next read of the newest message settles it; a retry never sends a prompt
// the backend already has (the newest user message's text is compared with what is sent). The
// transport is the stateful spec-dialect server (every request recorded), with faults on the POST.
import assert from 'node:assert/strict';
import { abortSession } from '../../../../src/core/actions/abort';
import type { ActionBackend, ActionContext } from '../../../../src/core/actions/executor-context';
import { dispatchTask } from '../../../../src/core/actions/dispatch';
import { resolveAuthority } from '../../../../src/core/actions/authority';
import { promptBuilder } from '../../../../src/core/actions/prompt-builder';
import { wakeSession } from '../../../../src/core/actions/wake';
import { BackendClient } from '../../../../src/core/backend/client';
import { BackendError } from '../../../../src/core/backend/errors';
import { wakeOutcome } from '../../../../src/core/operations/result-outcome';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const GPT = { providerID: 'openai', modelID: 'gpt-5' };
const base = { action: 'wake' as const, rowKey: 'k', sessionId: 's', label: 'worker', automatic: false };

describe('delivery told truthfully: sent true | false | "unknown" (issue 28 item 8)', function () {
  let server: SpecServer;
  let client: BackendClient;
  let ctx: ActionContext;

  beforeEach(async () => {
    server = await startSpecServer();
    client = new BackendClient({ baseUrl: server.url });
    ctx = { backend: client, directory: DIR, timeoutMs: 250 };
    server.setProviders(
      [
        { id: 'anthropic', models: ['sonnet'] },
        { id: 'openai', models: ['gpt-5'] },
      ],
      ['anthropic', 'openai'],
    );
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
  });

  const promptPosts = () => server.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/prompt_async'));
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('an answer that never came (the backend stored it later): "unknown", not "not delivered"; the retry does not send it twice', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    server.fault({ method: 'POST', path: /prompt_async$/, delayMs: 600 });
    const first = await wakeSession(ctx, { sessionId: id, prompt: 'Continue.', model: GPT });
    assert.equal(first.sent, 'unknown', first.message);
    assert.equal(first.outcome, 'error');
    assert.ok(!/not delivered|nothing sent/.test(first.message), first.message);
    assert.match(first.message, /answer never came.*unknown/);
    const o = wakeOutcome(base, first, 'custom', {
      via: 'send',
      text: first.prompt!,
      model: GPT,
      abortFirst: false,
      promptOrigin: 'custom',
    });
    assert.equal(o.sent, 'unknown');
    assert.ok(!/not sent/.test(o.rowText), o.rowText);

    await pause(700); // the backend stores it now
    assert.equal(server.prompts.length, 1, 'the backend has it');
    const retry = await wakeSession(ctx, {
      sessionId: id,
      prompt: first.prompt!,
      model: GPT,
      confirm: { withinMs: 200, pollMs: 20 },
    });
    assert.equal(server.prompts.length, 1, 'the retry did not send it again');
    assert.equal(promptPosts().length, 1, 'no second POST at all');
    assert.equal(retry.sent, true);
    assert.match(retry.message, /already had this prompt/);
  });

  it('a retrying caller that composes the prompt again (a later "woken at" time) does not send it twice', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'PROJ-2 parser' });
    d.addMessage(id, { text: 'paused', info: { providerID: 'openai', modelID: 'gpt-5' } });
    let now = Date.parse('2026-11-27T10:00:00.000Z');
    const builder = promptBuilder({
      template: 'wake',
      now: () => (now += 61_000),
      inventory: [],
      directory: DIR,
      worktree: DIR,
      authority: { ticket: 'PROJ-2', orchestrator: 'ses_orch' },
    });
    server.fault({ method: 'POST', path: /prompt_async$/, delayMs: 600 });
    const first = await wakeSession(ctx, { sessionId: id, prompt: (f) => builder.build(f), model: GPT });
    assert.equal(first.sent, 'unknown', first.message);
    await pause(700);
    const again = await wakeSession(ctx, {
      sessionId: id,
      prompt: (f) => builder.build(f),
      model: GPT,
      confirm: { withinMs: 100, pollMs: 20 },
    });
    assert.notEqual(again.prompt, first.prompt, 'composed again, at a later time');
    assert.equal(promptPosts().length, 1, 'no second POST');
    assert.equal(again.sent, true);
    assert.match(again.message, /already had this prompt/);
  });

  it('a connection reset after the request was written: "unknown"; the retry reads first and, not finding it, sends once', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    server.fault({ method: 'POST', path: /prompt_async$/, destroy: true });
    const first = await wakeSession(ctx, { sessionId: id, prompt: 'Continue.', model: GPT });
    assert.equal(first.sent, 'unknown', first.message);
    assert.equal(server.prompts.length, 0);
    const retry = await wakeSession(ctx, {
      sessionId: id,
      prompt: first.prompt!,
      model: GPT,
      confirm: { withinMs: 200, pollMs: 20 },
    });
    assert.equal(retry.sent, true);
    assert.equal(server.prompts.length, 1, 'sent exactly once');
  });

  it('the answer was lost but the next read shows the prompt stored: sent true, settled by the read', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const lossy: ActionBackend = {
      listSessions: (d, o) => client.listSessions(d, o),
      newestMessage: (d, s, o) => client.newestMessage(d, s, o),
      abort: (d, s, o) => client.abort(d, s, o),
      listProviders: (d, o) => client.listProviders(d, o),
      sampleRound: (...a: Parameters<BackendClient['sampleRound']>) => client.sampleRound(...a),
      vcsStatus: (...a: Parameters<BackendClient['vcsStatus']>) => client.vcsStatus(...a),
      promptAsync: async (p, o) => {
        await client.promptAsync(p, o);
        throw new BackendError({ code: 'timeout', operation: 'POST /session/x/prompt_async', baseUrl: server.url });
      },
    };
    const r = await wakeSession(
      { ...ctx, backend: lossy },
      { sessionId: id, prompt: 'Continue.', model: GPT, confirm: { withinMs: 200, pollMs: 20 } },
    );
    assert.equal(r.sent, true, r.message);
    assert.match(r.message, /a read showed it stored/);
    assert.equal(server.prompts.length, 1);
  });

  it('an answered failure is false, a refusal is false, a 204 is true', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    server.fault({ method: 'POST', path: /prompt_async$/, status: 500, body: '{}' });
    const failed = await wakeSession(ctx, { sessionId: id, prompt: 'Continue.', model: GPT });
    assert.equal(failed.sent, false);
    assert.match(failed.message, /not delivered/);
    const refused = await wakeSession(ctx, {
      sessionId: id,
      prompt: 'Continue.',
      model: { providerID: 'groq', modelID: 'x' },
    });
    assert.equal(refused.sent, false);
    const ok = await wakeSession(ctx, { sessionId: id, prompt: 'Go on.', model: GPT, confirm: { withinMs: 100 } });
    assert.equal(ok.sent, true);
  });

  it('dispatch and abort say "unknown" when their answer never came', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    server.fault({ method: 'POST', path: /prompt_async$/, delayMs: 600 });
    const authority = resolveAuthority({ ticket: 'PROJ-1', orchestrator: 'ses_orch' });
    const dispatched = await dispatchTask(ctx, { sessionId: id, task: 'Implement it.', model: GPT, authority });
    assert.equal(dispatched.sent, 'unknown', dispatched.message);
    assert.ok(!/not delivered/.test(dispatched.message));
    const busy = d.addSession({ state: 'generating' });
    server.fault({ method: 'POST', path: /abort$/, destroy: true });
    const aborted = await abortSession(ctx, busy, { waitMs: 100 });
    assert.equal(aborted.sent, 'unknown', aborted.message);
    assert.match(aborted.message, /answer never came/);
  });
});
