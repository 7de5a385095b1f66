// opencode's plugin SDK, installed once per opencode version and given to every test server.
//
// On its first instance, stock opencode installs its plugin SDK (`@opencode-ai/plugin`: 26 packages,
// 3,652 files, 64 MB, fetched from the npm registry) into the config directory of its HOME
// (`~/.config/opencode`), in the background. The test servers each have a private HOME, so each one
// did that install again: measured on opencode 1.18.33, a server's first turn took 10.4 CPU-seconds
// with it and 3.1 without. opencode's own check (its `Npm.install`) skips the install when the
// directory has a `node_modules` and `package-lock.json`'s root lists every dependency of
// `package.json`; so the SDK is installed here once, with npm, exactly as opencode writes it
// (`"@opencode-ai/plugin": "<version>"`, no range), into `.cache/opencode-config/<version>`, and
// `seedOpencodeConfig` gives each server's HOME a copy before the server starts: the small files
// copied, `node_modules` hard-linked (0.09 s against 2 s for a copy of the files). The server is the
// same real opencode; it only finds, as on any machine where it ran before, its SDK installed.
//
// When the install cannot be done (no registry), servers start without the copy and install their
// own, as before (a line on stderr says so): slower, never a skip. npm test's installs layer builds
// it first (test/support/one-time-installs.mjs). Only node: builtins.
import { spawn, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';

const SDK = '@opencode-ai/plugin';
const DEADLINE_MS = 180_000;

/** The version of the opencode binary: its npm package's version (opencode-ai), else `opencode --version`. */
export function opencodeVersion(binary) {
  try {
    const real = realpathSync(binary);
    const pkg = JSON.parse(readFileSync(path.join(path.dirname(real), '..', 'package.json'), 'utf8'));
    if (pkg.name === 'opencode-ai' && typeof pkg.version === 'string') return pkg.version;
  } catch {
    /* not the npm package's layout: ask the binary */
  }
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  const version = /\d+\.\d+\.\d+[\w.-]*/.exec(run.stdout ?? '')?.[0];
  if (!version) throw new Error(`could not read the version of ${binary} (--version printed "${run.stdout}")`);
  return version;
}

/** Where the template is kept: `.cache` of the project whose node_modules holds `binary`, else of the working directory. */
export function opencodeCacheRoot(binary) {
  const m = /^(.*)[\\/]node_modules[\\/]\.bin[\\/]opencode$/.exec(path.resolve(binary));
  return path.join(m ? m[1] : process.cwd(), '.cache');
}

/** Whether `dir` holds the SDK as opencode's check wants it (node_modules, and the lock's root lists it). */
export function isOpencodeConfigTemplate(dir) {
  try {
    const lock = JSON.parse(readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const locked = lock?.packages?.['']?.dependencies ?? {};
    return (
      existsSync(path.join(dir, 'node_modules', ...SDK.split('/'), 'package.json')) &&
      Object.keys(pkg.dependencies ?? {}).every((name) => name in locked) &&
      SDK in locked
    );
  } catch {
    return false;
  }
}

const pending = new Map();

/**
 * The directory holding the SDK for `version` under `cacheRoot` (`<cacheRoot>/opencode-config/<version>`),
 * installing it with npm when missing; null when it cannot be installed (the reason goes to `log`).
 * Safe to call from several processes at once: each installs into a directory of its own and the
 * first rename wins.
 */
export function ensureOpencodeConfigTemplate(version, cacheRoot, log = (m) => console.error(`[opencode] ${m}`)) {
  const dir = path.join(cacheRoot, 'opencode-config', version);
  if (isOpencodeConfigTemplate(dir)) return Promise.resolve(dir);
  if (!pending.has(dir)) {
    pending.set(
      dir,
      install(version, dir).then(
        () => dir,
        (err) => {
          log(
            `could not install ${SDK}@${version} once for the test servers (${err.message}); each server installs its own`,
          );
          return null;
        },
      ),
    );
  }
  return pending.get(dir);
}

async function install(version, dir) {
  mkdirSync(path.dirname(dir), { recursive: true });
  const tmp = mkdtempSync(`${dir}.tmp-`);
  try {
    // A package.json of its own first: without one npm walks up and installs into the enclosing
    // project (this repository's package.json, when .cache is a folder inside it).
    writeFileSync(path.join(tmp, 'package.json'), '{\n  "dependencies": {}\n}\n');
    await run(
      'npm',
      [
        'install',
        '--save-exact',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
        `${SDK}@${version}`,
      ],
      tmp,
    );
    if (!isOpencodeConfigTemplate(tmp)) throw new Error(`npm did not leave ${SDK} installed in ${tmp}`);
    if (isOpencodeConfigTemplate(dir)) return; // another process finished first
    try {
      renameSync(tmp, dir);
    } catch (err) {
      if (!isOpencodeConfigTemplate(dir)) throw err;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function run(cmd, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, npm_config_yes: 'true' },
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr = (stderr + c).slice(-2000)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args[0]} did not finish within ${DEADLINE_MS / 1000} s`));
    }, DEADLINE_MS);
    child.once('error', (err) => (clearTimeout(timer), reject(err)));
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr.trim().split('\n').slice(-3).join(' ')}`));
    });
  });
}

/** Gives `configDir` (a server HOME's `~/.config/opencode`) the SDK of `template`: files copied, node_modules hard-linked. */
export function seedOpencodeConfig(template, configDir) {
  mkdirSync(configDir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json'])
    copyFileSync(path.join(template, file), path.join(configDir, file));
  const linked = spawnSync('cp', ['-al', path.join(template, 'node_modules'), path.join(configDir, 'node_modules')]);
  if (linked.status !== 0)
    cpSync(path.join(template, 'node_modules'), path.join(configDir, 'node_modules'), { recursive: true });
}
