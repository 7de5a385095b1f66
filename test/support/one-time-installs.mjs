#!/usr/bin/env node
// npm test's `installs` layer, started first and run beside build, lint and unit: everything the
// later layers install once on a fresh machine, in one go. The Debian packages of the editor
// harness (chromium, ripgrep, libkrb5-dev) and of the Prometheus tests (prometheus,
// prometheus-alertmanager) in one `apt-get install --no-install-recommends`
// (test/support/apt.mjs), meanwhile opencode's plugin SDK into .cache/opencode-config
// (opencode-config-template.mjs), which every test server's HOME then gets instead of installing
// it itself; it then says so (PACKAGES_READY: the backend layer starts), and installs code-server
// into .cache/code-server (ensure-editor.mjs; about 80 s on a fresh clone). Nothing to
// do when all are there. Exits 1 with the reason when it cannot install: the layers that need them
// then fail too, each saying why.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { aptInstall } from './apt.mjs';
import { ensureEditor, missingEditorPackages } from './ensure-editor.mjs';
import {
  ensureAlertmanager,
  ensurePrometheus,
  missingAlertmanagerPackages,
  missingPrometheusPackages,
} from './ensure-prometheus.mjs';
import { ensureOpencodeConfigTemplate, opencodeCacheRoot, opencodeVersion } from './opencode-config-template.mjs';

/** Printed once the Debian packages and the plugin SDK are in place, before code-server's install. */
export const PACKAGES_READY = 'Debian packages ready';
/** The installs as a script (npm test's installs layer); importing this file runs nothing. */
async function main() {
  const log = (m) => console.log(`[installs] ${m}`);
  const t0 = Date.now();
  const opencode = process.env.SESSION_OPS_OPENCODE_BIN ?? path.join(process.cwd(), 'node_modules', '.bin', 'opencode');
  // Beside apt-get: npm's download and apt's run at once. Without it the servers install their own.
  const sdk = existsSync(opencode)
    ? ensureOpencodeConfigTemplate(opencodeVersion(opencode), opencodeCacheRoot(opencode), log)
    : Promise.resolve(null);
  try {
    const packages = [
      ...new Set([...missingEditorPackages(), ...missingPrometheusPackages(), ...missingAlertmanagerPackages()]),
    ];
    aptInstall(packages, log, (m) => {
      throw new Error(m);
    });
    ensurePrometheus(log);
    ensureAlertmanager(log);
    const template = await sdk;
    if (template) log(`opencode's plugin SDK in ${path.relative(process.cwd(), template)}`);
    // test/run-all.mjs starts the layers that need no code-server (backend) on this line.
    log(PACKAGES_READY);
    ensureEditor(log);
    log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } catch (err) {
    console.error(`[installs] ${err.message}`);
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
