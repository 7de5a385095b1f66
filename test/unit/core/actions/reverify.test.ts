// Re-verify right before every POST: against the spec-dialect server, a message or a state change
// between an action's decision and its POST refuses the POST as stale (nothing sent); another
// actor holding the session's lock past the wait refuses it as busy.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { abortSession } from '../../../../src/core/actions/abort';
import type { ActionContext } from '../../../../src/core/actions/executor-context';
import { actOnce, basisOf, movedSince } from '../../../../src/core/actions/reverify';
import { wakeSession } from '../../../../src/core/actions/wake';
import { BackendClient } from '../../../../src/core/backend/client';
import { FileSessionLocker } from '../../../../src/core/state/session-locker';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const MODEL = { providerID: 'anthropic', modelID: 'sonnet' };

describe('re-verify before every POST (src/core/actions/reverify.ts)', function () {
  let server: SpecServer;
  let client: BackendClient;
  let ctx: ActionContext;
  let stateDir: string;

  beforeEach(async () => {
    server = await startSpecServer();
    client = new BackendClient({ baseUrl: server.url });
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-state-'));
    ctx = { backend: client, directory: DIR, locker: new FileSessionLocker(stateDir) };
    server.setProviders([{ id: 'anthropic', models: ['sonnet'] }], ['anthropic']);
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
    rmSync(stateDir, { recursive: true, force: true });
  });

  /** Runs `change` just before the n-th read of the session's newest message (or of the session list) is answered. */
  function beforeMessageRead(n: number, change: () => void, list = false): void {
    let reads = 0;
    server.onRequest = (r) => {
      const hit = list ? r.path.replace(/\/$/, '').endsWith('/session') : r.path.endsWith('/message');
      if (r.method === 'GET' && hit && ++reads === n) change();
    };
  }
  const posts = () => server.requests.filter((r) => r.method === 'POST');

  it('movedSince names the newest message and its role, and the state', () => {
    const session = { id: 's', title: null, state: 'idle' as const, retry: null, progress: null, updatedAt: null };
    const msg = (id: string, role: string) =>
      ({
        id,
        role,
        finish: null,
        text: '',
        failure: null,
        providerID: null,
        modelID: null,
        createdAt: null,
        completedAt: null,
        parts: 0,
      }) as never;
    const basis = basisOf(session, msg('msg_1', 'assistant'));
    assert.equal(movedSince(basis, { session, newest: msg('msg_1', 'assistant') }), null);
    assert.equal(
      movedSince(basis, { session: { ...session, state: 'generating' }, newest: msg('msg_2', 'user') }),
      'the session moved since the decision: newest message now msg_2, by user (was msg_1); state now generating (was idle)',
    );
  });

  it('wake: a user message stored after the decision refuses the prompt as stale; nothing sent', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { text: 'stopped', info: MODEL });
    let added = '';
    beforeMessageRead(2, () => (added = d.addMessage(id, { role: 'user', text: 'another actor re-tasked it' })));
    const r = await wakeSession(ctx, { sessionId: id, prompt: 'continue', model: MODEL });
    assert.equal(r.outcome, 'refused', r.message);
    assert.equal(r.refusal?.code, 'stale');
    assert.equal(
      r.message,
      `refused, nothing sent: the session moved since the decision: newest message now ${added}, by user (was ${r.refusal ? d.sessions.get(id)!.messages[0].info.id : ''})`,
    );
    assert.deepEqual(posts(), []);
  });

  it('wake: the state changing after the decision refuses as stale', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    beforeMessageRead(2, () => d.setSession(id, { state: 'generating' }), true);
    const r = await wakeSession(ctx, { sessionId: id, prompt: 'continue', model: MODEL });
    assert.equal(r.refusal?.code, 'stale');
    assert.match(r.message, /state now generating \(was idle\)/);
    assert.deepEqual(posts(), []);
  });

  it('wake: a basis from earlier samples (the monitor’s row) that no longer holds refuses as stale', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    const r = await wakeSession(ctx, {
      sessionId: id,
      prompt: 'continue',
      model: MODEL,
      basis: { state: 'generating', newestId: 'msg_gone', newestRole: 'assistant' },
    });
    assert.equal(r.refusal?.code, 'stale');
    assert.match(r.message, /it has no newest message now \(was msg_gone\); state now idle \(was generating\)/);
    assert.deepEqual(posts(), []);
  });

  it('abort: refused as stale when the session moved between the decision and the POST', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating' });
    const r = await abortSession(ctx, id, { basis: { state: 'generating', newestId: null, newestRole: null } });
    assert.equal(r.outcome, 'idle', r.message);
    const other = d.addSession({ state: 'generating' });
    d.addMessage(other, { text: 'working' });
    const s = await abortSession(ctx, other, { basis: { state: 'generating', newestId: null, newestRole: null } });
    assert.equal(s.outcome, 'refused');
    assert.equal(s.refusal?.code, 'stale');
    assert.equal(server.aborts.length, 1);
  });

  it('busy: another actor holds the session past the wait; the POST is never made', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    const holder = new FileSessionLocker(stateDir);
    let release!: () => void;
    const held = holder.withSessionLock(id, { purpose: 'wake' }, () => new Promise<void>((r) => (release = r)));
    await new Promise((r) => setTimeout(r, 20));
    const r = await actOnce(
      { ...ctx, lockWaitMs: 100 },
      id,
      { state: 'idle', newestId: null, newestRole: null },
      'prompt',
      async () => 'posted',
    );
    release();
    await held;
    assert.equal(r.acted, false);
    if (!r.acted) {
      assert.equal(r.refusal.code, 'busy');
      assert.match(r.refusal.reason, /is busy: process \d+ on .* \(wake, for \d+ s\) holds its lock/);
    }
    const again = await actOnce(
      ctx,
      id,
      { state: 'idle', newestId: null, newestRole: null },
      'prompt',
      async () => 'posted',
    );
    assert.deepEqual(again.acted && again.value, 'posted');
  });

  it('concurrent wakes of one idle session in one process: one prompt, the others stale or not idle', async () => {
    server.answerPrompts = { delayMs: 60_000 };
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { text: 'stopped', info: MODEL });
    // The woken session works: its step counter grows while it generates (one generating read is no proof).
    const working = setInterval(() => {
      if (d.sessions.get(id)?.state === 'generating') d.step(id);
    }, 50);
    const runs = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        wakeSession(
          { ...ctx, backend: new BackendClient({ baseUrl: server.url }), locker: new FileSessionLocker(stateDir) },
          { sessionId: id, prompt: `continue ${i}`, model: MODEL, confirm: { withinMs: 2_000, pollMs: 50 } },
        ),
      ),
    );
    clearInterval(working);
    assert.equal(server.prompts.length, 1);
    assert.equal(runs.filter((r) => r.outcome === 'confirmed').length, 1);
    for (const r of runs.filter((x) => x.outcome !== 'confirmed')) {
      assert.equal(r.outcome, 'refused', r.message);
      assert.ok(['stale', 'not-idle'].includes(r.refusal?.code ?? ''), r.message);
    }
  });
});
