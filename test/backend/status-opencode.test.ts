// `session-ops status` and the client against the real opencode server (opencode-ai 1.18,
// loopback, hermetic) driven by the scripted model: healthy, hung (a stalled stream), idle,
// harvest, 429 with and without retry-after, 402 insufficient_quota, password protection, the
// event stream, and the abort-and-wake path end to end.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackendClient } from '../../src/core/backend/client';
import { readEventStream, type BackendEvent } from '../../src/core/backend/events';
import { abortSession } from '../../src/core/actions/abort';
import { confirmStarted } from '../../src/core/actions/confirm';
import { guardedPrompt } from '../support/guarded-prompt';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { assertDocumentShape, status, statusArgs, waitFor } from './helpers';

const API_KEY = 'sk-local-DO-NOT-PRINT-4242';
const LOCAL = { providerID: 'local', modelID: 'm1' };

describe('status CLI against the real opencode server', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  const dirs: string[] = [];
  let client: BackendClient;

  before(async function () {
    model = await startScriptedModel();
    oc = await startOpencode({ modelUrl: model.url, apiKey: API_KEY });
    client = new BackendClient({ baseUrl: oc.baseUrl });
  });
  after(async function () {
    await client?.close();
    model?.releaseStalls();
    await oc?.stop();
    await model?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const newDir = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'session-ops-wt-'));
    dirs.push(d);
    return d;
  };

  const launch = (dir: string, text: string): Promise<string> => launchSession(oc, dir, undefined, text);

  const markerSeen =
    (marker: string, n = 1) =>
    () =>
      model.requests.filter((r) => r.marker === marker).length >= n;

  it('healthy: a session busy with rounds of tool calls', async () => {
    const dir = newDir();
    model.when('[busy-loop]', { kind: 'tool-loop', command: 'sleep 0.3', rounds: 200 });
    const id = await launch(dir, 'work hard [busy-loop]');
    await waitFor('the loop to start', markerSeen('[busy-loop]', 2));
    const run = await status(statusArgs(oc.baseUrl, dir));
    assert.equal(run.code, 0, run.stderr);
    assertDocumentShape(run.doc!);
    assert.equal(run.doc!.dialect, 'opencode');
    assert.deepEqual(
      [run.session(id).verdict, run.session(id).action],
      ['healthy', 'leave-alone'],
      run.session(id).basis,
    );
    await abortSession({ backend: client, directory: dir }, id);
  });

  it('healthy: a model still streaming one long text part (not stored until it ends) is not called hung', async () => {
    const dir = newDir();
    model.when('[slow-stream]', { kind: 'reply', text: 'word '.repeat(80), chunks: 80, delayMs: 100 });
    const id = await launch(dir, 'write a lot [slow-stream]');
    await waitFor('the stream', markerSeen('[slow-stream]'));
    await new Promise((r) => setTimeout(r, 700));
    const run = await status(statusArgs(oc.baseUrl, dir));
    const s = run.session(id);
    assert.deepEqual([s.verdict, s.action], ['healthy', 'leave-alone'], s.basis);
    assert.match(s.basis, /event stream showed \d+ output events/);
  });

  it('hung: a stalled stream reads generating with everything frozen', async () => {
    const dir = newDir();
    model.when('[stall]', { kind: 'stall' });
    const id = await launch(dir, 'think [stall]');
    await waitFor('the stalled stream', markerSeen('[stall]'));
    await waitFor('the assistant message', async () => (await client.newestMessage(dir, id))?.role === 'assistant');
    const run = await status(statusArgs(oc.baseUrl, dir));
    assert.equal(run.code, 0, run.stderr);
    const s = run.session(id);
    assert.deepEqual([s.verdict, s.action, s.quotaWall], ['hung', 'abort-and-wake', null], s.basis);
  });

  it('idle with an unfinished task: wake; with a completion report: harvest', async () => {
    const dir = newDir();
    model.when('[lazy]', { kind: 'reply', text: 'I had a look; I will write the fix next.', chunks: 3 });
    model.when('[finish]', {
      kind: 'reply',
      text: 'All tests pass.\nticket=PROJ-12 label=Kind/Bug status=done pr=#34 summary="CRLF fixed"',
      chunks: 4,
    });
    const lazy = await launch(dir, 'look at it [lazy]');
    const done = await launch(dir, 'fix it [finish]');
    for (const id of [lazy, done])
      await waitFor('the reply', async () => (await client.newestMessage(dir, id))?.completedAt);
    await waitFor('both idle', async () => (await client.listSessions(dir)).sessions.every((s) => s.state === 'idle'));
    const run = await status(statusArgs(oc.baseUrl, dir));
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual([run.session(lazy).verdict, run.session(lazy).action], ['idle', 'wake'], run.session(lazy).basis);
    assert.deepEqual([run.session(done).verdict, run.session(done).action], ['idle', 'harvest']);
    assert.deepEqual(run.session(done).report, {
      ticket: 'PROJ-12',
      label: 'Kind/Bug',
      status: 'done',
      pr: '#34',
      summary: 'CRLF fixed',
      reason: null,
    });
  });

  it('429 with retry-after: a retry spin, wall remembered with its reset, recover on a free provider after aborting', async () => {
    const dir = newDir();
    model.when('[rl-hour]', { kind: 'rate-limit', retryAfter: 3600 });
    const id = await launch(dir, 'go [rl-hour]');
    await waitFor(
      'the retry status',
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id === id)?.retry,
    );
    const before = Date.now();
    const run = await status(statusArgs(oc.baseUrl, dir));
    assert.equal(run.code, 0, run.stderr);
    const s = run.session(id);
    assert.deepEqual(
      [s.verdict, s.action, s.abortFirst, s.recoverOn],
      ['hung', 'recover', true, 'opencode'],
      s.actionBasis,
    );
    assert.equal(s.quotaWall?.category, 'rate-limit');
    assert.equal(s.quotaWall?.provider, 'local');
    assert.equal(s.quotaWall?.source, 'retry-status');
    assert.ok(
      s.quotaWall!.resetAt! > before + 3500_000 && s.quotaWall!.resetAt! < before + 3700_000,
      'reset from retry-after (next)',
    );
    const local = run.doc!.providers.find((p) => p.id === 'local');
    assert.equal(local?.connected, true);
    assert.equal(local?.quota?.resetAt, s.quotaWall!.resetAt, 'the wall is remembered as a quota mark');
    assert.equal(run.doc!.allFreeAt, s.quotaWall!.resetAt);
    assert.ok(run.doc!.providers.some((p) => p.id === 'opencode' && p.connected && p.quota === null));
    assert.ok(run.doc!.providers.length < 10, 'connected or marked providers only, not the catalogue');
    await abortSession({ backend: client, directory: dir }, id);
  });

  it('a 429 retried within seconds is the backend retrying, not a wall (healthy "retrying"); --retry-wall-minutes 0 reads it as one', async () => {
    const dir = newDir();
    model.when('[rl-plain]', { kind: 'rate-limit' });
    const id = await launch(dir, 'go [rl-plain]');
    await waitFor(
      'the retry status',
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id === id)?.retry,
    );
    const run = await status(statusArgs(oc.baseUrl, dir));
    const s = run.session(id);
    assert.equal(s.quotaWall, null, s.basis);
    assert.deepEqual([s.verdict, s.action], ['healthy', 'leave-alone'], s.basis);
    assert.match(s.basis, /retrying \(attempt \d+, next in \d+ s\)/);
    assert.equal(
      run.doc!.providers.find((p) => p.id === 'local')?.quota ?? null,
      null,
      'no quota mark for a transient retry',
    );
    const strict = await status(statusArgs(oc.baseUrl, dir, '--retry-wall-minutes', '0'));
    const w = strict.session(id);
    // Still retrying (a retry-status wall, abort first) or retries exhausted (the tail probe): a wall either way.
    assert.equal(w.quotaWall?.category, 'rate-limit', w.basis);
    assert.equal(w.action, 'recover');
    assert.equal(w.abortFirst, w.state === 'generating');
    await abortSession({ backend: client, directory: dir }, id);
  });

  it('429 that ends the turn (retries exhausted): idle + tail probe, recover without abort', async () => {
    const dir = newDir();
    // retry-after: 0 makes opencode's five retries immediate, so the final APIError arrives at once.
    model.when('[rl-final]', { kind: 'rate-limit', retryAfter: 0 });
    const id = await launch(dir, 'go [rl-final]');
    await waitFor('the failed turn', async () => (await client.newestMessage(dir, id))?.failure);
    await waitFor(
      'idle',
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id === id)?.state === 'idle',
    );
    const run = await status(statusArgs(oc.baseUrl, dir));
    const s = run.session(id);
    assert.deepEqual(
      [s.verdict, s.action, s.abortFirst, s.recoverOn],
      ['idle', 'recover', false, 'opencode'],
      s.actionBasis,
    );
    assert.deepEqual(
      [s.quotaWall?.category, s.quotaWall?.reason, s.quotaWall?.source, s.quotaWall?.provider],
      ['rate-limit', 'rate_limit', 'tail-probe', 'local'],
    );
  });

  it('402 insufficient_quota: balance failure, escalate', async () => {
    const dir = newDir();
    model.when('[broke]', { kind: 'balance' });
    const id = await launch(dir, 'go [broke]');
    await waitFor('the failed turn', async () => (await client.newestMessage(dir, id))?.failure);
    await waitFor(
      'idle',
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id === id)?.state === 'idle',
    );
    const run = await status(statusArgs(oc.baseUrl, dir));
    const s = run.session(id);
    assert.deepEqual([s.verdict, s.action], ['idle', 'escalate']);
    assert.deepEqual(
      [s.quotaWall?.category, s.quotaWall?.reason, s.quotaWall?.resetAt],
      ['balance', 'insufficient_quota', null],
    );
    assert.equal(s.escalation?.reason, 'balance');
    assert.equal(run.doc!.providers.find((p) => p.id === 'local')?.category, 'balance');
    assert.equal(run.doc!.allFreeAt, null);
  });

  it('never prints the configured API key (JSON or table)', async () => {
    const dir = newDir();
    const json = await status(statusArgs(oc.baseUrl, dir));
    const table = await status([
      '--base-url',
      oc.baseUrl,
      '--directory',
      dir,
      '--spacing',
      '1',
      '--allow-short-spacing',
    ]);
    assert.equal(json.code, 0);
    assert.ok(!json.stdout.includes(API_KEY) && !table.stdout.includes(API_KEY));
    const listing = await client.listProviders(dir);
    assert.ok(!JSON.stringify(listing).includes(API_KEY));
    assert.deepEqual(listing.connected.sort(), ['local', 'opencode']);
  });

  it('abort then wake, end to end: the hung session is aborted, confirmed idle, re-woken, and reports', async () => {
    const dir = newDir();
    model.when('[stall-2]', { kind: 'stall' });
    model.when('[wake-2]', {
      kind: 'reply',
      text: 'Resumed and finished.\nticket=PROJ-9 status=done summary="finished after wake"',
    });
    const id = await launch(dir, 'start [stall-2]');
    await waitFor('the stall', markerSeen('[stall-2]'));
    await waitFor('the assistant message', async () => (await client.newestMessage(dir, id))?.role === 'assistant');
    let run = await status(statusArgs(oc.baseUrl, dir));
    assert.equal(run.session(id).action, 'abort-and-wake');
    assert.equal((await abortSession({ backend: client, directory: dir }, id, { pollMs: 200 })).idle, true);
    const before = await client.newestMessage(dir, id);
    await client.promptAsync(guardedPrompt(dir, id, LOCAL, 'You were woken [wake-2]'));
    const reply = await confirmStarted({ backend: client, directory: dir }, id, before?.id ?? null, {
      pollMs: 200,
      withinMs: 30_000,
      acceptGenerating: false,
    });
    assert.ok(reply.confirmed);
    await waitFor('the reply to complete', async () => (await client.newestMessage(dir, id))?.completedAt);
    await waitFor(
      'idle',
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id === id)?.state === 'idle',
    );
    run = await status(statusArgs(oc.baseUrl, dir));
    assert.deepEqual(
      [run.session(id).verdict, run.session(id).action, run.session(id).report?.ticket],
      ['idle', 'harvest', 'PROJ-9'],
    );
  });

  it('the event stream nudges: session.status events for a prompted session', async () => {
    const dir = newDir();
    model.when('[events]', { kind: 'reply', text: 'ok', chunks: 2, delayMs: 100 });
    const events: BackendEvent[] = [];
    const ac = new AbortController();
    const reader = readEventStream(client.transport, {
      directory: dir,
      signal: ac.signal,
      onEvent: (e) => events.push(e),
    });
    await waitFor('connected', () => events.some((e) => e.type === 'server.connected'));
    const id = await launch(dir, 'hello [events]');
    await waitFor('idle event', () => events.some((e) => e.sessionID === id && e.state === 'idle'), 30_000);
    assert.ok(events.some((e) => e.sessionID === id && e.type === 'session.status' && e.state === 'generating'));
    ac.abort();
    assert.equal(await reader, 'stopped');
  });
});

describe('status CLI against a password-protected opencode server', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  before(async () => {
    model = await startScriptedModel();
    oc = await startOpencode({ modelUrl: model.url, password: 'open-sesame' });
  });
  after(async () => {
    await oc?.stop();
    await model?.stop();
  });

  it('401 without the password is a readable error (exit 1); SESSION_OPS_PASSWORD gets in', async () => {
    const dir = os.tmpdir();
    let run = await status(statusArgs(oc.baseUrl, dir));
    assert.equal(run.code, 1);
    assert.match(run.stderr, /refused the credentials.*HTTP 401/);
    assert.ok(!run.stderr.includes('open-sesame'));
    run = await status(statusArgs(oc.baseUrl, dir), { SESSION_OPS_PASSWORD: 'open-sesame' });
    assert.equal(run.code, 0, run.stderr);
    run = await status(statusArgs(oc.baseUrl, dir), { SESSION_OPS_PASSWORD: 'wrong' });
    assert.equal(run.code, 1);
  });
});
