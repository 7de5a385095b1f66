// Installs what the Prometheus tests need when it is missing: Debian's `prometheus` package (the
// server and promtool) and `prometheus-alertmanager` (Alertmanager and amtool), the way
// ensure-editor.mjs installs Chromium. Fails with a clear message where it cannot; it never lets a
// test skip itself.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { aptInstall } from './apt.mjs';

function find(name, env) {
  for (const p of [process.env[env], `/usr/bin/${name}`, `/usr/local/bin/${name}`]) if (p && existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : undefined;
}

function fail(message) {
  const err = new Error(`[prometheus harness] ${message}`);
  err.harness = true;
  throw err;
}

/** The Debian packages the Prometheus tests need that are not installed (PROMETHEUS_PATH / PROMTOOL_PATH count). */
export function missingPrometheusPackages() {
  return find('prometheus', 'PROMETHEUS_PATH') && find('promtool', 'PROMTOOL_PATH') ? [] : ['prometheus'];
}

/** Paths of `prometheus` and `promtool` (PROMETHEUS_PATH / PROMTOOL_PATH override), installing them with apt-get when missing. */
export function ensurePrometheus(log = (m) => console.error(`[prometheus harness] ${m}`)) {
  let prometheus = find('prometheus', 'PROMETHEUS_PATH');
  let promtool = find('promtool', 'PROMTOOL_PATH');
  if (prometheus && promtool) return { prometheus, promtool };
  aptInstall(missingPrometheusPackages(), log, (m) => fail(`${m} (Or set PROMETHEUS_PATH and PROMTOOL_PATH.)`));
  prometheus = find('prometheus', 'PROMETHEUS_PATH');
  promtool = find('promtool', 'PROMTOOL_PATH');
  if (!prometheus || !promtool)
    fail('prometheus and promtool are still missing after apt-get installed the Debian package prometheus');
  return { prometheus, promtool };
}

/** The Debian packages the Alertmanager tests need that are not installed (ALERTMANAGER_PATH / AMTOOL_PATH count). */
export function missingAlertmanagerPackages() {
  return findAlertmanager() && find('amtool', 'AMTOOL_PATH') ? [] : ['prometheus-alertmanager'];
}

/** Debian names the server prometheus-alertmanager; upstream's tarball names it alertmanager. */
function findAlertmanager() {
  return find('prometheus-alertmanager', 'ALERTMANAGER_PATH') ?? find('alertmanager', 'ALERTMANAGER_PATH');
}

/** Paths of Alertmanager and `amtool` (ALERTMANAGER_PATH / AMTOOL_PATH override), installing Debian's prometheus-alertmanager when missing. */
export function ensureAlertmanager(log = (m) => console.error(`[prometheus harness] ${m}`)) {
  let alertmanager = findAlertmanager();
  let amtool = find('amtool', 'AMTOOL_PATH');
  if (alertmanager && amtool) return { alertmanager, amtool };
  aptInstall(missingAlertmanagerPackages(), log, (m) => fail(`${m} (Or set ALERTMANAGER_PATH and AMTOOL_PATH.)`));
  alertmanager = findAlertmanager();
  amtool = find('amtool', 'AMTOOL_PATH');
  if (!alertmanager || !amtool)
    fail(
      'prometheus-alertmanager and amtool are still missing after apt-get installed the Debian package prometheus-alertmanager',
    );
  return { alertmanager, amtool };
}
