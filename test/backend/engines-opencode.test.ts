// Both session engines of one real opencode 1.18.33 server (the old routes and `/api`), with
// sessions driven through each in one directory, and an "opencode 2" run: the same server behind a
// proxy that answers 404 to every old-surface path (test/support/old-surface-blocker.ts), all
// sessions driven through `/api`. For each scripted state the verdict and action of one status run
// per surface, side by side (the table is printed); actions (abort, wake) through the engine that
// holds the session; another directory's sessions never appear; the API key never shows.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackendClient } from '../../src/core/backend/client';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startOldSurfaceBlocker, type OldSurfaceBlocker } from '../support/old-surface-blocker';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { PRICE } from '../support/transcript-cost';
import { cli } from './actions-cli';
import { assertDocumentShape, status, statusArgs, waitFor, type StatusRun } from './helpers';
import { startWatch, type WatchProcess } from './watch-process';

const API_KEY = 'sk-engines-DO-NOT-PRINT-7731';
const LOCAL = { providerID: 'local', modelID: 'm1' };
/** The local model lists a variant table (its options are opencode's business: sent as reasoning_effort). */
const M1 = {
  name: 'M1',
  cost: PRICE,
  variants: { high: { reasoningEffort: 'high' }, low: { reasoningEffort: 'low' } },
};
const ROUTING = `version: 1
default: {entry: {skill: null, mode: null}}
routes:
  Kind/Bug:
    entry: {skill: implement, mode: bugfix}
    effort: high
`;
const STATES = ['healthy', 'hung', '402', 'quota wall', 'report', 'idle with work', 'waiting'] as const;
type State = (typeof STATES)[number];
type Surface = 'legacy' | 'api' | 'proxy';

/** The prompt text of each state (its marker picks the scripted model's behaviour). */
const text = (state: State, surface: Surface) => `do it [${state}-${surface}]`;

/** The `/api` engine reads its config from the directory, not from OPENCODE_CONFIG_CONTENT. */
function writeDirectoryConfig(dir: string, modelUrl: string): void {
  writeFileSync(
    path.join(dir, 'opencode.json'),
    JSON.stringify({
      model: 'local/m1',
      small_model: 'local/m1',
      permission: { bash: 'ask' },
      provider: {
        local: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Local',
          options: { baseURL: modelUrl, apiKey: API_KEY },
          models: { m1: M1 },
        },
      },
    }),
  );
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}`);
  return res.status === 204 ? {} : ((await res.json()) as Record<string, unknown>);
}

/** The cost and tokens of a session summed over its `/api` assistant messages (the whole list: the truth). */
async function apiTruth(
  baseUrl: string,
  directory: string,
  id: string,
): Promise<{ usd: number; input: number; output: number; messages: number }> {
  const res = await fetch(`${baseUrl}api/session/${id}/message?limit=200`, {
    headers: { 'x-opencode-directory': encodeURIComponent(directory) },
  });
  const list = ((await res.json()) as { data: Array<Record<string, unknown>> }).data;
  const truth = { usd: 0, input: 0, output: 0, messages: 0 };
  for (const m of list)
    if (m.type === 'assistant') {
      const tokens = m.tokens as { input: number; output: number };
      truth.usd += m.cost as number;
      truth.input += tokens.input;
      truth.output += tokens.output;
      truth.messages++;
    }
  return truth;
}

/** A session created and prompted through `/api` (as new frontends do). */
async function apiLaunch(baseUrl: string, directory: string, prompt: string): Promise<string> {
  const created = (await post(`${baseUrl}api/session`, { location: { directory } })).data as { id: string };
  await post(`${baseUrl}api/session/${created.id}/prompt`, { prompt: { text: prompt } });
  return created.id;
}

describe('both engines of opencode 1.18.33, and opencode 2 (old routes blocked)', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let blocker: OldSurfaceBlocker;
  let root: string;
  let dir: string;
  let proxyDir: string;
  let otherDir: string;
  const ids = new Map<string, string>();
  const runs = new Map<Surface, StatusRun>();
  const outputs: string[] = [];

  before(async function () {
    // Three surfaces of scripted states, and the old engine's healthy stream waited out: slow on a loaded machine.
    this.timeout(300_000);
    model = await startScriptedModel();
    oc = await startOpencode({
      modelUrl: model.url,
      apiKey: API_KEY,
      configure: (c) => {
        const provider = c.provider as Record<string, { models: Record<string, unknown> }>;
        provider.local.models = { m1: M1 };
        return { ...c, permission: { bash: 'ask' } };
      },
    });
    blocker = await startOldSurfaceBlocker(oc.baseUrl);
    root = mkdtempSync(path.join(os.tmpdir(), 'session-ops-engines-'));
    // Directories with a space and non-ASCII letters: the header is percent-encoded.
    dir = path.join(root, 'both engines ü');
    proxyDir = path.join(root, 'opencode 2 é');
    otherDir = path.join(root, 'other');
    for (const d of [dir, proxyDir, otherDir]) {
      mkdirSync(d, { recursive: true });
      writeDirectoryConfig(d, model.url);
    }
    for (const surface of ['legacy', 'api', 'proxy'] as const) {
      // The old engine's healthy stream ends well before the proxy run (see below); the others outlast it.
      const chunks = surface === 'legacy' ? 450 : 1500;
      model.when(`[healthy-${surface}]`, { kind: 'reply', text: 'word '.repeat(chunks), chunks, delayMs: 100 });
      model.when(`[hung-${surface}]`, { kind: 'stall' });
      model.when(`[402-${surface}]`, { kind: 'balance' });
      model.when(`[quota wall-${surface}]`, { kind: 'rate-limit', retryAfter: 7200 });
      model.when(`[report-${surface}]`, {
        kind: 'reply',
        text: 'All green.\nticket=PROJ-7 status=done summary="engines done"',
      });
      model.when(`[idle with work-${surface}]`, { kind: 'reply', text: 'I looked; the fix comes next.' });
      model.when(`[waiting-${surface}]`, {
        kind: 'tool-calls',
        calls: [{ tool: 'bash', args: { command: 'ls', description: 'list' } }],
        then: 'listed',
      });
    }
    // Warm the directories' `/api` locations (the first provider read of a cold one is empty).
    for (const d of [dir, proxyDir, otherDir])
      await waitFor('the /api model listing', async () => {
        const res = await fetch(`${oc.baseUrl}api/model`, {
          headers: { 'x-opencode-directory': encodeURIComponent(d) },
        });
        const body = (await res.json()) as { data: Array<{ providerID: string }> };
        return body.data.some((m) => m.providerID === 'local');
      });
    for (const state of STATES) {
      ids.set(`legacy:${state}`, await launchSession(oc, dir, undefined, text(state, 'legacy'), LOCAL));
      ids.set(`api:${state}`, await apiLaunch(oc.baseUrl, dir, text(state, 'api')));
      ids.set(`proxy:${state}`, await apiLaunch(blocker.url, proxyDir, text(state, 'proxy')));
    }
    ids.set('other', await apiLaunch(oc.baseUrl, otherDir, text('report', 'api')));
    // Every scripted state has reached the model (the waiting ones asked for their permission).
    await waitFor(
      'every state at the model',
      () =>
        STATES.every((s) =>
          (['legacy', 'api', 'proxy'] as const).every((surface) =>
            model.requests.some((r) => r.lastUserText.includes(`[${s}-${surface}]`)),
          ),
        ),
      60_000,
    );
    // The finished ones have finished (report, idle with work, 402).
    const probe = new BackendClient({ baseUrl: oc.baseUrl });
    try {
      for (const surface of ['legacy', 'api', 'proxy'] as const)
        for (const state of ['report', 'idle with work', '402'] as const) {
          const id = ids.get(`${surface}:${state}`)!;
          await waitFor(`${surface} ${state} to finish`, async () => {
            const m = await probe.newestMessage(surface === 'proxy' ? proxyDir : dir, id);
            return m?.role === 'assistant' && (m.completedAt !== null || m.finish === 'error');
          });
        }
    } finally {
      await probe.close();
    }
    runs.set('legacy', await status(statusArgs(oc.baseUrl, dir)));
    runs.set('api', runs.get('legacy')!);
    // 1.18.33 ends GET /api/event again and again while its old engine streams (observed): the
    // opencode 2 run, which has no old engine, starts once the old engine's healthy stream ended.
    const quiet = new BackendClient({ baseUrl: oc.baseUrl });
    try {
      await waitFor(
        'the old engine to stop streaming',
        async () => (await quiet.newestMessage(dir, ids.get('legacy:healthy')!))?.completedAt != null,
        90_000,
      );
    } finally {
      await quiet.close();
    }
    runs.set(
      'proxy',
      await status([
        '--base-url',
        blocker.url,
        '--directory',
        proxyDir,
        '--spacing',
        '6',
        '--allow-short-spacing',
        '--json',
      ]),
    );
    for (const r of new Set(runs.values())) outputs.push(r.stdout, r.stderr);
  });

  after(async function () {
    model?.releaseStalls();
    await blocker?.stop();
    await oc?.stop();
    await model?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const row = (surface: Surface, state: State) => {
    const s = runs.get(surface)!.session(ids.get(`${surface}:${state}`)!);
    return { verdict: s.verdict, action: s.action, engine: s.engine, basis: s.basis, actionBasis: s.actionBasis };
  };

  it('one table: each scripted state, verdict and action on the old engine, on /api, and behind the blocking proxy', () => {
    for (const r of new Set(runs.values())) {
      assert.equal(r.code, 0, r.stderr);
      assertDocumentShape(r.doc!);
    }
    const lines = [
      '| state | old engine | /api engine (1.18.33) | /api behind the blocking proxy |',
      '|---|---|---|---|',
    ];
    for (const state of STATES) {
      const cell = (surface: Surface) => {
        const r = row(surface, state);
        return `${r.verdict} / ${r.action}`;
      };
      lines.push(`| ${state} | ${cell('legacy')} | ${cell('api')} | ${cell('proxy')} |`);
    }
    const table = lines.join('\n');
    const file = path.join(os.tmpdir(), `session-ops-engines-table-${process.pid}.md`);
    writeFileSync(file, `${table}\n`);
    console.log(`${table}\n(the table is written to ${file})`);
    for (const state of STATES)
      for (const surface of ['legacy', 'api', 'proxy'] as const)
        console.log(`  ${surface} ${state}: ${row(surface, state).basis} | ${row(surface, state).actionBasis}`);
    // The hung session's provider carries the wall the quota-wall session of its directory left
    // when that wall was seen (the old engine's retry status): then the action is recover.
    for (const surface of ['legacy', 'api', 'proxy'] as const) {
      const r = row(surface, 'hung');
      assert.equal(r.verdict, 'hung', `${surface}: ${r.basis}`);
      assert.ok(['abort-and-wake', 'recover'].includes(r.action), `${surface}: ${r.actionBasis}`);
    }
    const expected: Record<Exclude<State, 'quota wall' | 'hung'>, [string, string]> = {
      healthy: ['healthy', 'leave-alone'],
      '402': ['idle', 'escalate'],
      report: ['idle', 'harvest'],
      'idle with work': ['idle', 'wake'],
      waiting: ['waiting', 'answer'],
    };
    for (const [state, want] of Object.entries(expected))
      for (const surface of ['legacy', 'api', 'proxy'] as const) {
        const r = row(surface, state as State);
        assert.deepEqual([r.verdict, r.action], want, `${surface} ${state}: ${r.basis} | ${r.actionBasis}`);
      }
  });

  it('each session is read through the engine that holds it: status --json says which', () => {
    for (const state of STATES) {
      assert.equal(row('legacy', state).engine, 'legacy', state);
      assert.equal(row('api', state).engine, 'api', state);
      assert.equal(row('proxy', state).engine, 'api', state);
    }
    assert.equal(runs.get('proxy')!.doc!.dialect, 'opencode');
  });

  it('cost and tokens of /api sessions are summed from their messages (the engine leaves the session at 0)', () => {
    for (const surface of ['legacy', 'api', 'proxy'] as const) {
      const s = runs.get(surface)!.session(ids.get(`${surface}:report`)!);
      if (s.costPending) continue; // not summed within this run's rounds: never shown as 0
      assert.ok(s.cost, `${surface}: a cost`);
      assert.equal(s.cost.tokens.input, 10, `${surface}: the scripted model's usage`);
      assert.equal(s.cost.tokens.output, 5);
    }
    const api = runs.get('proxy')!.session(ids.get('proxy:report')!);
    assert.ok(api.costPending || api.cost?.messages === 1, JSON.stringify(api.cost));
  });

  it("another directory's sessions never appear, on either surface", () => {
    for (const r of new Set(runs.values())) {
      const listed = r.doc!.sessions.map((s) => s.id);
      assert.ok(!listed.includes(ids.get('other')!), 'the other directory’s session is not listed');
    }
    const both = runs.get('legacy')!.doc!.sessions.map((s) => s.id);
    for (const state of STATES) assert.ok(!both.includes(ids.get(`proxy:${state}`)!));
  });

  it('behind the proxy nothing of the old surface is required: every old path it was asked answered 404 and all went on', () => {
    assert.ok(
      blocker.log.some((r) => r.blocked && r.path === '/session'),
      'the old list was asked and answered 404',
    );
    assert.ok(blocker.log.some((r) => r.path === '/api/session/active'));
    assert.ok(blocker.log.some((r) => r.path === '/api/event'));
    const proxied = runs.get('proxy')!;
    assert.equal(proxied.code, 0, proxied.stderr);
  });

  it('watch over the old-surface-blocking proxy: /api/status rows and /metrics show the /api sessions with their verdicts, cost and tokens summed from messages', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-engines-watch-'));
    let watch: WatchProcess | undefined;
    try {
      const token = 'sot_engines-watch-test-token-0123456789abcdefghij';
      const auth = { authorization: `Bearer ${token}` };
      watch = await startWatch(tmp, blocker.url, proxyDir, { readToken: token });
      const base = watch.metricsUrl.replace(/\/metrics$/, '');
      // The states that hold still while nothing acts (automatic mode is off). A wall's action
      // follows the provider listing the daemon holds (recover onto a free provider, else escalate).
      const want: Record<string, [string, string[]]> = {
        hung: ['hung', ['abort-and-wake', 'recover', 'escalate']],
        '402': ['idle', ['escalate']],
        'quota wall': ['idle', ['recover', 'escalate']],
        report: ['idle', ['harvest']],
        'idle with work': ['idle', ['wake']],
        waiting: ['waiting', ['answer']],
      };
      type Row = {
        id: string;
        verdict: string;
        action: string;
        engine: string | null;
        basis: string;
        actionBasis: string;
        quotaWall: unknown;
        cost: { usd: number; tokens: { input: number; output: number }; messages: number | null } | null;
      };
      let seen = '';
      const rows = await waitFor(
        'the /api sessions settled in /api/status',
        async () => {
          const body = (await (await fetch(`${base}/api/status`, { headers: auth })).json()) as {
            backends: Array<{ up: boolean; documents: Array<{ dialect: string; sessions: Row[] }> }>;
          };
          const doc = body.backends[0]?.documents[0];
          if (!body.backends[0]?.up || !doc) return null;
          const byState = new Map(
            Object.keys(want).map((state) => [state, doc.sessions.find((x) => x.id === ids.get(`proxy:${state}`))]),
          );
          seen = [...byState]
            .map(
              ([state, r]) =>
                `${state}: ${r ? `${r.verdict} / ${r.action} cost ${JSON.stringify(r.cost)} | ${r.basis} | ${r.actionBasis} | ${JSON.stringify(r.quotaWall)}` : 'absent'}`,
            )
            .join('\n');
          const settled = [...byState].every(
            ([state, r]) => r && r.verdict === want[state][0] && want[state][1].includes(r.action),
          );
          return settled && byState.get('report')?.cost ? { doc, byState } : null;
        },
        60_000,
        500,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${seen}\n${watch?.output().slice(-3000)}`, { cause: err });
      });
      assert.equal(rows.doc.dialect, 'opencode');
      for (const [state, r] of rows.byState) assert.equal(r!.engine, 'api', state);
      assert.equal(
        (rows.byState.get('quota wall')!.quotaWall as { category?: string } | null)?.category,
        'rate-limit',
        'the 429 stored by the /api engine reads as a rate-limit wall',
      );
      assert.equal((rows.byState.get('402')!.quotaWall as { category?: string } | null)?.category, 'balance');
      const report = rows.byState.get('report')!;
      const truth = await apiTruth(oc.baseUrl, proxyDir, ids.get('proxy:report')!);
      assert.ok(truth.input > 0, 'the scripted model reported usage');
      assert.deepEqual(
        [report.cost!.usd, report.cost!.tokens.input, report.cost!.tokens.output, report.cost!.messages],
        [truth.usd, truth.input, truth.output, truth.messages],
        'summed from the /api messages',
      );
      // /metrics: one verdict series per session with its action, the tokens and the cost.
      const metrics = await (await fetch(watch.metricsUrl)).text();
      for (const [state, [verdict]] of Object.entries(want)) {
        const line = metrics
          .split('\n')
          .find(
            (l) => l.startsWith('session_ops_session_verdict{') && l.includes(`session="${ids.get(`proxy:${state}`)}"`),
          );
        assert.ok(line?.includes(`verdict="${verdict}"`), `${state}: ${line}`);
        assert.ok(line?.endsWith(' 1'), `${state}: ${line}`);
      }
      const session = `session="${ids.get('proxy:report')}"`;
      assert.equal(await watch.metric('session_ops_session_tokens', `${session},type="input"`), truth.input);
      assert.equal(await watch.metric('session_ops_session_tokens', `${session},type="output"`), truth.output);
      assert.equal(await watch.metric('session_ops_session_cost_usd', session), truth.usd);
      assert.equal(await watch.metric('session_ops_backend_up', 'backend="oc"'), 1);
      // status --json over the proxy: the same figures.
      const run = await status(statusArgs(blocker.url, proxyDir));
      outputs.push(run.stdout, run.stderr);
      const cost = run.session(ids.get('proxy:report')!).cost;
      assert.deepEqual([cost?.usd, cost?.tokens.input, cost?.tokens.output], [truth.usd, truth.input, truth.output]);
      assert.ok(
        blocker.log.filter((r) => !r.blocked).every((r) => r.path.startsWith('/api/') || r.path === '/doc'),
        'nothing of the old surface went through',
      );
    } finally {
      if (watch) outputs.push(watch.output());
      watch?.stop();
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('abort through the engine that holds it: the /api hung session is interrupted, idle confirmed; the old engine never ran it', async () => {
    for (const [surface, base, d] of [
      ['api', oc.baseUrl, dir],
      ['proxy', blocker.url, proxyDir],
    ] as const) {
      const id = ids.get(`${surface}:hung`)!;
      const r = await cli('abort', [id, '--base-url', base, '--directory', d, '--json']);
      outputs.push(r.stdout, r.stderr);
      assert.equal(r.code, 0, `${surface}: ${r.stderr}`);
      const c = new BackendClient({ baseUrl: oc.baseUrl });
      try {
        const m = await c.newestMessage(d, id);
        assert.equal(m?.finish, 'error');
        assert.match(m?.failure?.text ?? '', /interrupted/);
        // The old engine has no message of it: nothing was sent to the wrong engine.
        const old = await fetch(`${oc.baseUrl}session/${id}/message?directory=${encodeURIComponent(d)}&limit=1`);
        assert.deepEqual(await old.json(), []);
      } finally {
        await c.close();
      }
    }
  });

  it('wake through the engine that holds it, on an explicit listed model, confirmed by a new /api turn', async () => {
    for (const [surface, base, d] of [
      ['api', oc.baseUrl, dir],
      ['proxy', blocker.url, proxyDir],
    ] as const) {
      const id = ids.get(`${surface}:idle with work`)!;
      model.when(`[woken-${surface}]`, { kind: 'reply', text: 'Continuing.' });
      const file = path.join(root, `wake-${surface}.md`);
      writeFileSync(file, `Wake up [woken-${surface}]`);
      const r = await cli('wake', [
        id,
        '--base-url',
        base,
        '--directory',
        d,
        '--prompt-file',
        file,
        '--model',
        'local/m1',
        '--json',
      ]);
      outputs.push(r.stdout, r.stderr);
      assert.equal(r.code, 0, `${surface}: ${r.stderr}`);
      const { session, model: on, aborted, confirmed } = r.json as Record<string, unknown>;
      assert.deepEqual(
        { session, model: on, aborted, confirmed },
        { session: id, model: LOCAL, aborted: false, confirmed: true },
      );
      await waitFor(`the ${surface} wake prompt at the model`, () =>
        model.requests.some((q) => q.lastUserText.includes(`[woken-${surface}]`)),
      );
      const old = await fetch(`${oc.baseUrl}session/${id}/message?directory=${encodeURIComponent(d)}&limit=1`);
      assert.deepEqual(await old.json(), [], 'the old engine ran nothing of it');
    }
  });

  it('a model the engine does not list is refused before anything is sent', async () => {
    const id = ids.get('api:report')!;
    const file = path.join(root, 'wake-unknown.md');
    writeFileSync(file, 'Wake up [never-sent]');
    const r = await cli('wake', [
      id,
      '--base-url',
      oc.baseUrl,
      '--directory',
      dir,
      '--prompt-file',
      file,
      '--model',
      'nope/zzz',
    ]);
    outputs.push(r.stdout, r.stderr);
    assert.notEqual(r.code, 0);
    const res = await fetch(`${oc.baseUrl}api/session/${id}`);
    const body = (await res.json()) as { data: { model?: { providerID: string } } };
    assert.notEqual(body.data.model?.providerID, 'nope', 'the session was never switched to it');
    assert.ok(!model.requests.some((q) => q.lastUserText.includes('[never-sent]')), 'nothing reached the model');
  });

  it('dispatch by route with an effort on /api: the variant travels in the model switch, is re-read, and the new turn runs on it', async () => {
    for (const [surface, base, d] of [
      ['api', oc.baseUrl, dir],
      ['proxy', blocker.url, proxyDir],
    ] as const) {
      const id = ids.get(`${surface}:report`)!;
      const routing = path.join(root, `routing-${surface}.yaml`);
      writeFileSync(routing, ROUTING);
      const asked = model.requests.length;
      const r = await cli(
        'dispatch',
        [
          id,
          '--base-url',
          base,
          '--directory',
          d,
          '--model',
          'local/m1',
          '--routing',
          routing,
          '--label',
          'Kind/Bug',
          '--ticket',
          `PROJ-${surface === 'api' ? 81 : 82}`,
          '--json',
        ],
        { env: { SESSION_OPS_STATE_DIR: path.join(root, `state-${surface}`), SESSION_OPS_ORCHESTRATOR: 'ses_orch' } },
      );
      outputs.push(r.stdout, r.stderr);
      assert.equal(r.code, 0, `${surface}: ${r.stderr}`);
      assert.deepEqual(
        r.json,
        { session: id, model: LOCAL, sent: true, instead: null, variant: 'high', newSession: false },
        surface,
      );
      const session = (await (await fetch(`${oc.baseUrl}api/session/${id}`)).json()) as {
        data: { model?: { id: string; providerID: string; variant?: string } };
      };
      assert.deepEqual(session.data.model, { id: 'm1', providerID: 'local', variant: 'high' }, surface);
      const turn = await waitFor(`the ${surface} dispatch turn`, async () => {
        const res = await fetch(`${oc.baseUrl}api/session/${id}/message?limit=1`, {
          headers: { 'x-opencode-directory': encodeURIComponent(d) },
        });
        const m = ((await res.json()) as { data: Array<Record<string, unknown>> }).data[0];
        return m?.type === 'assistant' && (m.time as { completed?: number }).completed ? m : null;
      });
      assert.deepEqual(turn.model, { id: 'm1', providerID: 'local', variant: 'high' }, `${surface}: the turn's model`);
      const reached = model.requests.slice(asked).filter((q) => q.lastUserText.includes('PROJ-8'));
      assert.ok(reached.length > 0, `${surface}: the dispatch reached the model`);
      assert.ok(
        reached.every((q) => q.reasoningEffort === 'high'),
        `${surface}: the provider was asked with the variant's option`,
      );
      const old = await fetch(`${oc.baseUrl}session/${id}/message?directory=${encodeURIComponent(d)}&limit=1`);
      assert.deepEqual(await old.json(), [], `${surface}: the old engine ran nothing of it`);
    }
  });

  it('the API key (echoed by /api/provider) never shows in any output', () => {
    for (const o of outputs) assert.ok(!o.includes(API_KEY), 'the key leaked into an output');
  });
});
