#!/usr/bin/env node
// `npm run demo`: Session Ops in a real editor (code-server, VS Code 1.100.3) against embedded
// backends started on loopback. Prints the workbench URL to open in a browser, saves a
// screenshot to test-results/demo.png, and runs until Ctrl+C.
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchBrowser, launchCodeServer } from '../test/editor/run-code-server.mjs';
import { startDemoBackends } from './demo-backends.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const backends = await startDemoBackends();
const cs = await launchCodeServer({
  workspace: path.join(root, 'scripts', 'demo-workspace'),
  settings: {
    'sessionOps.backends': backends.settings,
    'sessionOps.sampleSpacingSeconds': 30,
  },
  env: backends.env,
});
const url = cs.url();
console.log(`\nSession Ops demo is running.\n  Open: ${url}\n  Backends: ${backends.describe}\n  Stop: Ctrl+C\n`);

let browser;
try {
  browser = await launchBrowser();
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  await page.click('.activitybar [aria-label^="Session Ops"]', { timeout: 30_000 }).catch(() => {});
  await page.waitForSelector('.pane-header[aria-label^="Sessions"]', { timeout: 30_000 }).catch(() => {});
  // Wait for the first sampled rows rather than a fixed time.
  await page.waitForFunction(() => document.querySelectorAll('.monaco-list-row[aria-label*="report: done"]').length >= 2 && document.querySelectorAll('.monaco-list-row[aria-label^="OpenAI"]').length > 0, undefined, { timeout: 60_000 }).catch(() => {});
  mkdirSync(path.join(root, 'test-results'), { recursive: true });
  await page.screenshot({ path: path.join(root, 'test-results', 'demo.png') });
  console.log('Screenshot: test-results/demo.png');
} catch (err) {
  console.error(`(could not take the demo screenshot: ${err.message})`);
} finally {
  await browser?.close().catch(() => {});
}

const stop = async () => {
  await cs.stop();
  await backends.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
if (process.env.SESSION_OPS_DEMO_EXIT) await stop();
