// The action commands against the real opencode server (opencode-ai, loopback, hermetic) driven
// by the scripted model, with a second OpenAI-compatible provider ("backup") on the same model
// and the built-in provider disabled. A logging proxy in front of the server records every
// request: the rules of the spec are checked on that log.
import { ANTI_RE_HANG_CLAUSE, QUOTA_SELF_REPORT_CLAUSE } from '../../src/core/prompt/clauses';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackendClient } from '../../src/core/backend/client';
import { startLoggingProxy, type LoggingProxy } from '../support/logging-proxy';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { cli } from './actions-cli';
import { status, statusArgs, waitFor } from './helpers';

const LOCAL = { providerID: 'local', modelID: 'm1' };

describe('action commands against the real opencode server', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let proxy: LoggingProxy;
  let client: BackendClient;
  const dirs: string[] = [];

  before(async function () {
    model = await startScriptedModel();
    oc = await startOpencode({
      modelUrl: model.url,
      configure: (config) => {
        const provider = config.provider as Record<string, { options: Record<string, unknown> }>;
        return {
          ...config,
          disabled_providers: ['opencode'],
          provider: {
            ...provider,
            backup: { ...provider.local, name: 'Backup', options: { ...provider.local.options } },
          },
        };
      },
    });
    proxy = await startLoggingProxy(oc.baseUrl);
    client = new BackendClient({ baseUrl: oc.baseUrl });
  });
  after(async function () {
    await client?.close();
    model?.releaseStalls();
    await proxy?.stop();
    await oc?.stop();
    await model?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  afterEach(function () {
    const transcriptReads = new Map<string, number>();
    for (const r of proxy.log) {
      // Three reads of the `/api` engine are the server's, not a directory's: GET /api/health (whether
      // it serves that engine, asked once), GET /api/session/active and GET /api/event (each covers
      // every directory).
      // The other `/api` routes may carry the directory in the x-opencode-directory header instead.
      if (!['/api/health', '/api/session/active', '/api/event'].includes(r.path))
        assert.ok(
          r.query.get('directory') || (r.path.startsWith('/api/') && r.directoryHeader),
          `directory on ${r.method} ${r.path}`,
        );
      // Liveness reads limit=1; the others are the message ledger's cost pages (status), and at most
      // one whole-transcript read per worker: its first user message, which names who assigned it
      // (authority rule 1, read once and remembered), never a liveness read.
      if (r.method === 'GET' && r.path.endsWith('/message')) {
        if (r.query.get('limit') === null) {
          transcriptReads.set(r.path, (transcriptReads.get(r.path) ?? 0) + 1);
          assert.ok(transcriptReads.get(r.path)! <= 1, `one assignment read at most on ${r.path}`);
        } else
          assert.ok(
            Number(r.query.get('limit')) >= 1 && Number(r.query.get('limit')) <= 20,
            `limit on ${r.path}?${r.query}`,
          );
      }
      if (r.path.endsWith('/prompt_async')) {
        const body = JSON.parse(r.body) as { model?: { providerID?: string; modelID?: string } };
        assert.ok(body.model?.providerID && body.model.modelID, 'an explicit model on every prompt');
      }
    }
    proxy.log.length = 0;
  });

  const newDir = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'session-ops-act-'));
    dirs.push(d);
    return d;
  };
  const file = (dir: string, text: string) => {
    const p = path.join(dir, '..', `${path.basename(dir)}-prompt.md`);
    writeFileSync(p, text);
    dirs.push(p);
    return p;
  };
  const base = (dir: string) => ['--base-url', proxy.url, '--directory', dir];
  const prompts = () => proxy.log.filter((r) => r.method === 'POST' && r.path.endsWith('/prompt_async'));
  const markerSeen =
    (marker: string, n = 1) =>
    () =>
      model.requests.filter((r) => r.marker === marker).length >= n;
  const idle = (dir: string, id: string) =>
    waitFor(
      `${id} idle`,
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id === id)?.state === 'idle',
      60_000,
    );

  const launch = (dir: string, text: string, on = LOCAL): Promise<string> =>
    launchSession(oc, dir, undefined, text, on);

  /** Index of the first GET /session/status after `after` whose answer shows `id` not busy. */
  const idleReadAfter = (id: string, after: number) =>
    proxy.log.findIndex((r, i) => {
      if (i <= after || r.path !== '/session/status' || r.answer === undefined) return false;
      const map = JSON.parse(r.answer) as Record<string, { type?: string }>;
      return !map[id] || map[id].type === 'idle';
    });

  it('wake --prompt-file on an idle session: the file first, the missing clauses appended, the last model, confirmed (0)', async () => {
    const dir = newDir();
    model.when('[first]', { kind: 'reply', text: 'Part one done; more later.' });
    const id = await launch(dir, 'start [first]');
    await waitFor('the reply', async () => (await client.newestMessage(dir, id))?.completedAt);
    await idle(dir, id);
    model.when('[woken]', { kind: 'reply', text: 'Continuing.' });
    const r = await cli('wake', [
      id,
      ...base(dir),
      '--prompt-file',
      file(dir, 'Wake up "now" [woken]\n$HOME'),
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json, { session: id, model: LOCAL, aborted: false, confirmed: true, sent: true });
    await waitFor('the model to receive the wake prompt', markerSeen('[woken]'));
    const sent = JSON.parse(prompts()[0].body).parts[0].text as string;
    assert.ok(sent.startsWith('Wake up "now" [woken]\n$HOME\n\n'), 'the file as written comes first');
    assert.ok(sent.includes(ANTI_RE_HANG_CLAUSE), 'the anti-re-hang clause is appended');
    assert.ok(sent.includes(QUOTA_SELF_REPORT_CLAUSE), 'the completion-report protocol is appended');
    assert.match(r.stderr, /appended the anti-re-hang clause and the completion-report protocol/);
  });

  it('quota marks carry across runs: a wall `status` saw in one session keeps the next `wake` of another off that provider', async () => {
    // B finished on local before A's wall (a success after the wall would end the mark).
    const dirB = newDir();
    const dirC = newDir();
    model.when('[before-wall]', { kind: 'reply', text: 'Part one done; more later.' });
    const b = await launch(dirB, 'start [before-wall]');
    const c = await launch(dirC, 'start [before-wall]');
    for (const [d, id] of [
      [dirB, b],
      [dirC, c],
    ] as const) {
      await waitFor('the reply', async () => (await client.newestMessage(d, id))?.completedAt);
      await idle(d, id);
    }
    await new Promise((r) => setTimeout(r, 50));
    const dirA = newDir();
    // A balance failure: its mark has no reset and lasts until a success on the provider.
    model.when('[wall-a]', { kind: 'balance' });
    const a = await launch(dirA, 'go [wall-a]');
    await waitFor('the failed turn', async () => (await client.newestMessage(dirA, a))?.failure);
    await idle(dirA, a);
    const stateDir = newDir();
    const seen = await status(statusArgs(proxy.url, dirA), { SESSION_OPS_STATE_DIR: stateDir });
    assert.equal(seen.session(a).quotaWall?.provider, 'local');
    const stored = readdirSync(stateDir).filter((f) => f.startsWith('quota-marks-'));
    assert.equal(stored.length, 1, 'one store file for the backend');
    const text = readFileSync(path.join(stateDir, stored[0]), 'utf8');
    assert.deepEqual(
      (JSON.parse(text) as { marks: Array<{ provider: string }> }).marks.map((m) => m.provider),
      ['local'],
    );
    assert.ok(!/sk-|apiKey|password/i.test(text), 'the store holds no secrets');
    model.when('[after-wall]', { kind: 'reply', text: 'Continuing.' });
    // The next process, with the store: local is marked, B is woken on the backup provider.
    const woken = await cli('wake', [b, ...base(dirB), '--prompt-file', file(dirB, 'Wake up [after-wall]'), '--json'], {
      env: { SESSION_OPS_STATE_DIR: stateDir },
    });
    assert.deepEqual(woken.json?.model, { providerID: 'backup', modelID: 'm1' }, woken.stderr);
    // Without it (an empty SESSION_OPS_STATE_DIR: this run's marks only) the wall is unknown to the run.
    const blind = await cli('wake', [c, ...base(dirC), '--prompt-file', file(dirC, 'Wake up [after-wall]'), '--json'], {
      env: { SESSION_OPS_STATE_DIR: '' },
    });
    assert.deepEqual(blind.json?.model, LOCAL, blind.stderr);
  });

  it('a stalled session: wake without --abort-first is refused (3); abort reads idle (0); --abort-first: abort, idle read, prompt', async () => {
    const dir = newDir();
    model.when('[stall-a]', { kind: 'stall' });
    const id = await launch(dir, 'start [stall-a]');
    await waitFor('the stall', markerSeen('[stall-a]'));
    const p = file(dir, 'resume [after-abort]');
    const refused = await cli('wake', [id, ...base(dir), '--prompt-file', p, '--model', 'local/m1']);
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /--abort-first/);
    assert.equal(prompts().length, 0);
    model.when('[after-abort]', { kind: 'reply', text: 'Back.' });
    const r = await cli('wake', [
      id,
      ...base(dir),
      '--prompt-file',
      p,
      '--abort-first',
      '--model',
      'local/m1',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json, { session: id, model: LOCAL, aborted: true, confirmed: true, sent: true });
    const a = proxy.log.findIndex((x) => x.method === 'POST' && x.path.endsWith('/abort'));
    const read = idleReadAfter(id, a);
    const sent = proxy.log.findIndex((x) => x.method === 'POST' && x.path.endsWith('/prompt_async'));
    assert.ok(a >= 0 && read > a && sent > read, `abort ${a} < idle read ${read} < prompt ${sent}`);
    await idle(dir, id);
    const s2 = await launch(dir, 'again [stall-b]');
    model.when('[stall-b]', { kind: 'stall' });
    await waitFor(
      'running',
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id === s2)?.state === 'generating',
    );
    const ab = await cli('abort', [s2, ...base(dir), '--json']);
    assert.equal(ab.code, 0, ab.stderr);
    assert.deepEqual(ab.json, { session: s2, idle: true, sent: true });
  });

  it('recover a 429 with a long retry-after: abort the retry spin, then the quota-wall prompt on the second provider (0)', async () => {
    const dir = newDir();
    model.when('[rl-long]', { kind: 'rate-limit', retryAfter: 3600 });
    const id = await launch(dir, 'go [rl-long]');
    await waitFor(
      'the retry status',
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id === id)?.retry,
    );
    const r = await cli('recover', [
      id,
      ...base(dir),
      '--spacing',
      '1',
      '--allow-short-spacing',
      '--ticket',
      'PROJ-21',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const j = r.json as {
      decision: string;
      provider: string;
      model: unknown;
      marks: Array<{ provider: string; resetAt: number | null }>;
    };
    assert.deepEqual(
      [j.decision, j.provider, j.model],
      ['recovered', 'backup', { providerID: 'backup', modelID: 'm1' }],
    );
    assert.ok(
      j.marks.some((m) => m.provider === 'local' && m.resetAt !== null && m.resetAt > Date.now() + 3_000_000),
      'the wall was considered with its reset',
    );
    const sent = prompts();
    assert.equal(sent.length, 1);
    const body = JSON.parse(sent[0].body) as { model: { providerID: string }; parts: Array<{ text: string }> };
    assert.equal(body.model.providerID, 'backup', 'never the marked provider');
    assert.match(body.parts[0].text, /kept retrying your turn on local after a rate limit \(HTTP 429\)/);
    assert.match(body.parts[0].text, /ticket=PROJ-21/);
    const a = proxy.log.findIndex((x) => x.method === 'POST' && x.path.endsWith('/abort'));
    const idx = proxy.log.findIndex((x) => x.method === 'POST' && x.path.endsWith('/prompt_async'));
    assert.ok(a >= 0 && idleReadAfter(id, a) > a && idx > idleReadAfter(id, a), 'abort, idle read, then the prompt');
  });

  it('recover a 402 balance failure: escalated (5), each marked provider printed, nothing sent', async () => {
    const dir = newDir();
    model.when('[broke-2]', { kind: 'balance' });
    const id = await launch(dir, 'go [broke-2]');
    await waitFor('the failed turn', async () => (await client.newestMessage(dir, id))?.failure);
    await idle(dir, id);
    const r = await cli('recover', [id, ...base(dir), '--spacing', '1', '--allow-short-spacing']);
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stdout, /balance failure on local/);
    assert.match(r.stdout, /local\s+markedAt \S+\s+resetAt unknown/);
    assert.equal(prompts().length, 0);
    assert.equal(proxy.log.filter((x) => x.method === 'POST').length, 0, 'no POST at all');
  });

  it('compose wake in a git worktree names its uncommitted files (read-only)', async () => {
    const dir = newDir();
    const { execFileSync } = await import('node:child_process');
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: dir });
    git('init', '-q');
    writeFileSync(path.join(dir, 'done.ts'), 'x');
    git('add', 'done.ts');
    git('commit', '-qm', 'first');
    writeFileSync(path.join(dir, 'half-done.ts'), 'y');
    const id = await launch(dir, 'hello');
    await waitFor('the reply', async () => (await client.newestMessage(dir, id))?.completedAt);
    await idle(dir, id);
    const r = await cli('compose', ['wake', id, ...base(dir)]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Uncommitted files in your worktree \(1\)[^\n]*\n\s+- `half-done.ts`/);
    assert.match(r.stderr, /uncommitted files from (the backend \(GET \/vcs\/status\)|git in )/);
    process.stdout.write(
      `      (inventory source: ${/from the backend/.test(r.stderr) ? 'GET /vcs/status' : 'git'})\n`,
    );
    assert.ok(proxy.log.every((x) => x.method === 'GET'));
  });

  it('dispatch: 0 on a connected provider with a fallback; 3 for a provider that is not connected, naming the one to use', async () => {
    const dir = newDir();
    const id = await launch(dir, 'hello');
    await waitFor('the reply', async () => (await client.newestMessage(dir, id))?.completedAt);
    await idle(dir, id);
    const task = file(dir, 'Implement PROJ-30.');
    const ok = await cli('dispatch', [
      id,
      ...base(dir),
      '--prompt-file',
      task,
      '--model',
      'local/m1',
      '--ticket',
      'PROJ-30',
      '--json',
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(ok.json, {
      session: id,
      model: LOCAL,
      sent: true,
      instead: null,
      variant: null,
      newSession: false,
    });
    assert.match(
      JSON.parse(prompts()[0].body).parts[0].text,
      /^Implement PROJ-30\.\n\nCompletion report protocol:[\s\S]*reason=quota-exhausted/,
    );
    await idle(dir, id);
    const off = await cli('dispatch', [id, ...base(dir), '--prompt-file', task, '--model', 'nowhere/x', '--json']);
    assert.equal(off.code, 3);
    assert.equal((off.json as { instead: string }).instead, 'local');
    assert.equal(prompts().length, 1);
  });
});
