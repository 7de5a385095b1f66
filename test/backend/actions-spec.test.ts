// The action commands against the stateful spec-dialect server: each command, each refusal, each
// exit status, the --json documents, and the request log: no prompt before a read showed the
// aborted session idle, an explicit model on every prompt, no prompt to a marked or disconnected
// provider, `directory` on every request, liveness reads with limit=1.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startSpecServer, type SpecServer } from '../support/spec-server';
import { cli } from './actions-cli';
import { ANTI_RE_HANG_CLAUSE, QUOTA_SELF_REPORT_CLAUSE } from '../../src/core/prompt/clauses';
import { QUEUED_RESENT_LINE } from '../../src/core/prompt/queued';

const DIR = '/work/project with space';
const HOUR = 3_600_000;

describe('action commands against the stateful spec-dialect server', function () {
  let server: SpecServer;
  let tmp: string;
  let base: string[];
  const file = (name: string, text: string) => {
    const p = path.join(tmp, name);
    writeFileSync(p, text);
    return p;
  };

  beforeEach(async () => {
    server = await startSpecServer({ password: 'pw-SECRET-1' });
    server.answerPrompts = { delayMs: 150, text: 'Resumed.' };
    server.setProviders(
      [
        { id: 'anthropic', models: ['sonnet'], options: { apiKey: 'sk-SECRET' } },
        { id: 'openai', models: ['gpt-5'] },
        { id: 'groq', models: ['llama'] },
      ],
      ['anthropic', 'openai'],
    );
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-actions-'));
    base = ['--base-url', server.url, '--directory', DIR];
  });
  afterEach(async () => {
    // The rules of the request log hold after every test.
    // Liveness reads limit=1; at most one whole-transcript read per worker: its first user message,
    // which names who assigned it (authority rule 1, read once and remembered).
    const transcriptReads = new Map<string, number>();
    for (const r of server.requests) {
      assert.equal(r.query.directory, DIR, `directory on ${r.method} ${r.path}`);
      assert.ok(r.authorized, `password from the environment on ${r.method} ${r.path}`);
      if (r.path.endsWith('/message') && r.query.limit === undefined) {
        transcriptReads.set(r.path, (transcriptReads.get(r.path) ?? 0) + 1);
        assert.ok(transcriptReads.get(r.path)! <= 1, `one assignment read at most on ${r.path}`);
      } else if (r.path.endsWith('/message')) assert.equal(r.query.limit, '1', 'liveness reads with limit=1');
    }
    for (const p of server.prompts) {
      assert.ok(p.payload.model?.providerID && p.payload.model.modelID, 'an explicit model on every prompt');
      assert.ok(['anthropic', 'openai'].includes(p.payload.model.providerID), 'never a disconnected provider');
    }
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  });
  // A state directory per test: the worker's assignment read once is remembered across commands.
  const env: Record<string, string> = { SESSION_OPS_PASSWORD: 'pw-SECRET-1' };
  beforeEach(() => {
    env.SESSION_OPS_STATE_DIR = path.join(tmp, 'state');
  });
  const idleRead = (id: string, after: number) =>
    server.requests.findIndex(
      (q, i) => i > after && q.method === 'GET' && q.path === '/session' && q.states?.[id] === 'idle',
    );
  const index = (suffix: string) => server.requests.findIndex((r) => r.method === 'POST' && r.path.endsWith(suffix));

  it('abort: 0 once a read shows idle ({"session","idle"}); 1 when it does not in time; the password only from the environment', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating' });
    server.abortDelayMs = 200;
    const ok = await cli('abort', [id, ...base, '--json'], { env });
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(ok.json, { session: id, idle: true, sent: true });
    assert.ok(idleRead(id, index('/abort')) > index('/abort'));
    const stuck = d.addSession({ state: 'generating' });
    server.abortDelayMs = 60_000;
    const late = await cli('abort', [stuck, ...base, '--json', '--wait', '0.5'], { env });
    assert.equal(late.code, 1);
    assert.deepEqual(late.json, { session: stuck, idle: false, sent: true });
    server.requests.length = 0;
    const noPw = await cli('abort', [id, ...base], { env: {} });
    assert.equal(noPw.code, 1);
    assert.ok(!noPw.stderr.includes('SECRET') && !noPw.stdout.includes('SECRET'));
    server.requests.length = 0; // unauthorized on purpose
    assert.equal((await cli('abort', [...base], { env })).code, 2, 'usage: no session');
  });

  it('wake --prompt-file: sent as written, the missing clauses appended (said on stderr), the last model, confirmed (0)', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { text: 'later', info: { providerID: 'openai', modelID: 'gpt-5' } });
    const text = 'Line 1 "quoted" $HOME `cmd` \\ {"agent":"evil"}\nLine 2';
    const r = await cli('wake', [id, ...base, '--prompt-file', file('p.md', text), '--json'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json, {
      session: id,
      model: { providerID: 'openai', modelID: 'gpt-5' },
      aborted: false,
      confirmed: true,
      sent: true,
    });
    const sent = server.prompts[0].payload.parts[0].text;
    assert.ok(sent.startsWith(`${text}\n\n`), 'the file as written comes first');
    assert.ok(sent.includes(ANTI_RE_HANG_CLAUSE));
    assert.ok(sent.includes(QUOTA_SELF_REPORT_CLAUSE));
    assert.match(r.stderr, /appended the anti-re-hang clause and the completion-report protocol/);
    assert.equal(server.prompts[0].payload.agent, 'build');
    // A file that carries both is sent exactly as written, without a notice.
    const again = d.addSession({ state: 'idle' });
    d.addMessage(again, { text: 'later', info: { providerID: 'openai', modelID: 'gpt-5' } });
    const kept = await cli('wake', [again, ...base, '--prompt-file', file('q.md', sent), '--json'], { env });
    assert.equal(kept.code, 0, kept.stderr);
    assert.equal(server.prompts[1].payload.parts[0].text, sent);
    assert.doesNotMatch(kept.stderr, /appended/);
  });

  it('compose fact-baseline --facts with an empty part: exit 2 naming it, nothing requested', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const facts = {
      event: 'restart',
      facts: [{ statement: 'PR #3 merged', source: 'https://git.example/pr/3', at: '2026-01-05T11:00:00Z' }],
      invalidAssumptions: [],
      assignment: { kind: 'standby', until: 'noon' },
    };
    const before = server.requests.length;
    const r = await cli('compose', ['fact-baseline', id, ...base, '--facts', file('f.json', JSON.stringify(facts))], {
      env,
    });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /part 2: name the standing assumptions .* or write "none"/);
    assert.equal(server.requests.length, before);
  });

  it('wake refusals exit 3 with nothing sent: not idle, marked, disconnected, the wall provider, no model', async () => {
    const d = server.directory(DIR);
    const now = Date.now();
    const p = file('p.md', 'wake');
    const busy = d.addSession({ state: 'generating' });
    const r1 = await cli('wake', [busy, ...base, '--prompt-file', p, '--model', 'openai/gpt-5'], { env });
    assert.equal(r1.code, 3);
    assert.match(r1.stderr, /--abort-first/);
    const idle = d.addSession({ state: 'idle' });
    d.addMessage(idle, { error: { text: 'Rate limited', reason: 'rate_limit', provider: 'openai' } });
    server.setQuota('anthropic', { markedAt: now, resetAt: now + HOUR });
    const marked = await cli('wake', [idle, ...base, '--prompt-file', p, '--model', 'anthropic/sonnet'], { env });
    const off = await cli('wake', [idle, ...base, '--prompt-file', p, '--model', 'groq/llama'], { env });
    const wall = await cli('wake', [idle, ...base, '--prompt-file', p, '--model', 'openai/gpt-5'], { env });
    const none = await cli('wake', [idle, ...base, '--prompt-file', p, '--json'], { env });
    assert.deepEqual([marked.code, off.code, wall.code, none.code], [3, 3, 3, 3]);
    assert.match(marked.stderr, /quota mark/);
    assert.match(off.stderr, /not connected/);
    assert.match(wall.stderr, /quota wall/);
    assert.match(none.stderr, /add --model PROVIDER\/MODEL/);
    assert.deepEqual(none.json, { session: idle, model: null, aborted: false, confirmed: false, sent: false });
    assert.equal(server.prompts.length, 0);
    assert.equal((await cli('wake', [idle, ...base], { env })).code, 2, 'neither --prompt-file nor --compose');
    assert.equal((await cli('wake', [idle, ...base, '--prompt-file', path.join(tmp, 'missing.md')], { env })).code, 2);
  });

  it('wake --abort-first --compose wake: abort, a read showing idle, only then the composed prompt (0)', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({
      state: 'generating',
      progress: { stepCount: 2, lastStepAt: 1 },
      title: 'PROJ-77 port the parser',
    });
    d.addMessage(id, { role: 'user', text: 'continue; report to orchestrator session ses_other1' });
    server.abortDelayMs = 200;
    const r = await cli(
      'wake',
      [
        id,
        ...base,
        '--compose',
        'wake',
        '--abort-first',
        '--model',
        'anthropic/sonnet',
        '--orchestrator',
        'ses_orch9',
        '--json',
      ],
      { env },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json, {
      session: id,
      model: { providerID: 'anthropic', modelID: 'sonnet' },
      aborted: true,
      confirmed: true,
      sent: true,
    });
    const a = index('/abort');
    const read = idleRead(id, a);
    const prompt = index('/prompt_async');
    assert.ok(a >= 0 && read > a && prompt > read, `abort ${a} < idle read ${read} < prompt ${prompt}`);
    const text = server.prompts[0].payload.parts[0].text;
    assert.match(text, /generation stream stopped/);
    // The prompt queued before the abort (the newest message, a user message) is re-sent verbatim.
    assert.ok(
      text.includes(
        `${QUEUED_RESENT_LINE}\n----- queued prompt, verbatim -----\ncontinue; report to orchestrator session ses_other1\n`,
      ),
      text,
    );
    assert.ok(!/dropped/.test(text));
    assert.match(text, /ticket=PROJ-77/);
    assert.match(text, /the orchestrator session ses_orch9/);
    assert.match(text, /inventory was not available/);
    assert.match(r.stderr, /speaks for orchestrator ses_orch9/);
    assert.match(r.stderr, /warning: .*names orchestrator ses_other1/);
  });

  it('wake --abort-first with no connected provider free of a mark: 3, nothing aborted, "sent": false', async () => {
    const now = Date.now();
    server.setQuota('anthropic', { markedAt: now, resetAt: now + HOUR });
    server.setQuota('openai', { markedAt: now, resetAt: now + HOUR });
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating', progress: { stepCount: 2, lastStepAt: 1 } });
    d.addMessage(id, { text: 'working', info: { providerID: 'anthropic', modelID: 'sonnet' } });
    const r = await cli('wake', [id, ...base, '--compose', 'wake', '--abort-first', '--json'], { env });
    assert.equal(r.code, 3, r.stderr);
    assert.deepEqual(r.json, { session: id, model: null, aborted: false, confirmed: false, sent: false });
    assert.match(r.stderr, /refused, nothing sent: .*no connected provider without a quota mark/);
    assert.equal(index('/abort'), -1, 'nothing aborted');
    assert.equal(server.prompts.length, 0);
  });

  it('wake not confirmed in time exits 1 and says where the prompt is', async () => {
    server.answerPrompts = null;
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const r = await cli(
      'wake',
      [id, ...base, '--prompt-file', file('p.md', 'x'), '--model', 'openai/gpt-5', '--wait', '0.5', '--json'],
      { env },
    );
    assert.equal(r.code, 1);
    assert.equal((r.json as { confirmed: boolean }).confirmed, false);
    assert.match(r.stderr, /newest user message/);
  });

  const recoverArgs = (id: string) => [
    id,
    ...base,
    '--spacing',
    '0.1',
    '--allow-short-spacing',
    '--wait',
    '5',
    '--json',
  ];

  it('recover: 0 recovered on a free provider with the quota-wall prompt; the JSON document', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'PROJ-8' });
    d.addMessage(id, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    const r = await cli('recover', recoverArgs(id), { env });
    assert.equal(r.code, 0, r.stderr);
    const j = r.json as Record<string, unknown>;
    assert.deepEqual(
      [j.session, j.decision, j.provider, j.model, j.waitUntil],
      [id, 'recovered', 'openai', { providerID: 'openai', modelID: 'gpt-5' }, null],
    );
    assert.deepEqual(
      (j.marks as Array<{ provider: string }>).map((m) => m.provider),
      [],
      "no source shows a mark: anthropic's wall is in its message, the listing marks nobody",
    );
    const text = server.prompts[0].payload.parts[0].text;
    assert.match(text, /killed by a usage limit on anthropic/);
    assert.match(text, /You now run on openai\/gpt-5/);
    assert.match(text, /reason=quota-exhausted/);
    assert.equal(server.aborts.length, 0, 'idle: no abort');
  });

  it('recover: 4 wait-for-reset (prints the reset), 5 escalated (prints each mark), 3 refused (not at a wall); nothing sent', async () => {
    const d = server.directory(DIR);
    const now = Date.now();
    server.setQuota('openai', { markedAt: now - 5000, resetAt: now + HOUR });
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    const w = await cli('recover', recoverArgs(id), { env });
    assert.equal(w.code, 4, w.stderr);
    assert.equal((w.json as { waitUntil: number }).waitUntil, now + HOUR);
    const text = await cli(
      'recover',
      recoverArgs(id).filter((a) => a !== '--json'),
      { env },
    );
    assert.equal(text.code, 4);
    assert.match(text.stdout, new RegExp(`retry after ${new Date(now + HOUR).toISOString()}`));
    server.setQuota('openai', { markedAt: now - 5000 });
    const e = await cli(
      'recover',
      recoverArgs(id).filter((a) => a !== '--json'),
      { env },
    );
    assert.equal(e.code, 5, e.stderr);
    assert.match(e.stdout, /openai\s+markedAt \S+\s+resetAt unknown/);
    const ej = await cli('recover', recoverArgs(id), { env });
    assert.ok(
      (ej.json as { marks: Array<{ provider: string; markedAt: number; resetAt: number | null }> }).marks.some(
        (m) => m.provider === 'openai' && m.markedAt === now - 5000 && m.resetAt === null,
      ),
    );
    const plain = d.addSession({ state: 'idle' });
    d.addMessage(plain, { text: 'just idle' });
    const ref = await cli('recover', recoverArgs(plain), { env });
    assert.equal(ref.code, 3);
    assert.equal((ref.json as { decision: string }).decision, 'refused');
    assert.match(ref.stderr, /use wake/);
    assert.equal(server.prompts.length, 0);
    assert.equal((await cli('recover', [id, ...base, '--spacing', '5'], { env })).code, 2, 'spacing under 30 s');
  });

  it('dispatch: 0 sent with the report block; 3 refused naming the provider to use instead', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    const task = file('task.md', 'Implement PROJ-5: the CRLF fix.');
    const ok = await cli(
      'dispatch',
      [id, ...base, '--prompt-file', task, '--model', 'openai/gpt-5', '--ticket', 'PROJ-5', '--json'],
      { env: { ...env, SESSION_OPS_ORCHESTRATOR: 'ses_orch2' } },
    );
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(ok.json, {
      session: id,
      model: { providerID: 'openai', modelID: 'gpt-5' },
      sent: true,
      instead: null,
      variant: null,
      newSession: false,
    });
    const text = server.prompts[0].payload.parts[0].text;
    assert.ok(text.startsWith('Implement PROJ-5: the CRLF fix.\n\nCompletion report protocol:'));
    assert.match(text, /the orchestrator session ses_orch2/);
    assert.match(text, /report status=blocked reason=quota-exhausted/);
    const now = Date.now();
    server.setQuota('openai', { markedAt: now, resetAt: now + HOUR });
    const marked = await cli('dispatch', [id, ...base, '--prompt-file', task, '--model', 'openai/gpt-5', '--json'], {
      env,
    });
    assert.equal(marked.code, 3);
    assert.deepEqual(marked.json, {
      session: id,
      model: { providerID: 'openai', modelID: 'gpt-5' },
      sent: false,
      instead: 'anthropic',
      variant: null,
      newSession: false,
    });
    const off = await cli('dispatch', [id, ...base, '--prompt-file', task, '--model', 'groq/llama', '--json'], { env });
    assert.equal(off.code, 3);
    assert.equal((off.json as { instead: string }).instead, 'anthropic');
    assert.equal(server.prompts.length, 1);
    assert.equal((await cli('dispatch', [id, ...base, '--prompt-file', task], { env })).code, 2, '--model is required');
  });

  it('compose: prints (or writes --out) the prompt the editor would send; read-only', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'PROJ-3 rename' });
    d.addMessage(id, { error: { text: 'Free limit reached', reason: 'free_tier_limit', provider: 'anthropic' } });
    const out = path.join(tmp, 'wake.md');
    const q = await cli('compose', ['quota-wake', id, ...base, '--out', out], { env });
    assert.equal(q.code, 0, q.stderr);
    const text = readFileSync(out, 'utf8');
    assert.match(text, /free-tier limit on anthropic/);
    assert.match(text, /You now run on openai\/gpt-5/);
    assert.match(text, /ticket=PROJ-3/);
    const w = await cli('compose', ['wake', id, ...base, '--task', 'Rename things', '--resume', 'finish the rename'], {
      env,
    });
    assert.equal(w.code, 0);
    // At a quota wall, `compose wake` gives the quota-wall prompt: such a session is woken only with it.
    assert.match(w.stdout, /^What happened: your previous turn was killed by a free-tier limit on anthropic/);
    assert.match(w.stdout, /Where to resume: finish the rename/);
    const calm = d.addSession({ state: 'idle', title: 'PROJ-4 idle' });
    const cw = await cli('compose', ['wake', calm, ...base, '--resume', 'finish the rename'], { env });
    assert.equal(cw.code, 0, cw.stderr);
    assert.match(cw.stdout, /Resume with: finish the rename/);
    const facts = file(
      'facts.json',
      JSON.stringify({
        event: 'restart',
        facts: [{ statement: 'PR #4 merged', source: 'https://x/4', at: '2026-01-01' }],
        invalidAssumptions: ['none'],
        assignment: 'rebase',
      }),
    );
    assert.equal((await cli('compose', ['fact-baseline', id, ...base, '--facts', facts], { env })).code, 0);
    const disp = await cli('compose', ['dispatch', id, ...base, '--prompt-file', file('t.md', 'Task body')], { env });
    assert.match(disp.stdout, /^Task body\n\nCompletion report protocol:/);
    const plain = d.addSession({ state: 'idle' });
    assert.equal((await cli('compose', ['quota-wake', plain, ...base], { env })).code, 3, 'not at a wall');
    assert.equal((await cli('compose', ['nonsense', id, ...base], { env })).code, 2);
    assert.equal((await cli('compose', ['fact-baseline', id, ...base], { env })).code, 2, 'facts required');
    assert.ok(
      server.requests.every((r) => r.method === 'GET'),
      'compose only reads',
    );
  });
});
