// `session-ops watch` (the bundled CLI, a separate process) against the real opencode server
// (scripted model) and the spec-dialect server, scraped by a real Prometheus server (Debian's
// package, installed by the harness when missing) started here on loopback with the shipped rules.
// After two samples Prometheus' query API has the stalled sessions as hung and a stopped backend
// as down; a backend that hangs, resets or answers garbage never stalls the loop for the others;
// SIGHUP with a bad configuration keeps the old one; SIGTERM exits 0 within 5 s; the log never
// carries a password or an API key.
import { hashToken } from '../../src/core/watch/auth/tokens';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { StatusDocument } from '../../src/core/health/status-document';
import { OPERATOR_STATE_FILE, parseOperatorState } from '../../src/core/operations/state-store-operator';
import { ensurePrometheus } from '../support/ensure-prometheus.mjs';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { startSpecServer, type SpecServer } from '../support/spec-server';
import { bundleCli } from './cli-bundle';
import { assertDocumentShape, waitFor } from './helpers';

const API_KEY = 'sk-local-DO-NOT-PRINT-5151';
const SPEC_PASSWORD = 'spec-pw-DO-NOT-PRINT-6262';
const ROOT = path.resolve(__dirname, '../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A backend that accepts connections and never answers, one that resets them, one that answers garbage. */
async function badBackend(kind: 'hang' | 'reset' | 'garbage'): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (kind === 'garbage') {
      res.setHeader('content-type', 'application/json');
      res.end('{"sessions": [not json');
    } else if (kind === 'reset') req.socket.destroy();
    // hang: never answer
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

interface Daemon {
  child: ChildProcess;
  out: () => string;
  events: () => Array<Record<string, unknown>>;
  metricsUrl: string;
  base: string;
}

function startWatch(cli: string, config: string, env: Record<string, string>): Promise<Daemon> {
  const child = spawn(
    process.execPath,
    [cli, 'watch', '--config', config, '--listen', '127.0.0.1:0', '--allow-short-spacing', '--log-level', 'debug'],
    {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  const events = () =>
    out
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return waitFor(
    'watch to listen',
    () => {
      if (child.exitCode !== null) throw new Error(`watch exited ${child.exitCode}: ${err}`);
      const listening = events().find((e) => e.event === 'listening');
      if (!listening) return null;
      const metricsUrl = String(listening.metricsUrl);
      return { child, out: () => out, events, metricsUrl, base: metricsUrl.replace(/\/metrics$/, '') };
    },
    20_000,
  );
}

const READ_TOKEN = 'sot_backend-watch-test-token-0123456789abcdefghij';

describe('watch: the daemon scraped by a real Prometheus', function () {
  this.timeout(180_000);
  let bins: { prometheus: string; promtool: string };
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let spec: SpecServer;
  let doomed: SpecServer;
  const bad: Array<{ url: string; stop: () => Promise<void> }> = [];
  let tmp: string;
  let cli: string;
  let config: string;
  let goodConfig: string;
  let daemon: Daemon;
  let prometheus: ChildProcess;
  let promUrl: string;
  let ocHung: string;
  let specHung: string;
  const workDir = () => mkdtempSync(path.join(tmp, 'wt-'));

  async function query(expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { status: string; data: { result: [] } };
    assert.equal(body.status, 'success');
    return body.data.result;
  }

  before(async function () {
    bins = ensurePrometheus();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-watch-'));
    cli = path.join(tmp, 'cli.js');
    const built = bundleCli(cli);
    model = await startScriptedModel();
    oc = await startOpencode({ modelUrl: model.url, apiKey: API_KEY });
    spec = await startSpecServer({ password: SPEC_PASSWORD });
    doomed = await startSpecServer();
    for (const kind of ['hang', 'reset', 'garbage'] as const) bad.push(await badBackend(kind));

    // opencode: a session whose model stream stalls (hung), one that finished (idle).
    const ocDir = workDir();
    model.when('[stall]', { kind: 'stall' });
    ocHung = await launchSession(oc, ocDir, 'stalled work', 'think [stall]');
    await waitFor('the stalled stream', () => model.requests.some((r) => r.marker === '[stall]'));
    // spec: generating with every progress signal frozen (hung), and an idle one.
    const specDir = spec.directory('/srv/spec');
    specHung = specDir.addSession({
      state: 'generating',
      progress: { stepCount: 5, lastStepAt: Date.now() - 600_000 },
      title: 'frozen',
    });
    specDir.addMessage(specHung, { role: 'assistant', text: 'working' });
    const specIdle = specDir.addSession({ state: 'idle', title: 'done' });
    specDir.addMessage(specIdle, { role: 'assistant', text: 'finished', finish: 'stop' });
    const doomedDir = doomed.directory('/srv/doomed');
    doomedDir.addMessage(doomedDir.addSession({ state: 'idle' }), { role: 'assistant', text: 'x', finish: 'stop' });

    writeFileSync(path.join(tmp, 'spec-pw'), `${SPEC_PASSWORD}\n`);
    writeFileSync(
      path.join(tmp, 'tokens.json'),
      JSON.stringify({ version: 1, tokens: [{ name: 'ops', scope: 'read', sha256: hashToken(READ_TOKEN) }] }),
    );
    goodConfig = [
      'backends:',
      `  - { name: opencode, baseUrl: "${oc.baseUrl}", directories: ["${ocDir}"] }`,
      `  - { name: spec, baseUrl: "${spec.url}", directories: [/srv/spec], passwordFile: "${path.join(tmp, 'spec-pw')}" }`,
      `  - { name: doomed, baseUrl: "${doomed.url}", directories: [/srv/doomed] }`,
      `  - { name: hang, baseUrl: "${bad[0].url}", directories: [/x] }`,
      `  - { name: reset, baseUrl: "${bad[1].url}", directories: [/x] }`,
      `  - { name: garbage, baseUrl: "${bad[2].url}", directories: [/x] }`,
      'sampleSpacingSeconds: 2',
      'auth: { tokensFile: tokens.json }',
      '',
    ].join('\n');
    config = path.join(tmp, 'session-ops.yaml');
    writeFileSync(config, goodConfig);
    await built;
    daemon = await startWatch(cli, config, {});

    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    const promConfig = path.join(tmp, 'prometheus.yml');
    writeFileSync(
      promConfig,
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        `rule_files: ["${path.join(ROOT, 'deploy/prometheus/session-ops.rules.yml')}"]`,
        'scrape_configs:',
        '  - job_name: session-ops',
        `    static_configs: [ { targets: ["${new URL(daemon.base).host}"] } ]`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      bins.prometheus,
      [
        `--config.file=${promConfig}`,
        `--storage.tsdb.path=${path.join(tmp, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: 'ignore' },
    );
    await waitFor('Prometheus to be ready', async () => (await fetch(`${promUrl}/-/ready`)).ok, 60_000, 250);
  });

  after(async function () {
    prometheus?.kill('SIGTERM');
    if (daemon && daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
    model?.releaseStalls();
    await oc?.stop();
    await model?.stop();
    await spec?.stop();
    await doomed?.stop().catch(() => undefined);
    for (const b of bad) await b.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('after two samples Prometheus has the stalled sessions of both dialects as hung', async () => {
    const hung = await waitFor(
      'both hung sessions in Prometheus',
      async () => {
        const r = await query('session_ops_session_verdict{verdict="hung"} == 1');
        const sessions = new Set(r.map((x) => `${x.metric.backend}/${x.metric.session}`));
        return sessions.has(`opencode/${ocHung}`) && sessions.has(`spec/${specHung}`) ? r : null;
      },
      60_000,
      500,
    );
    const specSeries = hung.find((x) => x.metric.session === specHung)!;
    assert.equal(specSeries.metric.directory, '/srv/spec');
    assert.equal(specSeries.metric.title, 'frozen');
    assert.equal(specSeries.metric.action, 'abort-and-wake');
    const counts = await query('session_ops_sessions{backend="spec",verdict=~"hung|idle"}');
    assert.deepEqual(counts.map((x) => [x.metric.verdict, x.value[1]]).sort(), [
      ['hung', '1'],
      ['idle', '1'],
    ]);
    // The verdict change was logged once, with the session.
    assert.ok(daemon.events().some((e) => e.event === 'verdict-changed' && e.session === specHung && e.to === 'hung'));
  });

  it('a stopped backend reads session_ops_backend_up 0; hanging, resetting and garbage backends too, and the loop goes on', async () => {
    await waitFor(
      'doomed up',
      async () => (await query('session_ops_backend_up{backend="doomed"} == 1')).length === 1,
      30_000,
      500,
    );
    await doomed.stop();
    const down = await waitFor(
      'doomed, hang, reset and garbage down in Prometheus',
      async () => {
        const r = await query('session_ops_backend_up == 0');
        const names = r.map((x) => x.metric.backend).sort();
        return names.join(',') === 'doomed,garbage,hang,reset' ? names : null;
      },
      60_000,
      500,
    );
    assert.deepEqual(down, ['doomed', 'garbage', 'hang', 'reset']);
    assert.deepEqual((await query('session_ops_backend_up == 1')).map((x) => x.metric.backend).sort(), [
      'opencode',
      'spec',
    ]);
    // The healthy backends keep being sampled every 2 s while "hang" holds its requests.
    const rounds = async () =>
      Number(
        (await (await fetch(daemon.metricsUrl)).text()).match(
          /session_ops_sample_round_duration_seconds_count\{backend="spec"\} (\d+)/,
        )![1],
      );
    const before = await rounds();
    await new Promise((r) => setTimeout(r, 4_500));
    assert.ok((await rounds()) >= before + 2, 'spec sampled at least twice more');
    const health = await fetch(`${daemon.base}/healthz`);
    assert.equal(health.status, 200);
    assert.equal(await health.text(), 'ok\n');
    const metrics = await (await fetch(daemon.metricsUrl)).text();
    assert.match(
      metrics,
      /session_ops_requests_total\{backend="garbage",endpoint="GET \/session",outcome="malformed"\} \d+/,
    );
    assert.match(metrics, /session_ops_requests_total\{backend="spec",endpoint="GET \/session",outcome="ok"\} \d+/);
  });

  it('/api/status: the status --json document of each backend directory; /metrics in OpenMetrics on request; nothing acts', async () => {
    assert.equal((await fetch(`${daemon.base}/api/status`)).status, 401, 'no token: 401');
    const auth = { authorization: `Bearer ${READ_TOKEN}` };
    const status = (await (await fetch(`${daemon.base}/api/status`, { headers: auth })).json()) as {
      backends: Array<{ backend: string; up: boolean; documents: StatusDocument[] }>;
    };
    const specStatus = status.backends.find((b) => b.backend === 'spec')!;
    assert.equal(specStatus.up, true);
    const doc = specStatus.documents[0];
    assertDocumentShape(doc);
    assert.equal(doc.directory, '/srv/spec');
    assert.equal(doc.dialect, 'spec');
    const s = doc.sessions.find((x) => x.id === specHung)!;
    assert.deepEqual([s.verdict, s.action, s.settled], ['hung', 'abort-and-wake', true]);
    const om = await fetch(daemon.metricsUrl, { headers: { accept: 'application/openmetrics-text; version=1.0.0' } });
    assert.match(om.headers.get('content-type')!, /^application\/openmetrics-text/);
    assert.match(await om.text(), /# EOF\n$/);
    assert.equal((await fetch(`${daemon.base}/api/status`, { method: 'POST', headers: auth })).status, 405);
    assert.equal(spec.prompts.length + spec.aborts.length, 0, 'automatic is off: nothing was sent');
  });

  it('SIGHUP with a bad configuration keeps the old one running; a good one is applied', async () => {
    writeFileSync(config, `${goodConfig}password: nope\n`);
    daemon.child.kill('SIGHUP');
    const failed = await waitFor('the reload failure', () =>
      daemon.events().find((e) => e.event === 'config-reload-failed'),
    );
    assert.match(JSON.stringify(failed.errors), /unknown key "password"|a password is never written/);
    assert.equal(daemon.child.exitCode, null);
    assert.equal((await fetch(`${daemon.base}/healthz`)).status, 200);
    const roundsBefore = daemon.events().filter((e) => e.event === 'sample-round' && e.backend === 'spec').length;
    await waitFor(
      'spec still sampled',
      () => daemon.events().filter((e) => e.event === 'sample-round' && e.backend === 'spec').length > roundsBefore,
      10_000,
    );
    // A good configuration without the broken backends is applied: they leave the metrics.
    writeFileSync(
      config,
      goodConfig
        .split('\n')
        .filter((l) => !/name: (hang|reset|garbage|doomed)/.test(l))
        .join('\n'),
    );
    daemon.child.kill('SIGHUP');
    await waitFor('the reload', () => daemon.events().find((e) => e.event === 'config-reloaded'));
    const metrics = await (await fetch(daemon.metricsUrl)).text();
    // Every series of a removed backend leaves: gauges, counters (requests, actions) and round times.
    assert.doesNotMatch(metrics, /backend="(hang|reset|garbage|doomed)"/);
    assert.match(metrics, /session_ops_backend_up\{backend="spec"\} 1/);
  });

  it('SIGTERM: exit 0 within 5 s; the log never carried a password or an API key', async () => {
    const started = Date.now();
    const exited = new Promise<number | null>((r) => daemon.child.once('exit', (code) => r(code)));
    daemon.child.kill('SIGTERM');
    const code = await exited;
    assert.equal(code, 0);
    assert.ok(Date.now() - started < 5_000, `stopped in ${Date.now() - started} ms`);
    const log = daemon.out();
    assert.ok(daemon.events().some((e) => e.event === 'stopped'));
    assert.doesNotMatch(log, new RegExp(`${SPEC_PASSWORD}|${API_KEY}|[Aa]uthorization|apiKey`));
  });
});

describe('watch: automatic actions through the core operator', function () {
  this.timeout(120_000);
  let tmp: string;
  let cli: string;
  let spec: SpecServer;

  before(async function () {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-watch-act-'));
    cli = path.join(tmp, 'cli.js');
    await bundleCli(cli);
  });
  afterEach(async () => {
    await spec?.stop();
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  async function hungSession(): Promise<string> {
    spec = await startSpecServer();
    spec.setProviders([{ id: 'local', name: 'Local' }], ['local']);
    spec.answerPrompts = { delayMs: 300 };
    const dir = spec.directory('/srv/act');
    const id = dir.addSession({
      state: 'generating',
      progress: { stepCount: 5, lastStepAt: Date.now() - 600_000 },
      title: 'frozen',
    });
    // Its assignment names the daemon's orchestrator (authority rule 2: verified before any act).
    dir.addMessage(id, { role: 'user', text: 'Fix the parser; report to orchestrator ses_orch1' });
    dir.addMessage(id, { role: 'assistant', text: 'working', info: { providerID: 'local', modelID: 'm1' } });
    return id;
  }

  function configWith(stateDir: string): { file: string; env: Record<string, string> } {
    const file = path.join(tmp, `${path.basename(stateDir)}.session-ops.yaml`);
    writeFileSync(
      file,
      [
        'backends:',
        `  - { name: spec, baseUrl: "${spec.url}", directories: [/srv/act] }`,
        'sampleSpacingSeconds: 2',
        'automatic: { abortHung: true }',
        'orchestrator: ses_orch1',
        '',
      ].join('\n'),
    );
    return { file, env: { SESSION_OPS_STATE_DIR: stateDir } };
  }

  it('automatic.abortHung: a settled hung verdict is aborted and woken once, counted and logged', async () => {
    const id = await hungSession();
    const state = mkdtempSync(path.join(tmp, 'state-'));
    const { file, env } = configWith(state);
    const daemon = await startWatch(cli, file, env);
    try {
      const done = await waitFor(
        'the automatic action',
        () => daemon.events().find((e) => e.event === 'action' && e.session === id),
        60_000,
      );
      assert.equal(done.action, 'abort-and-wake');
      assert.equal(done.outcome, 'done', JSON.stringify(done));
      assert.equal(done.trigger, 'automatic');
      assert.deepEqual(
        spec.aborts.map((a) => a.sessionId),
        [id],
      );
      assert.equal(spec.prompts.length, 1);
      assert.ok(spec.aborts[0].at <= spec.prompts[0].at, 'abort before the prompt');
      const text = spec.prompts[0].payload.parts[0].text;
      assert.match(
        text,
        /to the orchestrator session ses_orch1 through/,
        'the configured orchestrator, no placeholder',
      );
      assert.doesNotMatch(text, /<orchestrator session id>/);
      const metrics = await (await fetch(daemon.metricsUrl)).text();
      assert.match(
        metrics,
        /session_ops_actions_total\{backend="spec",action="abort-and-wake",outcome="done",trigger="automatic"\} 1/,
      );
      assert.match(
        metrics,
        /session_ops_actions_total\{backend="spec",action="recover",outcome="failed",trigger="automatic"\} 0/,
      );
      // Never the same action twice on one verdict: a few more rounds send nothing more.
      await new Promise((r) => setTimeout(r, 3_000));
      assert.equal(spec.prompts.length, 1);
      // Automatic mode's memory is in the state directory, for the next start.
      const saved = await waitFor('the operator state file', () => {
        const f = path.join(state, OPERATOR_STATE_FILE);
        return existsSync(f) ? parseOperatorState(JSON.parse(readFileSync(f, 'utf8'))) : null;
      });
      assert.ok(
        Object.keys(saved.acted).some((k) => k.includes(id)),
        JSON.stringify(saved.acted),
      );
    } finally {
      daemon.child.kill('SIGKILL');
    }
  });

  it('SIGTERM mid-action (the abort POST held by the backend): exit 0 within 5 s, the action ends failed, no lock left', async () => {
    const id = await hungSession();
    spec.fault({ method: 'POST', path: /\/abort$/, delayMs: 30_000 });
    const state = mkdtempSync(path.join(tmp, 'state-'));
    const { file, env } = configWith(state);
    const daemon = await startWatch(cli, file, env);
    await waitFor(
      'the abort POST in flight',
      () => spec.requests.some((r) => r.method === 'POST' && r.path.endsWith('/abort')),
      60_000,
    );
    const started = Date.now();
    const exited = new Promise<number | null>((r) => daemon.child.once('exit', (code) => r(code)));
    daemon.child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.ok(Date.now() - started < 5_000, `stopped in ${Date.now() - started} ms`);
    const ended = daemon.events().find((e) => e.event === 'action' && e.session === id);
    assert.ok(ended, 'the action reported its end before the exit');
    assert.equal(ended.outcome, 'failed');
    assert.equal(spec.prompts.length, 0, 'nothing sent after the abort was cut');
    const locks = path.join(state, 'locks');
    const left = existsSync(locks) ? readdirSync(locks) : [];
    assert.deepEqual(left, [], 'no lock (nor a half-made one) left in the state directory');
    // The operator's persisted state, written atomically: no temporary file left, and what is there parses.
    assert.deepEqual(
      readdirSync(state).filter((f) => f.includes('.tmp')),
      [],
    );
    const stateFile = path.join(state, OPERATOR_STATE_FILE);
    if (existsSync(stateFile)) parseOperatorState(JSON.parse(readFileSync(stateFile, 'utf8')));
  });
});
