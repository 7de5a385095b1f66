// Installs what the real-editor tests need when it is missing: Debian's chromium, libkrb5-dev and
// ripgrep, and code-server@4.100.3 (VS Code 1.100.3) into the ignored cache folder .cache/code-server.
// Fails with a clear message where it cannot; it never lets a test layer skip itself.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, copyFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { aptInstall, have } from './apt.mjs';

export const CODE_SERVER_VERSION = '4.100.3';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const cacheDir = path.join(root, '.cache', 'code-server');
export const codeServerBin = path.join(cacheDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

function fail(message) {
  const err = new Error(`[editor harness] ${message}`);
  err.harness = true;
  throw err;
}

export function findChromium() {
  for (const p of [
    process.env.CHROMIUM_PATH,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ]) {
    if (p && existsSync(p)) return p;
  }
  return undefined;
}

/** The Debian packages the editor harness needs that are not installed. */
export function missingEditorPackages() {
  const missing = [];
  if (!findChromium()) missing.push('chromium');
  if (!have('rg')) missing.push('ripgrep');
  if (!existsSync('/usr/include/krb5.h') && !existsSync('/usr/include/gssapi/gssapi.h')) missing.push('libkrb5-dev');
  return missing;
}

function seedRipgrepCache() {
  // @vscode/ripgrep looks for a cached download before fetching one (which fails offline).
  const tmp = process.env.TMPDIR || os.tmpdir();
  const dir = path.join(tmp, 'vscode-ripgrep-cache-1.15.11');
  const tarball = path.join(dir, 'ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz');
  if (existsSync(tarball)) return;
  mkdirSync(dir, { recursive: true });
  const stage = path.join(dir, 'stage');
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  const rg = execFileSync('sh', ['-c', 'command -v rg']).toString().trim();
  copyFileSync(rg, path.join(stage, 'rg'));
  execFileSync('tar', ['-czf', tarball, '-C', stage, 'rg']);
  rmSync(stage, { recursive: true, force: true });
}

function supportsScriptApprovals() {
  return spawnSync('npm', ['help', 'install-scripts'], { stdio: 'ignore' }).status === 0;
}

export function ensureEditor(log = (m) => console.error(`[editor harness] ${m}`)) {
  if (process.platform !== 'linux')
    fail('the code-server harness runs on Linux; on a desktop use test/editor/run-electron.mjs');
  aptInstall(missingEditorPackages(), log, fail);
  if (!existsSync(codeServerBin)) {
    seedRipgrepCache();
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(path.join(cacheDir, 'package.json'), JSON.stringify({ name: 'code-server-cache', private: true }));
    log(`installing code-server@${CODE_SERVER_VERSION} into ${path.relative(root, cacheDir)} (about a minute, once)`);
    const env = { ...process.env, npm_config_unsafe_perm: 'true', npm_config_yes: 'true' };
    // npm 11 blocks dependency install scripts unless approved; code-server's postinstall (and the
    // native builds under it) are what make it work, so install, approve, then rebuild.
    const t0 = Date.now();
    const npm = (args) => spawnSync('npm', args, { cwd: cacheDir, stdio: 'inherit', env }).status;
    let status = npm(['install', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`]);
    if (status === 0 && supportsScriptApprovals())
      status = npm(['install-scripts', 'approve', '--all', '--no-allow-scripts-pin']);
    if (status === 0) status = npm(['rebuild', '--foreground-scripts']);
    if (status !== 0 || !existsSync(codeServerBin)) {
      fail(`could not install code-server@${CODE_SERVER_VERSION} (npm exit ${status}); see the output above`);
    }
    log(`code-server installed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  const chromium = findChromium();
  if (!chromium) fail('Chromium is not installed (apt-get install chromium)');
  return { codeServerBin, chromium };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    const r = ensureEditor();
    console.log(JSON.stringify(r));
  } catch (e) {
    console.error(e.message);
    process.exit(1);
  }
}
