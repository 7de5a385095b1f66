// The one way the test harnesses install Debian packages: one `apt-get update`, then one
// `apt-get install --no-install-recommends` (the recommends of chromium alone are ~100 packages:
// avahi, cups, upower, ...; nothing the headless tests use). Fails with the reason; never skips.
import { spawnSync } from 'node:child_process';

export function have(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/**
 * Installs `packages` with apt-get (as root) and returns the seconds it took. `fail(message)` must
 * throw; it is called when this process cannot install (not root, no apt-get) or apt-get fails.
 */
export function aptInstall(packages, log, fail) {
  if (packages.length === 0) return 0;
  if (process.getuid?.() !== 0 || !have('apt-get'))
    fail(
      `missing Debian packages: ${packages.join(', ')}. Install them (apt-get install --no-install-recommends ${packages.join(' ')}) and re-run.`,
    );
  log(`installing Debian packages: ${packages.join(', ')}`);
  const t0 = Date.now();
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const upd = spawnSync('apt-get', ['update'], { stdio: 'inherit', env });
  const inst =
    upd.status === 0
      ? spawnSync('apt-get', ['install', '-y', '--no-install-recommends', ...packages], { stdio: 'inherit', env })
      : upd;
  if (inst.status !== 0)
    fail(
      `apt-get could not install ${packages.join(', ')} (apt-get ${upd.status !== 0 ? 'update' : 'install'} exit ${inst.status})`,
    );
  const seconds = (Date.now() - t0) / 1000;
  log(`Debian packages installed in ${seconds.toFixed(1)} s`);
  return seconds;
}
