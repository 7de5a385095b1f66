// Stock opencode, first class, against the real server (opencode-ai 1.18, loopback, hermetic)
// driven by the scripted model: a session blocked on a pending permission (`"permission":
// {"bash": "ask"}` and a model that calls bash) or on a pending question (the question tool)
// reads `waiting` / `answer` after two samples, never hung; wake --abort-first and recover refuse
// to abort it; answering through the client lets it go on. Also: todo progress (a todowrite call,
// the GET and the todo.updated event), a sub-agent session under its parent (a task call), and the
// dialect of a directory with no sessions yet.
import assert from 'node:assert/strict';
import { clockReading } from '../support/manual-clock';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackendClient } from '../../src/core/backend/client';
import {
  readEventStream,
  readGlobalEventStream,
  type BackendEvent,
  type GlobalBackendEvent,
} from '../../src/core/backend/events';
import { parseBackendConfigs } from '../../src/core/config/backends';
import { SessionMonitor, type Transition } from '../../src/core/monitor/sessionMonitor';
import { recoverSession } from '../../src/core/actions/recover';
import { wakeSession } from '../../src/core/actions/wake';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { cli } from './actions-cli';
import { assertDocumentShape, status, statusArgs, waitFor } from './helpers';

const LOCAL = { providerID: 'local', modelID: 'm1' };

describe('stock opencode: sessions waiting for a person, todos, sub-agents (real server)', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let client: BackendClient;
  const dirs: string[] = [];

  before(async function () {
    model = await startScriptedModel();
    oc = await startOpencode({ modelUrl: model.url, configure: (c) => ({ ...c, permission: { bash: 'ask' } }) });
    client = new BackendClient({ baseUrl: oc.baseUrl });
    model.when('[perm]', {
      kind: 'tool-calls',
      calls: [{ tool: 'bash', args: { command: 'ls -la', description: 'list the files' } }],
      then: 'listed the files',
    });
    model.when('[ask]', {
      kind: 'tool-calls',
      calls: [
        {
          tool: 'question',
          args: {
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
          },
        },
      ],
      then: 'thanks for the answer',
    });
    model.when('[plan]', {
      kind: 'tool-calls',
      calls: [
        {
          tool: 'todowrite',
          args: {
            todos: [
              { content: 'read the code', status: 'completed', priority: 'high' },
              { content: 'write the fix', status: 'in_progress', priority: 'high' },
              { content: 'run the tests', status: 'pending', priority: 'medium' },
            ],
          },
        },
      ],
      then: 'planned',
    });
    model.when('[delegate]', {
      kind: 'tool-calls',
      calls: [
        {
          tool: 'task',
          args: { description: 'look around', prompt: 'list the files [child]', subagent_type: 'general' },
        },
      ],
      then: 'delegated',
    });
    model.when('[child]', { kind: 'reply', text: 'the child is done' });
  });
  after(async function () {
    await client?.close();
    await oc?.stop();
    await model?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const newDir = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'session-ops-wait-'));
    dirs.push(d);
    return d;
  };

  const launch = (dir: string, text: string): Promise<string> => launchSession(oc, dir, undefined, text);

  const newestText = async (dir: string, id: string) => (await client.newestMessage(dir, id))?.text ?? '';

  /** wake --abort-first and recover must both refuse; the request must still be pending after. */
  async function assertNeverAborted(dir: string, id: string, requestID: string): Promise<void> {
    const ctx = { backend: client, directory: dir };
    const woken = await wakeSession(ctx, { sessionId: id, prompt: 'continue', model: LOCAL, abortFirst: true });
    assert.equal(woken.outcome, 'refused', woken.message);
    assert.equal(woken.refusal?.code, 'waiting-for-person');
    assert.equal(woken.aborted, false);
    assert.match(woken.message, /waits for a person/);
    const recovered = await recoverSession(ctx, {
      sessionId: id,
      prompt: () => {
        throw new Error('a recovery prompt must not be built for a waiting session');
      },
      spacingMs: 1_000,
      minSpacingMs: 0,
    });
    assert.equal(recovered.decision, 'refused', recovered.message);
    assert.equal(recovered.refusal?.code, 'waiting-for-person');
    assert.equal(recovered.aborted, false);
    // The same through the command line: exit 3 (refused by a safety rule), nothing aborted.
    const B = ['--base-url', oc.baseUrl, '--directory', dir];
    const wakeCli = await cli('wake', [
      id,
      ...B,
      '--prompt-file',
      '/dev/null',
      '--abort-first',
      '--model',
      'local/m1',
      '--json',
    ]);
    assert.equal(wakeCli.code, 3, wakeCli.stderr);
    assert.match(wakeCli.stderr, /waits for a person/);
    const recoverCli = await cli('recover', [id, ...B, '--spacing', '1', '--allow-short-spacing', '--json']);
    assert.equal(recoverCli.code, 3, recoverCli.stderr);
    assert.match(recoverCli.stdout + recoverCli.stderr, /waits for a person/);
    const pending = await client.pendingRequests(dir);
    assert.ok(
      [...pending.permissions, ...pending.questions].some((r) => r.requestID === requestID),
      'the request is still pending after wake and recover',
    );
    const list = await client.listSessions(dir);
    assert.equal(list.sessions.find((s) => s.id === id)?.state, 'generating', 'still busy (not aborted)');
  }

  it('a pending permission: waiting / answer in status --json (never hung), never aborted, Allow Once lets it go on', async () => {
    const dir = newDir();
    const id = await launch(dir, 'list the files [perm]');
    const request = await waitFor('the permission request', async () =>
      (await client.listPermissions(dir)).requests.find((r) => r.sessionID === id),
    );
    assert.equal(request.kind, 'permission');
    assert.deepEqual(request.permission, { tool: 'bash', patterns: ['ls -la'], always: ['ls *'] });
    assert.match(request.requestID, /^per/);

    const run = await status(statusArgs(oc.baseUrl, dir));
    assert.equal(run.code, 0, run.stderr);
    assertDocumentShape(run.doc!);
    const s = run.session(id);
    assert.ok(s.samples >= 2, 'two samples at least');
    assert.deepEqual([s.verdict, s.action, s.settled], ['waiting', 'answer', true], s.basis);
    assert.deepEqual(s.waiting, { kind: 'permission', title: 'permission: bash ls -la', requestID: request.requestID });
    const table = await status(statusArgs(oc.baseUrl, dir).filter((a) => a !== '--json'));
    assert.match(table.stdout, /WAITING FOR/);
    assert.match(table.stdout, /waiting\s+answer\s+permission: bash ls -la/);

    await assertNeverAborted(dir, id, request.requestID);

    await client.replyPermission(dir, request.requestID, 'once');
    await waitFor(
      'the next assistant message after Allow Once',
      async () => (await newestText(dir, id)).includes('listed the files'),
      30_000,
      200,
    );
    assert.equal((await client.listPermissions(dir)).requests.length, 0);
  });

  it('a pending question: waiting / answer (never hung), never aborted, the answer lets it go on', async () => {
    const dir = newDir();
    const id = await launch(dir, 'ask me [ask]');
    const request = await waitFor('the question', async () =>
      (await client.listQuestions(dir)).requests.find((r) => r.sessionID === id),
    );
    assert.equal(request.kind, 'question');
    assert.equal(request.title, 'question: Colour');
    assert.deepEqual(request.questions, [
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

    const run = await status(statusArgs(oc.baseUrl, dir));
    assert.equal(run.code, 0, run.stderr);
    assertDocumentShape(run.doc!);
    const s = run.session(id);
    assert.ok(s.samples >= 2);
    assert.deepEqual([s.verdict, s.action], ['waiting', 'answer'], s.basis);
    assert.deepEqual(s.waiting, { kind: 'question', title: 'question: Colour', requestID: request.requestID });

    await assertNeverAborted(dir, id, request.requestID);

    await assert.rejects(client.replyQuestion(dir, request.requestID, []), /answers must be a non-empty array/);
    await assert.rejects(client.replyQuestion(dir, '../session', [['Red']]), /request id is not a safe path segment/);
    await client.replyQuestion(dir, request.requestID, [['Red']]);
    await waitFor(
      'the next assistant message after the answer',
      async () => (await newestText(dir, id)).includes('thanks for the answer'),
      30_000,
      200,
    );
    assert.equal((await client.listQuestions(dir)).requests.length, 0);
  });

  it('a rejected question lets the session go on too', async () => {
    const dir = newDir();
    const id = await launch(dir, 'ask again [ask]');
    const request = await waitFor('the question', async () =>
      (await client.listQuestions(dir)).requests.find((r) => r.sessionID === id),
    );
    await client.rejectQuestion(dir, request.requestID);
    await waitFor('the question to go', async () => (await client.listQuestions(dir)).requests.length === 0);
    await waitFor(
      'the session to turn idle',
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id === id)?.state === 'idle',
      30_000,
      200,
    );
  });

  it('todo progress: GET /session/{id}/todo and the todo.updated event give 1/3', async () => {
    const dir = newDir();
    const events: BackendEvent[] = [];
    const stop = new AbortController();
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    const reader = readEventStream(client.transport, {
      directory: dir,
      signal: stop.signal,
      onEvent: (e) => events.push(e),
      onState: (st) => st === 'open' && open(),
    });
    await opened;
    try {
      const id = await launch(dir, 'make a plan [plan]');
      const todos = await waitFor('the todo list', async () => {
        const t = await client.todos(dir, id);
        return t && t.total > 0 ? t : null;
      });
      assert.deepEqual(todos, { done: 1, total: 3, inProgress: 'write the fix' });
      const event = await waitFor('a todo.updated event', () =>
        events.find((e) => e.type === 'todo.updated' && e.sessionID === id),
      );
      assert.deepEqual(event.todos, { done: 1, total: 3, inProgress: 'write the fix' });
    } finally {
      stop.abort();
      await reader;
    }
  });

  it('a sub-agent session carries its parent (parentId) and is listed among the children', async () => {
    const dir = newDir();
    const id = await launch(dir, 'delegate it [delegate]');
    const child = await waitFor(
      'the sub-agent session',
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id !== id && s.parentId === id),
      30_000,
      200,
    );
    assert.equal(child.parentId, id);
    assert.deepEqual(await client.children(dir, id), [child.id]);
    const parent = (await client.listSessions(dir)).sessions.find((s) => s.id === id);
    assert.equal(parent?.parentId, null);
  });

  it('the monitor: one GET /global/event stream, a directory with no sessions yet gets its events; the waiting row with its request, todos and the sub-agent under its parent; notified once', async () => {
    const dir = newDir();
    const { backends } = parseBackendConfigs([{ baseUrl: oc.baseUrl, directories: [dir] }], []);
    let clock = Date.now();
    const monitor = new SessionMonitor({
      createClient: (config) => new BackendClient({ baseUrl: config.baseUrl, clock: clockReading(() => clock) }),
      getCredentials: async () => undefined,
      spacingMs: 600_000,
      minSpacingMs: 0,
      resetWithinReachMs: 2 * 3600_000,
      useEventStream: true,
      nudgeDelayMs: 50,
      clock: clockReading(() => clock),
    });
    const transitions: Transition[] = [];
    monitor.onTransition((t) => transitions.push(t));
    try {
      monitor.setBackends(backends);
      monitor.setActive(true);
      await monitor.refresh();
      assert.equal(monitor.backends()[0].dialect, 'opencode', 'learned from GET /session/status with no session yet');
      await waitFor('the global event stream to open', () => monitor.backends()[0].eventStream === 'open');
      // Nothing samples on a timer now (10 min spacing): only event nudges bring these rows in.
      const id = await launch(dir, 'ask me first [ask]');
      const planner = await launch(dir, 'make a plan [plan]');
      const parent = await launch(dir, 'delegate it [delegate]');
      await waitFor(
        'rows for the new sessions (from event nudges alone)',
        () => monitor.rows().some((r) => r.id === id) && monitor.rows().some((r) => r.parentId === parent),
      );
      await waitFor('the question to be pending', async () =>
        (await client.listQuestions(dir)).requests.some((r) => r.sessionID === id),
      );
      clock += 45_000;
      await monitor.refresh();
      clock += 45_000;
      await monitor.refresh();
      const row = monitor.rows().find((r) => r.id === id)!;
      assert.deepEqual([row.badge, row.verdict, row.action], ['waiting', 'waiting', 'answer'], row.pending ?? '');
      assert.equal(row.waiting?.kind, 'question');
      assert.equal(row.waiting?.title, 'question: Colour');
      assert.deepEqual(
        row.waiting?.detail.kind === 'question' && row.waiting.detail.questions[0].options.map((o) => o.label),
        ['Red', 'Blue'],
      );
      assert.equal(transitions.filter((t) => t.kind === 'waiting' && t.row.id === id).length, 1, 'notified once');
      await waitFor(
        'todo progress on the planner row',
        () => monitor.rows().find((r) => r.id === planner)?.todos?.total === 3,
      );
      assert.deepEqual(monitor.rows().find((r) => r.id === planner)?.todos, {
        done: 1,
        total: 3,
        inProgress: 'write the fix',
      });
      const ids = monitor.rows().map((r) => r.id);
      const child = monitor.rows().find((r) => r.parentId === parent)!;
      assert.equal(ids.indexOf(child.id), ids.indexOf(parent) + 1, 'the sub-agent row follows its parent');
      const request = (await client.listQuestions(dir)).requests.find((r) => r.sessionID === id)!;
      await client.replyQuestion(dir, request.requestID, [['Blue']]);
      await waitFor(
        'the answered session to leave waiting (question.replied nudges a sample)',
        () => monitor.rows().find((r) => r.id === id)?.badge !== 'waiting',
        10_000,
      );
    } finally {
      monitor.dispose();
    }
  });

  it('GET /global/event carries events of every directory, each naming its directory', async () => {
    const dir = newDir();
    const seen: GlobalBackendEvent[] = [];
    const stop = new AbortController();
    let open!: () => void;
    const opened = new Promise<void>((r) => (open = r));
    const reader = readGlobalEventStream(client.transport, {
      signal: stop.signal,
      onEvent: (e) => seen.push(e),
      onState: (st) => st === 'open' && open(),
    });
    await opened;
    try {
      const id = await launch(dir, 'plan again [plan]');
      await waitFor('an event of the new session', () => seen.find((e) => e.event.sessionID === id));
      assert.ok(
        seen.filter((e) => e.event.sessionID === id).every((e) => e.directory === dir),
        JSON.stringify(seen.slice(0, 3)),
      );
    } finally {
      stop.abort();
      await reader;
    }
  });

  it('a directory with no sessions yet still learns the dialect (and so gets its events)', async () => {
    const fresh = new BackendClient({ baseUrl: oc.baseUrl });
    try {
      const list = await fresh.listSessions(newDir());
      assert.deepEqual(list.sessions, []);
      assert.equal(list.dialect, 'opencode');
      assert.equal(fresh.capabilities?.permissions, true);
      assert.equal(fresh.capabilities?.globalEvents, true);
    } finally {
      await fresh.close();
    }
  });
});
