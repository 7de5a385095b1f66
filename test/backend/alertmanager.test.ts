// Alerts that reach a person (issue 33 item 3): deploy/alertmanager/alertmanager.yml checked by the
// real amtool, then run by the real Alertmanager (Debian's prometheus-alertmanager, installed by the
// harness when missing: it fails, never skips, when it cannot be had), fed by the real Prometheus
// evaluating deploy/prometheus/session-ops.rules.yml over `session-ops watch` (the bundled CLI)
// sampling the real opencode server (opencode-ai, scripted model; both states are stock opencode's
// own, no spec-dialect server needed): a session waiting for a person (a bash call under
// `"permission": {"bash": "ask"}`) and a session at a quota wall with no free provider (a 402 on
// `local`, the only connected provider) each arrive at a webhook receiver (an HTTP server here),
// routed by severity, grouped by backend and directory, labelled with the session and linked to the
// daemon's page for it. Then the backend stops: SessionOpsBackendDown arrives and the two session
// alerts, still firing in Prometheus, are inhibited in Alertmanager and reach nobody.
//
// The test's copies of the shipped files change only timing fields, so it runs in seconds: the
// rules' `for:` from minutes to as many seconds, Alertmanager's group_wait / group_interval /
// repeat_interval / resolve_timeout to seconds; and, not timing, each receiver's webhook URL to
// this test's receiver (the shipped one is a placeholder). Prometheus scrapes every 2 s and
// evaluates every second; watch samples every 2 s (--allow-short-spacing).
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { ensureAlertmanager, ensurePrometheus } from '../support/ensure-prometheus.mjs';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { waitFor } from './helpers';
import { startWatch, type WatchProcess } from './watch-process';

const ROOT = path.resolve(__dirname, '../..');
const SHIPPED_AM = path.join(ROOT, 'deploy/alertmanager/alertmanager.yml');
const SHIPPED_RULES = path.join(ROOT, 'deploy/prometheus/session-ops.rules.yml');

interface WebhookAlert {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface WebhookNotification {
  receiver: string;
  status: string;
  groupLabels: Record<string, string>;
  alerts: WebhookAlert[];
  /** When this test received it. */
  at: number;
}
interface AmAlert {
  labels: Record<string, string>;
  fingerprint: string;
  status: { state: 'active' | 'suppressed' | 'unprocessed'; inhibitedBy: string[]; silencedBy: string[] };
}

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

/** The shipped rules with each `for:` of N minutes turned into N seconds (nothing else changed). */
function fastRules(text: string): string {
  const out = text.replace(/^(\s+for:) (\d+)m$/gm, '$1 $2s');
  assert.notEqual(out, text, 'the rules have for: fields to shorten');
  assert.doesNotMatch(out, /^\s+for: \d+m$/m);
  return out;
}

/**
 * The shipped alertmanager.yml with its timing fields in seconds and every webhook URL pointed at
 * `webhook`. Checked: the copy differs from the shipped file in those keys only.
 */
function fastAlertmanager(text: string, webhook: string): string {
  const out = text
    .replace(/^(\s+resolve_timeout:) \S+$/gm, '$1 10s')
    .replace(/^(\s+group_wait:) \S+$/gm, '$1 1s')
    .replace(/^(\s+group_interval:) \S+$/gm, '$1 1s')
    .replace(/^(\s+repeat_interval:) \S+$/gm, '$1 2s')
    .replace(/^(\s+- url:) http\S+$/gm, `$1 ${webhook}`);
  const a = text.split('\n');
  const b = out.split('\n');
  assert.equal(a.length, b.length);
  for (let i = 0; i < a.length; i++)
    if (a[i] !== b[i])
      assert.match(a[i], /^\s+(resolve_timeout|group_wait|group_interval|repeat_interval|- url):/, `line ${i + 1}`);
  return out;
}

function amtool(bin: string, ...args: string[]) {
  const r = spawnSync(bin, args, { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, out: `${r.stdout}${r.stderr}` };
}

describe('deploy/alertmanager with amtool', () => {
  let bin: string;
  let tmp: string;
  before(() => {
    bin = ensureAlertmanager().amtool;
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-amtool-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('amtool check-config: the shipped alertmanager.yml (three receivers, one inhibition)', () => {
    const r = amtool(bin, 'check-config', SHIPPED_AM);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS/);
    assert.match(r.out, / - 1 inhibit rules/);
    assert.match(r.out, / - 3 receivers/);
  });

  it('with its commented e-mail and Slack settings uncommented it is still valid', () => {
    const text = readFileSync(SHIPPED_AM, 'utf8');
    const all = text.replace(/^(\s+)# (.*)$/gm, '$1$2');
    assert.match(all, /email_configs:/);
    assert.match(all, /slack_configs:/);
    assert.match(all, /smtp_smarthost:/);
    const doc = parse(all) as { receivers: Array<Record<string, unknown>> };
    assert.ok(doc.receivers.some((r) => 'email_configs' in r));
    assert.ok(doc.receivers.some((r) => 'slack_configs' in r));
    const file = path.join(tmp, 'all.yml');
    writeFileSync(file, all);
    const r = amtool(bin, 'check-config', file);
    assert.equal(r.code, 0, r.out);
  });

  it('routes by severity: critical, warning and info each to their receiver, anything else to warning', () => {
    const route = (...labels: string[]) =>
      amtool(bin, 'config', 'routes', 'test', `--config.file=${SHIPPED_AM}`, ...labels).stdout.trim();
    assert.equal(route('alertname=SessionOpsBackendDown', 'severity=critical', 'backend=b'), 'session-ops-critical');
    assert.equal(route('alertname=SessionOpsSessionHung', 'severity=warning', 'session=s'), 'session-ops-warning');
    assert.equal(route('alertname=SessionOpsSessionAtQuotaWall', 'severity=info'), 'session-ops-info');
    assert.equal(route('alertname=Other'), 'session-ops-warning');
    const doc = parse(readFileSync(SHIPPED_AM, 'utf8')) as {
      route: { group_by: string[] };
      inhibit_rules: Array<{ source_matchers: string[]; target_matchers: string[]; equal: string[] }>;
    };
    assert.deepEqual(doc.route.group_by, ['backend', 'directory']);
    assert.deepEqual(doc.inhibit_rules, [
      {
        source_matchers: ['alertname="SessionOpsBackendDown"'],
        target_matchers: ['session=~".+"'],
        equal: ['job', 'instance', 'backend'],
      },
    ]);
  });
});

/** Ends a child (SIGTERM, SIGKILL after 5 s) and resolves once it exited. */
async function ended(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

describe('Alertmanager fed by Prometheus over watch on real opencode: alerts reach a person', function () {
  this.timeout(180_000);
  let bins: { prometheus: string; alertmanager: string };
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let watch: WatchProcess;
  let prometheus: ChildProcess;
  let alertmanager: ChildProcess;
  let receiver: http.Server;
  let tmp: string;
  let dir: string;
  let promUrl: string;
  let amUrl: string;
  let amLog = '';
  let waiting: string;
  let walled: string;
  const received: WebhookNotification[] = [];

  const daemonBase = () => watch.metricsUrl.replace(/\/metrics$/, '');
  const pageOf = (session: string) =>
    `${daemonBase()}/#/session/${encodeURIComponent(new URL(oc.baseUrl).href)}/${session}`;
  const arrived = (alertname: string, since = 0) =>
    received.filter(
      (n) => n.at >= since && n.alerts.some((a) => a.status === 'firing' && a.labels.alertname === alertname),
    );

  /** What Prometheus saw, for a failure message: the target's health and its alerts. */
  async function promSays(): Promise<string> {
    try {
      const targets = (await (await fetch(`${promUrl}/api/v1/targets`)).json()) as {
        data: { activeTargets: Array<{ health: string; lastError: string; lastScrapeDuration: number }> };
      };
      const alerts = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as {
        data: { alerts: Array<{ labels: Record<string, string>; state: string }> };
      };
      return `Prometheus: targets ${JSON.stringify(targets.data.activeTargets.map((t) => [t.health, t.lastError, t.lastScrapeDuration]))}, alerts ${JSON.stringify(alerts.data.alerts.map((a) => [a.labels.alertname, a.labels.session, a.state]))}`;
    } catch (err) {
      return `Prometheus unreadable: ${String(err)}`;
    }
  }

  /** What the daemon serves, for a failure message: its per-session and per-backend series, and its log's tail. */
  async function daemonSays(): Promise<string> {
    let series: string;
    try {
      series = (await (await fetch(watch.metricsUrl)).text())
        .split('\n')
        .filter((l) => /^session_ops_(session_verdict|session_quota_wall|sessions|backend_up)\{/.test(l))
        .join('\n');
    } catch (err) {
      series = `unreadable: ${String(err)}`;
    }
    return `the daemon's /metrics:\n${series}\nthe daemon's log (tail):\n${watch.output().slice(-3000)}`;
  }

  async function amAlerts(): Promise<AmAlert[]> {
    const res = await fetch(`${amUrl}/api/v2/alerts`);
    assert.equal(res.status, 200);
    return (await res.json()) as AmAlert[];
  }

  before(async function () {
    bins = { ...ensurePrometheus(), ...ensureAlertmanager() };
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-alerts-'));
    dir = mkdtempSync(path.join(tmp, 'wt-'));

    // The webhook receiver: every notification Alertmanager POSTs, kept in order.
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        try {
          received.push({ ...(JSON.parse(body) as Omit<WebhookNotification, 'at'>), at: Date.now() });
        } catch {
          /* not Alertmanager's JSON: kept out */
        }
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const webhook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/session-ops`;

    // Stock opencode with `local` as its only provider (the built-in one disabled) and bash asking.
    model = await startScriptedModel();
    model.when('[ask-perm]', {
      kind: 'tool-calls',
      calls: [{ tool: 'bash', args: { command: 'ls -la', description: 'list the files' } }],
      then: 'listed the files',
    });
    model.when('[wall]', { kind: 'balance' });
    oc = await startOpencode({
      modelUrl: model.url,
      configure: (c) => ({
        ...c,
        permission: { bash: 'ask' },
        disabled_providers: ['opencode'],
        enabled_providers: ['local'],
      }),
    });
    watch = await startWatch(tmp, oc.baseUrl, dir, { page: true });
    waiting = await launchSession(oc, dir, 'needs a yes', 'look around [ask-perm]');
    walled = await launchSession(oc, dir, 'out of credit', 'go on [wall]');

    const amPort = await freePort();
    amUrl = `http://127.0.0.1:${amPort}`;
    const amConfig = path.join(tmp, 'alertmanager.yml');
    writeFileSync(amConfig, fastAlertmanager(readFileSync(SHIPPED_AM, 'utf8'), webhook));
    alertmanager = spawn(
      bins.alertmanager,
      [
        `--config.file=${amConfig}`,
        `--storage.path=${path.join(tmp, 'am-data')}`,
        `--web.listen-address=127.0.0.1:${amPort}`,
        '--cluster.listen-address=', // one instance: no gossip, nothing to settle before notifying
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    alertmanager.stdout!.on('data', (c) => (amLog += c));
    alertmanager.stderr!.on('data', (c) => (amLog += c));

    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    const rules = path.join(tmp, 'session-ops.rules.yml');
    writeFileSync(rules, fastRules(readFileSync(SHIPPED_RULES, 'utf8')));
    const promConfig = path.join(tmp, 'prometheus.yml');
    writeFileSync(
      promConfig,
      [
        // A scrape may take up to its interval: 2 s, so a loaded machine's slow /metrics is not a down target.
        'global: { scrape_interval: 2s, scrape_timeout: 2s, evaluation_interval: 1s }',
        `rule_files: ["${rules}"]`,
        `alerting: { alertmanagers: [ { static_configs: [ { targets: ["127.0.0.1:${amPort}"] } ] } ] }`,
        'scrape_configs:',
        '  - job_name: session-ops',
        `    static_configs: [ { targets: ["${new URL(watch.metricsUrl).host}"] } ]`,
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
    await waitFor('Alertmanager to be ready', async () => (await fetch(`${amUrl}/-/ready`)).ok, 60_000, 250);
    await waitFor('Prometheus to be ready', async () => (await fetch(`${promUrl}/-/ready`)).ok, 60_000, 250);
  });

  after(async function () {
    // Both are waited for: Alertmanager writes its data directory on the way out (the folder
    // removed below was once not empty yet: ENOTEMPTY).
    await Promise.all([ended(prometheus), ended(alertmanager)]);
    watch?.stop();
    await oc?.stop();
    await model?.stop();
    await new Promise((r) => (receiver ? receiver.close(r) : r(undefined)));
    if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  it('a session waiting for a person and a quota wall with no free provider each arrive, routed by severity, naming the session and linking to its page', async () => {
    const firing = async (alertname: string, session: string) =>
      waitFor(
        `${alertname} for ${session} at the webhook`,
        () =>
          arrived(alertname)
            .flatMap((n) => n.alerts.map((a) => ({ n, a })))
            .find(({ a }) => a.labels.alertname === alertname && a.labels.session === session),
        90_000,
        250,
      ).catch(async (err: Error) => {
        throw new Error(
          `${err.message}\nreceived: ${JSON.stringify(received)}\n${await promSays()}\nAlertmanager: ${amLog.slice(-2000)}`,
        );
      });

    const w = await firing('SessionOpsSessionWaitingForPerson', waiting);
    assert.equal(w.n.receiver, 'session-ops-warning');
    assert.deepEqual(w.n.groupLabels, { backend: 'oc', directory: dir });
    assert.equal(w.a.labels.severity, 'warning');
    assert.equal(w.a.labels.backend, 'oc');
    assert.equal(w.a.labels.directory, dir);
    assert.equal(w.a.labels.title, 'needs a yes');
    assert.equal(w.a.labels.verdict, 'waiting');
    assert.equal(w.a.annotations.summary, `Session ${waiting} (needs a yes) on oc waits for a person`);
    assert.equal(w.a.annotations.page_url, pageOf(waiting));

    const q = await firing('SessionOpsQuotaWallNoFreeProvider', walled);
    assert.equal(q.n.receiver, 'session-ops-critical');
    assert.deepEqual(q.n.groupLabels, { backend: 'oc', directory: dir });
    assert.equal(q.a.labels.severity, 'critical');
    assert.equal(q.a.labels.provider, 'local');
    assert.equal(q.a.labels.category, 'balance');
    assert.equal(
      q.a.annotations.summary,
      `Session ${walled} on oc is stopped at a quota wall of provider local, and no provider is free`,
    );
    assert.equal(q.a.annotations.page_url, pageOf(walled));
    // The link opens the daemon's page (the fragment is the page's route, never sent to the server).
    const page = await fetch(new URL(q.a.annotations.page_url));
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /<div id="app"><\/div>/);
    // The link's backend key is the daemon's (session_ops_backend_info), the base URL the daemon was given.
    assert.equal(
      await watch.metric('session_ops_backend_info', 'backend="oc"'),
      1,
      'session_ops_backend_info{backend="oc"} on /metrics',
    );
    assert.ok(
      (await (await fetch(watch.metricsUrl)).text()).includes(
        `session_ops_backend_info{backend="oc",key="${new URL(oc.baseUrl).href}"} 1`,
      ),
    );
    // Repeated while nothing mutes them (repeat_interval: 2 s in the test's copy): the silence
    // after the backend goes down below is the inhibition, not a quiet receiver.
    await waitFor(
      'both session groups notified a second time',
      () =>
        arrived('SessionOpsSessionWaitingForPerson').length >= 2 &&
        arrived('SessionOpsQuotaWallNoFreeProvider').length >= 2,
      30_000,
      250,
    );
  });

  it('while the backend is down its session alerts, still firing in Prometheus, are inhibited: only SessionOpsBackendDown reaches the webhook', async () => {
    // Gone at once (SIGKILL), answering nothing on its way down. With SIGTERM one CI run lost every
    // session alert as the server stopped (cause not established: a graceful shutdown answering a
    // round from a store it is closing is suspected); a failure now prints the daemon's series.
    await oc.stop({ abrupt: true });
    const down = await waitFor(
      'SessionOpsBackendDown at the webhook',
      () => arrived('SessionOpsBackendDown')[0],
      60_000,
      250,
    );
    assert.equal(down.receiver, 'session-ops-critical');
    assert.deepEqual(down.groupLabels, { backend: 'oc' });

    let seen: AmAlert[] = [];
    const suppressed = await waitFor(
      'the session alerts inhibited in Alertmanager',
      async () => {
        const alerts = (seen = await amAlerts());
        const source = alerts.find((a) => a.labels.alertname === 'SessionOpsBackendDown');
        const sessions = alerts.filter((a) => a.labels.session);
        return source &&
          sessions.length >= 2 &&
          sessions.every((a) => a.status.state === 'suppressed' && a.status.inhibitedBy.includes(source.fingerprint))
          ? { source, sessions }
          : null;
      },
      60_000,
      250,
    ).catch(async (err: Error) => {
      const brief = seen.map((a) => ({ labels: a.labels, status: a.status, fingerprint: a.fingerprint }));
      throw new Error(
        `${err.message}\nAlertmanager's alerts: ${JSON.stringify(brief)}\n${await promSays()}\n${await daemonSays()}`,
      );
    });
    assert.equal(suppressed.source.status.state, 'active');
    const named = (alerts: Array<{ labels: Record<string, string> }>) =>
      [...new Set(alerts.map((a) => `${a.labels.alertname} ${a.labels.session}`))].sort();
    // The wall also has SessionOpsSessionAtQuotaWall (info, for: 5 s here): muted as well.
    const expected = [
      `SessionOpsQuotaWallNoFreeProvider ${walled}`,
      `SessionOpsSessionAtQuotaWall ${walled}`,
      `SessionOpsSessionWaitingForPerson ${waiting}`,
    ].sort();
    assert.deepEqual(named(suppressed.sessions), expected);
    assert.ok(
      suppressed.sessions.every((a) => a.status.silencedBy.length === 0),
      'inhibited, not silenced',
    );

    // Prometheus still fires them (the daemon keeps the last rows it read): the mute is Alertmanager's.
    const prom = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as {
      data: { alerts: Array<{ labels: Record<string, string>; state: string }> };
    };
    const stillFiring = prom.data.alerts.filter((a) => a.state === 'firing' && a.labels.session);
    assert.deepEqual(named(stillFiring), expected);

    // From the next BackendDown repeat on, two more repeats of it and no session notification at all.
    const mark = Date.now();
    // (Deadlines, not waits: repeats come every 2-3 s on a quiet machine; one run with the whole
    // suite starting beside this file saw fewer than two in 30 s.)
    const start = await waitFor(
      'a BackendDown repeat after the inhibition held',
      () => arrived('SessionOpsBackendDown', mark)[0],
      60_000,
      250,
    );
    await waitFor(
      'two more BackendDown repeats',
      () => arrived('SessionOpsBackendDown', start.at + 1).length >= 2,
      60_000,
      250,
    );
    const leaked = received.filter((n) => n.at >= start.at && n.alerts.some((a) => a.labels.session));
    assert.deepEqual(leaked, [], 'no session alert reached the webhook while the backend was down');
  });
});
