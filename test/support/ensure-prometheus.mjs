// Installs what the Prometheus tests need when it is missing: Debian's `prometheus` package (the
// server and promtool), the way ensure-editor.mjs installs Chromium. Fails with a clear message
// where it cannot; it never lets a test skip itself.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

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

/** Paths of `prometheus` and `promtool` (PROMETHEUS_PATH / PROMTOOL_PATH override), installing them with apt-get when missing. */
export function ensurePrometheus(log = (m) => console.error(`[prometheus harness] ${m}`)) {
  let prometheus = find('prometheus', 'PROMETHEUS_PATH');
  let promtool = find('promtool', 'PROMTOOL_PATH');
  if (prometheus && promtool) return { prometheus, promtool };
  const haveApt = spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (process.getuid?.() !== 0 || !haveApt)
    fail(
      'prometheus and promtool are missing. Install Debian\'s "prometheus" package (apt-get install --no-install-recommends prometheus), or set PROMETHEUS_PATH and PROMTOOL_PATH, and re-run.',
    );
  log('installing the Debian package prometheus (server and promtool)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const upd = spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
  const inst = spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'prometheus'], {
    stdio: 'inherit',
    env,
  });
  prometheus = find('prometheus', 'PROMETHEUS_PATH');
  promtool = find('promtool', 'PROMTOOL_PATH');
  if (upd.status !== 0 || inst.status !== 0 || !prometheus || !promtool)
    fail('apt-get could not install the Debian package prometheus (server and promtool)');
  return { prometheus, promtool };
}
