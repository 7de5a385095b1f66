#!/usr/bin/env node
// npm test's `installs` layer, started first and run beside build, lint and unit: everything the
// later layers install once on a fresh machine, in one go. The Debian packages of the editor
// harness (chromium, ripgrep, libkrb5-dev) and of the Prometheus tests (prometheus,
// prometheus-alertmanager) in one `apt-get install --no-install-recommends`
// (test/support/apt.mjs), then code-server into .cache/code-server (ensure-editor.mjs). Nothing to
// do when all are there. Exits 1 with the reason when it cannot install: the layers that need them
// then fail too, each saying why.
import { aptInstall } from './apt.mjs';
import { ensureEditor, missingEditorPackages } from './ensure-editor.mjs';
import {
  ensureAlertmanager,
  ensurePrometheus,
  missingAlertmanagerPackages,
  missingPrometheusPackages,
} from './ensure-prometheus.mjs';

const log = (m) => console.log(`[installs] ${m}`);
const t0 = Date.now();
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
  log(`ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
} catch (err) {
  console.error(`[installs] ${err.message}`);
  process.exit(1);
}
