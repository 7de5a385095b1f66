#!/usr/bin/env node
// npm test's `installs` layer, started first and run beside build, lint and unit: everything the
// later layers install once on a fresh machine, in one go. The Debian packages of the editor
// harness (chromium, ripgrep, libkrb5-dev) and of the Prometheus tests (prometheus,
// prometheus-alertmanager) in one `apt-get install --no-install-recommends`
// (test/support/apt.mjs), then code-server into .cache/code-server (ensure-editor.mjs); meanwhile
// opencode's plugin SDK into .cache/opencode-config (opencode-config-template.mjs), which every
// test server's HOME then gets instead of installing it itself. Nothing to
// do when all are there. Exits 1 with the reason when it cannot install: the layers that need them
// then fail too, each saying why.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { aptInstall } from './apt.mjs';
import { ensureEditor, missingEditorPackages } from './ensure-editor.mjs';
import {
  ensureAlertmanager,
  ensurePrometheus,
  missingAlertmanagerPackages,
  missingPrometheusPackages,
} from './ensure-prometheus.mjs';
import { ensureOpencodeConfigTemplate, opencodeCacheRoot, opencodeVersion } from './opencode-config-template.mjs';

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
  ensureEditor(log);
  ensurePrometheus(log);
  ensureAlertmanager(log);
  const template = await sdk;
  if (template) log(`opencode's plugin SDK in ${path.relative(process.cwd(), template)}`);
  log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
} catch (err) {
  console.error(`[installs] ${err.message}`);
  process.exit(1);
}
