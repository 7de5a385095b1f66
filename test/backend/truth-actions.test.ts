// What the action commands say and decide rests on what was read (issue "every word it sends is
// true"), end to end: the CLI against the stateful spec-dialect server, the request log checked.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { startSpecServer, type SpecServer } from '../support/spec-server';
import { cli } from './actions-cli';
import { status, statusArgs } from './helpers';

const DIR = '/work/truth project';
const HOUR = 3_600_000;

describe('actions tell and decide only what was read (spec-dialect server)', function () {
  let server: SpecServer;
  let tmp: string;
  let base: string[];
  const file = (name: string, text: string) => {
    const p = path.join(tmp, name);
    writeFileSync(p, text);
    return p;
  };
  const recoverArgs = (id: string, ...extra: string[]) => [
    id,
    ...base,
    '--spacing',
    '0.3',
    '--allow-short-spacing',
    '--wait',
    '5',
    '--json',
    ...extra,
  ];

  beforeEach(async () => {
    server = await startSpecServer();
    server.answerPrompts = { delayMs: 150, text: 'Resumed.' };
    server.setProviders(
      [
        { id: 'anthropic', models: ['sonnet'] },
        { id: 'openai', models: ['gpt-5', 'gpt-5-mini'] },
      ],
      ['anthropic', 'openai'],
    );
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-truth-'));
    base = ['--base-url', server.url, '--directory', DIR];
  });
  afterEach(async () => {
    for (const r of server.requests) assert.equal(r.query.directory, DIR, `directory on ${r.method} ${r.path}`);
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('a frozen session on a marked provider: status says observed provider-marked, category null; recover states the observation, never a failure', async () => {
    const now = Date.now();
    server.setQuota('anthropic', { markedAt: now - 10 * 60_000, resetAt: now + HOUR });
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 4, lastStepAt: now - 120_000 } });
    d.addMessage(id, { text: 'half a thought', info: { providerID: 'anthropic', modelID: 'sonnet' } });
    const run = await status(statusArgs(server.url, DIR));
    const q = run.session(id).quotaWall;
    assert.equal(q?.observed, 'provider-marked');
    assert.equal(q?.category, null);
    const r = await cli('recover', recoverArgs(id));
    assert.equal(r.code, 0, r.stderr);
    const text = server.prompts[0].payload.parts[0].text;
    assert.match(
      text,
      new RegExp(
        `your session stopped moving while anthropic was under a usage-limit cooldown \\(marked ${new Date(now - 10 * 60_000).toISOString()}, reset ${new Date(now + HOUR).toISOString()}`,
      ),
    );
    assert.doesNotMatch(text, /killed|HTTP 429|rate limit/);
    // Facts as read: steps from the progress counter; commits and the pull request were not read.
    assert.match(text, /- 4 model rounds so far/);
    assert.match(text, /Commits:\n {2}- not known: the git log of your worktree was not read; run git log/);
    assert.match(text, /Pull request: not known; check whether one exists/);
    assert.doesNotMatch(text, /no step recorded|none since the task started|none yet/);
  });

  it('a reset estimate written in the failure text is parsed: status --json gives it', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    const failedAt = Date.now() - 60_000;
    d.addMessage(id, {
      error: {
        text: 'Weekly usage limit reached, resets in 3 days',
        reason: 'account_usage_limit',
        provider: 'anthropic',
      },
      info: { providerID: 'anthropic', modelID: 'sonnet', time: { created: failedAt, completed: failedAt } },
    });
    const run = await status(statusArgs(server.url, DIR));
    assert.equal(run.session(id).quotaWall?.resetAt, failedAt + 3 * 24 * HOUR);
  });

  it('dispatch: a marked provider is no fallback; --fallback dispatches on the named alternative, without it exit 3 naming it', async () => {
    const now = Date.now();
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    const task = file('task.md', 'Implement PROJ-9.');
    server.setQuota('openai', { markedAt: now, resetAt: now + HOUR });
    const noFallback = await cli('dispatch', [
      id,
      ...base,
      '--prompt-file',
      task,
      '--model',
      'anthropic/sonnet',
      '--json',
    ]);
    assert.equal(noFallback.code, 3, 'openai is marked: anthropic has no fallback that could take the work');
    assert.match(noFallback.stderr, /no other connected provider without a quota mark exists as a fallback/);
    server.setProviders(
      [
        { id: 'anthropic', models: ['sonnet'], quota: { markedAt: now, resetAt: now + HOUR } },
        { id: 'openai', models: ['gpt-5', 'gpt-5-mini'] },
        { id: 'groq', models: ['llama'] },
      ],
      ['anthropic', 'openai', 'groq'],
    );
    const named = await cli('dispatch', [id, ...base, '--prompt-file', task, '--model', 'anthropic/sonnet', '--json']);
    assert.equal(named.code, 3);
    assert.equal((named.json as { instead: string }).instead, 'openai');
    assert.equal(server.prompts.length, 0);
    const moved = await cli('dispatch', [
      id,
      ...base,
      '--prompt-file',
      task,
      '--model',
      'anthropic/sonnet',
      '--fallback',
      '--json',
    ]);
    assert.equal(moved.code, 0, moved.stderr);
    assert.deepEqual(moved.json, {
      session: id,
      model: { providerID: 'openai', modelID: 'gpt-5' },
      sent: true,
      instead: 'openai',
      variant: null,
      newSession: false,
    });
    assert.deepEqual(server.prompts[0].payload.model, { providerID: 'openai', modelID: 'gpt-5' });
  });

  it("recover after the wall's reset: its provider's mark is gone and the reset it gave has passed, so it is accepted; no invented mark", async () => {
    const now = Date.now();
    server.setQuota('openai', { markedAt: now - 60_000, resetAt: now + HOUR });
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, {
      error: {
        text: 'Weekly usage limit reached',
        reason: 'account_usage_limit',
        provider: 'anthropic',
        resetAt: now - 5_000,
      },
      info: { providerID: 'anthropic', modelID: 'sonnet' },
    });
    const r = await cli('recover', recoverArgs(id));
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const j = r.json as { decision: string; model: unknown; marks: Array<{ provider: string }> };
    assert.equal(j.decision, 'recovered');
    assert.deepEqual(j.model, { providerID: 'anthropic', modelID: 'sonnet' });
    assert.deepEqual(
      j.marks.map((m) => m.provider),
      ['openai'],
      'only the marks the listing shows',
    );
    assert.match(server.prompts[0].payload.parts[0].text, /Its mark is gone and its reset has passed/);
  });

  it('wake --model with a model the provider does not list: refused (3), nothing sent, the message lists its models', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { text: 'paused', info: { providerID: 'anthropic', modelID: 'sonnet' } });
    const wake = file('wake.md', 'Continue the task.');
    const r = await cli('wake', [id, ...base, '--prompt-file', wake, '--model', 'openai/no-such-model', '--json']);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.equal((r.json as { confirmed: boolean }).confirmed, false);
    assert.match(r.stderr, /openai does not list no-such-model; its models: gpt-5, gpt-5-mini/);
    assert.equal(server.prompts.length, 0);
  });

  it('wake --worktree DIR: the local worktree is read with git; every backend request carries the session directory', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'PROJ-4' });
    d.addMessage(id, { text: 'paused', info: { providerID: 'openai', modelID: 'gpt-5' } });
    const wt = path.join(tmp, 'wt');
    execFileSync('mkdir', ['-p', wt]);
    execFileSync('git', ['init', '-q'], { cwd: wt });
    writeFileSync(path.join(wt, 'changed.ts'), 'x');
    const r = await cli('wake', [id, ...base, '--compose', 'wake', '--worktree', wt, '--i-hold-authority', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(server.prompts[0].payload.parts[0].text, /changed\.ts/);
    // afterEach: every request carried directory=DIR (none was sent with the worktree's).
  });

  it('wake: a session that reads generating but does not move is not confirmed', async () => {
    server.answerPrompts = { delayMs: 5_000, text: 'late' };
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', progress: { stepCount: 1, lastStepAt: Date.now() - 60_000 } });
    d.addMessage(id, { text: 'paused', info: { providerID: 'openai', modelID: 'gpt-5' } });
    const wake = file('wake.md', 'Continue.');
    const r = await cli('wake', [id, ...base, '--prompt-file', wake, '--wait', '1.5', '--json']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal((r.json as { confirmed: boolean }).confirmed, false);
  });
});
