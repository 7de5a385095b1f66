// The demo's unattended side: `session-ops watch` (the built dist/cli.js) over the demo backends,
// and with --prometheus a local Prometheus scraping it with the shipped alert rules
// (deploy/prometheus/session-ops.rules.yml). Both are tracked children (test/support/processes.mjs),
// killed on every exit path. The opencode password reaches watch through an environment variable
// named by the configuration (passwordEnv), never in the file. Its API and web page take the act token
// made here with `session-ops token add` (auth.tokensFile): printed for a person, used by the
// screenshot mode.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnTracked, stopGroup } from '../test/support/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const START_DEADLINE_MS = 30_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function until(what, probe) {
  const deadline = Date.now() + START_DEADLINE_MS;
  for (;;) {
    const v = await probe().catch(() => null);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not start within ${START_DEADLINE_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Starts watch over the demo backends (and Prometheus with `prometheus`). Returns the URLs (the
 * metrics, the web page, the alerts), the web page's act token, and stop().
 */
export async function startDemoWatch(backends, { log = console.log, prometheus = false } = {}) {
  const cli = path.join(root, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('dist/cli.js is missing: build first (node esbuild.mjs)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-demo-watch-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  // Also on an exit that skips stop() (a signal handled by processes.mjs).
  process.once('exit', removeDir);
  const stops = [async () => removeDir()];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
  };
  try {
    // The API's token: made by the CLI, which keeps only its hash in the tokens file.
    const tokensFile = path.join(dir, 'tokens.json');
    const made = spawnSync(
      process.execPath,
      [cli, 'token', 'add', 'demo', '--scope', 'act', '--tokens-file', tokensFile, '--json'],
      { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
    );
    if (made.status !== 0) throw new Error(`session-ops token add failed: ${made.stderr.trim()}`);
    const { token } = JSON.parse(made.stdout);
    const config = path.join(dir, 'session-ops.yaml');
    const [oc, spec] = backends.settings;
    writeFileSync(
      config,
      [
        'backends:',
        `  - { name: opencode, baseUrl: "${oc.baseUrl}", directories: ${JSON.stringify(oc.directories)}, username: ${backends.opencode.username}, passwordEnv: DEMO_OPENCODE_PASSWORD }`,
        `  - { name: spec, baseUrl: "${spec.baseUrl}", directories: ${JSON.stringify(spec.directories)} }`,
        'sampleSpacingSeconds: 30',
        // The editor's demo budget: session_ops_budget_session_usd, the budget log lines and alert.
        'budget: { sessionUsd: 1 }',
        `auth: { tokensFile: "${tokensFile}" }`,
        '',
      ].join('\n'),
    );
    const child = spawnTracked(process.execPath, [cli, 'watch', '--config', config, '--listen', '127.0.0.1:0'], {
      env: {
        PATH: process.env.PATH ?? '',
        DEMO_OPENCODE_PASSWORD: backends.opencode.password,
        SESSION_OPS_STATE_DIR: path.join(dir, 'state'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stops.push(() => stopGroup(child, 5_000));
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out = (out + c).slice(-65_536)));
    child.stderr.on('data', (c) => (err = (err + c).slice(-8_192)));
    const metricsUrl = await until('session-ops watch', async () => {
      if (child.exitCode !== null) throw new Error(`session-ops watch exited ${child.exitCode}: ${err.trim()}`);
      const line = out.split('\n').find((l) => l.includes('"event":"listening"'));
      return line ? JSON.parse(line).metricsUrl : null;
    });
    const pageUrl = `${new URL(metricsUrl).origin}/`;
    log(`[demo] session-ops watch: ${metricsUrl} (also /healthz); its web page: ${pageUrl} (token ${token})`);
    let alertsUrl = null;
    if (prometheus) {
      const { ensurePrometheus } = await import('../test/support/ensure-prometheus.mjs');
      const bins = ensurePrometheus((m) => log(`[demo] ${m}`));
      const port = await freePort();
      const promConfig = path.join(dir, 'prometheus.yml');
      writeFileSync(
        promConfig,
        [
          'global: { scrape_interval: 10s, evaluation_interval: 10s }',
          `rule_files: ["${path.join(root, 'deploy/prometheus/session-ops.rules.yml')}"]`,
          'scrape_configs:',
          '  - job_name: session-ops',
          `    static_configs: [ { targets: ["${new URL(metricsUrl).host}"] } ]`,
          '',
        ].join('\n'),
      );
      const prom = spawnTracked(
        bins.prometheus,
        [
          `--config.file=${promConfig}`,
          `--storage.tsdb.path=${path.join(dir, 'tsdb')}`,
          `--web.listen-address=127.0.0.1:${port}`,
        ],
        { stdio: 'ignore' },
      );
      stops.push(() => stopGroup(prom, 5_000));
      const promUrl = `http://127.0.0.1:${port}`;
      await until('Prometheus', async () => (await fetch(`${promUrl}/-/ready`)).ok);
      alertsUrl = `${promUrl}/alerts`;
      log(
        `[demo] Prometheus with the shipped rules: ${alertsUrl} (alerts turn pending after two samples, firing 2 min later)`,
      );
    }
    return { metricsUrl, pageUrl, token, alertsUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
