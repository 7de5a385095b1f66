// The demo's embedded backends, on loopback:
//   - the real opencode server (npm opencode-ai) with a private HOME, password-protected, the
//     scripted local model as provider `local`, a second configured provider `backup` to recover
//     onto, and the built-in `opencode` provider disabled. One session per state stock opencode
//     can show: a tool loop (healthy), a stream that stalls (hung), a completion report (harvest),
//     an idle session with unfinished work (wake), a long retry-after 429 (quota wall), a 402
//     balance failure (escalate) and a bash call waiting for a permission; and, in the same
//     directory, sessions driven through opencode's `/api` engine (as new frontends drive them: a
//     stream that stalls, a completion report, unfinished work), read and acted on through `/api`;
//     Every message on `local` costs $0.05 (DEMO_PRICE): the tool loop of DEMO-1 crosses the
//     demo's $1 budget per session within a minute or two;
//   - a spec-dialect server for what stock opencode cannot show: progress counters and quota
//     objects with reset times, and a line meant as a completion report that does not parse.
// Every request the demo makes here has a deadline.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { opencodeConfig, startOpencode, startScriptedModel, startSpecServer } from '../test/support/backends.mjs';

const SPEC_DIR = '/demo/ports/payments';
const REQUEST_TIMEOUT_MS = 10_000;

/** The opencode sessions: title, the prompt (its marker picks the scripted behaviour), the badge each settles on. */
export const OPENCODE_SESSIONS = [
  { title: 'DEMO-1 long refactor', text: 'refactor the ledger [busy]', badge: 'healthy' },
  { title: 'DEMO-2 data model port', text: 'port the data model [stall]', badge: 'hung' },
  { title: 'DEMO-3 verify the README', text: 'verify the README [report]', badge: 'report: done' },
  { title: 'DEMO-4 error codes', text: 'map the error codes [lazy]', badge: 'idle' },
  // A wall marks its provider: each wall has a provider of its own, so the others stay free.
  { title: 'DEMO-5 fidelity baseline', text: 'write the baseline [walled]', badge: 'quota wall', provider: 'burst' },
  { title: 'DEMO-6 public API', text: 'port the public API [broke]', badge: 'quota wall', provider: 'prepaid' },
  // Its `git push` waits for a permission (GET /permission lists it).
  { title: 'DEMO-7 release', text: 'publish the release [ask]', badge: 'waiting for you' },
  // Driven through the `/api` engine (created by the old routes for their titles, prompted on `/api`).
  { title: 'DEMO-8 schema migration (/api)', text: 'migrate the schema [stall]', badge: 'hung', engine: 'api' },
  { title: 'DEMO-9 changelog (/api)', text: 'write the changelog [api-report]', badge: 'report: done', engine: 'api' },
  { title: 'DEMO-10 CLI flags (/api)', text: 'port the CLI flags [lazy]', badge: 'idle', engine: 'api' },
];

/** The spec-dialect sessions and the badge each settles on. */
export const SPEC_SESSIONS = [
  { title: 'PAY-101 port the invoice API', badge: 'healthy' },
  { title: 'PAY-102 data model', badge: 'hung' },
  { title: 'PAY-103 error codes', badge: 'idle' },
  { title: 'PAY-104 fidelity baseline', badge: 'quota wall' },
  { title: 'PAY-105 business rules', badge: 'report: done' },
  { title: 'PAY-106 public API', badge: 'report: blocked' },
  { title: 'PAY-107 currency rounding', badge: 'malformed report: read it' },
];

function seedSpec(spec) {
  const now = Date.now();
  spec.setProviders(
    [
      // The listing names each provider's models, so a refused dispatch can name a model on the other.
      { id: 'anthropic', name: 'Anthropic', models: { 'claude-sonnet-4': { name: 'Claude Sonnet 4' } } },
      { id: 'openai', name: 'OpenAI', models: { 'gpt-5': { name: 'GPT-5' } } },
      { id: 'local', name: 'Local', models: { m1: { name: 'M1' } } },
    ],
    ['anthropic', 'openai', 'local'],
  );
  spec.setQuota('anthropic', { markedAt: now - 25 * 60_000, resetAt: now + 3 * 3600_000 });
  const d = spec.directory(SPEC_DIR);
  const healthy = d.addSession({
    title: SPEC_SESSIONS[0].title,
    state: 'generating',
    progress: { stepCount: 41, lastStepAt: now },
  });
  d.addMessage(healthy, {
    role: 'assistant',
    text: 'Porting the invoice endpoints...',
    info: { providerID: 'openai', modelID: 'gpt-5' },
  });
  const hung = d.addSession({
    title: SPEC_SESSIONS[1].title,
    state: 'generating',
    progress: { stepCount: 17, lastStepAt: now - 12 * 60_000 },
  });
  d.addMessage(hung, { role: 'assistant', text: 'Compacting...', info: { providerID: 'openai', modelID: 'gpt-5' } });
  const idle = d.addSession({ title: SPEC_SESSIONS[2].title, state: 'idle' });
  d.addMessage(idle, { role: 'assistant', text: 'I mapped half of the error codes; next I will do the rest.' });
  const wall = d.addSession({ title: SPEC_SESSIONS[3].title, state: 'idle' });
  d.addMessage(wall, {
    role: 'assistant',
    finish: 'error',
    error: {
      text: 'Weekly usage limit reached. Resets in about 3 hours.',
      reason: 'account_usage_limit',
      provider: 'anthropic',
    },
  });
  const done = d.addSession({ title: SPEC_SESSIONS[4].title, state: 'idle' });
  d.addMessage(done, {
    role: 'assistant',
    text: 'ticket=PAY-105 label=Kind/Port status=done pr=#88 summary="RULE-01..RULE-14 ported, all green"',
  });
  const blocked = d.addSession({ title: SPEC_SESSIONS[5].title, state: 'idle' });
  d.addMessage(blocked, {
    role: 'assistant',
    text: 'ticket=PAY-106 status=blocked reason=quota-exhausted summary="usage limit on the second provider"',
  });
  // Meant as a report (it starts with a report key and names ticket and status) but its status is
  // none of done, blocked or handoff: a malformed report a person must read, never woken over.
  const malformed = d.addSession({ title: SPEC_SESSIONS[6].title, state: 'idle' });
  d.addMessage(malformed, {
    role: 'assistant',
    text: 'ticket=PAY-107 status=finished summary="rounding follows the ledger, half-even"',
  });
  // A woken session answers and goes back to work.
  spec.onPrompt = (record, dir) => {
    dir.setSession(record.sessionId, {
      state: 'generating',
      progress: {
        stepCount: (dir.sessions.get(record.sessionId)?.progress?.stepCount ?? 0) + 1,
        lastStepAt: Date.now(),
      },
    });
    dir.addMessage(record.sessionId, {
      role: 'assistant',
      text: 'Resumed and working.',
      info: { providerID: record.payload.model?.providerID, modelID: record.payload.model?.modelID },
    });
  };
  const ticker = setInterval(() => {
    d.step(healthy, 1);
    for (const [id, s] of d.sessions) if (id !== healthy && id !== hung && s.state === 'generating') d.step(id, 1);
  }, 5_000);
  ticker.unref();
  return () => clearInterval(ticker);
}

/** The opencode config: the scripted model as `local`, `burst` (429), `prepaid` (402) and `backup`; `opencode` disabled; `git push` asks first. */
/** The price of `local/m1` per million tokens: the scripted model's 10 in / 5 out cost $0.05 a message. */
export const DEMO_PRICE = { input: 2000, output: 6000, cache_read: 200, cache_write: 2500 };

function demoConfig(modelUrl) {
  return (config) => ({
    ...config,
    disabled_providers: ['opencode'],
    provider: {
      ...config.provider,
      local: {
        ...config.provider.local,
        models: { m1: { ...config.provider.local.models.m1, cost: DEMO_PRICE } },
      },
      burst: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Burst',
        options: { baseURL: modelUrl, apiKey: 'sk-burst-demo' },
        models: { m1: { name: 'M1' } },
      },
      prepaid: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Prepaid',
        options: { baseURL: modelUrl, apiKey: 'sk-prepaid-demo' },
        models: { m1: { name: 'M1' } },
      },
      backup: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Backup',
        options: { baseURL: modelUrl, apiKey: 'sk-backup-demo' },
        models: { b1: { name: 'B1' } },
      },
    },
    permission: { bash: { '*': 'allow', 'git push*': 'ask' } },
  });
}

/** Polls `probe` every 200 ms until it is true; throws naming `what` after 20 s. */
async function waitUntil(what, probe) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function request(url, init, auth) {
  const res = await fetch(url, {
    ...init,
    headers: { ...(init?.headers ?? {}), authorization: auth },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`${init?.method ?? 'GET'} ${new URL(url).pathname} answered ${res.status}`);
  return res;
}

/**
 * Starts both backends and the sessions. Returns the settings for `sessionOps.backends`, the
 * opencode password (set through the extension's command, never in settings) and stop().
 */
export async function startDemoBackends({ log = console.log } = {}) {
  const stops = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    const spec = await startSpecServer();
    stops.push(() => spec.stop());
    const stopTicker = seedSpec(spec);
    stops.push(async () => stopTicker());

    const model = await startScriptedModel();
    stops.push(() => model.stop());
    model.when('[busy]', { kind: 'tool-loop', command: 'sleep 2', rounds: 100000 });
    model.when('[stall]', { kind: 'stall', text: 'Reading the schema' });
    model.when('[report]', {
      kind: 'reply',
      text: 'All checks pass.\nticket=DEMO-3 status=done pr=#1 summary="README example verified"',
      chunks: 4,
    });
    model.when('[api-report]', {
      kind: 'reply',
      text: 'Changelog written.\nticket=DEMO-9 status=done summary="changelog for 0.1.0 written"',
      chunks: 4,
    });
    model.when('[lazy]', { kind: 'reply', text: 'I mapped half of the error codes; the rest comes next.' });
    model.when('[walled]', {
      kind: 'rate-limit',
      retryAfter: 4 * 3600,
      message: 'Rate limit reached; retry after 4 hours',
    });
    model.when('[broke]', { kind: 'balance' });
    model.when('[ask]', { kind: 'tool-loop', command: 'git push origin release', rounds: 1, then: 'Pushed.' });
    model.setDefault({ kind: 'reply', text: 'Resumed and working.', chunks: 6, delayMs: 300 });

    const password = `demo-${randomBytes(6).toString('hex')}`;
    const oc = await startOpencode({ modelUrl: model.url, password, configure: demoConfig(model.url) });
    stops.push(() => oc.stop());
    const workDir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-demo-'));
    stops.push(async () => rmSync(workDir, { recursive: true, force: true }));
    // The `/api` engine reads its config from the directory, not from OPENCODE_CONFIG_CONTENT.
    writeFileSync(
      path.join(workDir, 'opencode.json'),
      JSON.stringify(demoConfig(model.url)(await opencodeConfig(model.url, 'sk-local-demo'))),
    );
    const auth = `Basic ${Buffer.from(`${oc.username}:${password}`).toString('base64')}`;
    const q = `directory=${encodeURIComponent(workDir)}`;
    const apiHeaders = { 'content-type': 'application/json', 'x-opencode-directory': encodeURIComponent(workDir) };
    // A cold directory's first `/api` model listing is empty for about a second.
    await waitUntil('the /api model listing of the demo directory', async () => {
      const res = await request(`${oc.baseUrl}api/model`, { headers: apiHeaders }, auth);
      return (await res.json()).data.some((m) => m.providerID === 'local');
    });
    for (const s of OPENCODE_SESSIONS) {
      const res = await request(
        `${oc.baseUrl}session?${q}`,
        { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: s.title }) },
        auth,
      );
      const { id } = await res.json();
      if (s.engine === 'api') {
        await request(
          `${oc.baseUrl}api/session/${id}/prompt`,
          { method: 'POST', headers: apiHeaders, body: JSON.stringify({ prompt: { text: s.text } }) },
          auth,
        );
        continue;
      }
      await request(
        `${oc.baseUrl}session/${id}/prompt_async?${q}`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            agent: 'build',
            model: { providerID: s.provider ?? 'local', modelID: 'm1' },
            parts: [{ type: 'text', text: s.text }],
          }),
        },
        auth,
      );
    }
    const settings = [
      { name: 'opencode (scripted model)', baseUrl: oc.baseUrl.replace(/\/$/, ''), directories: [workDir] },
      { name: 'spec-dialect backend', baseUrl: spec.url.replace(/\/$/, ''), directories: [SPEC_DIR] },
    ];
    log(
      `[demo] opencode ${oc.baseUrl} (password-protected, ${OPENCODE_SESSIONS.length} sessions in ${workDir}, ${OPENCODE_SESSIONS.filter((s) => s.engine === 'api').length} of them driven through /api); spec dialect ${spec.url} (${SPEC_SESSIONS.length} sessions)`,
    );
    return {
      settings,
      opencode: {
        name: settings[0].name,
        baseUrl: oc.baseUrl,
        home: oc.home,
        username: oc.username,
        password,
        directory: workDir,
        auth,
      },
      spec: { name: settings[1].name, baseUrl: spec.url },
      /** Pending permission requests on the opencode backend (GET /permission). */
      async pendingPermissions() {
        const res = await request(`${oc.baseUrl}permission?${q}`, {}, auth);
        return res.json();
      },
      describe: settings.map((s) => `${s.name} ${s.baseUrl}`).join(', '),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
