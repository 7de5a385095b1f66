#!/usr/bin/env node
// Packages the extension with @vscode/vsce, installs the .vsix into a fresh code-server
// (--install-extension), opens the workbench WITHOUT the development path and checks, in the
// rendered page, that the installed extension contributes its container and views and activates
// (its log channel reports the activation). Screenshot: test-results/vsix-installed.png.
// Before that, every relative link of README.md (the Marketplace page, and the details page in the
// editor) must reach a file the .vsix ships: `--no-rewrite-relative-links` keeps them as written,
// so they resolve against the packaged files or not at all (read from the archive itself).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipEntries } from '../support/zip-entries.mjs';
import { launchBrowser, launchCodeServer } from './run-code-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const log = (m) => console.log(`[vsix] ${m}`);

export async function runVsixCheck() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-vsix-'));
  const vsix = path.join(tmp, 'session-ops.vsix');
  const pack = spawnSync(
    'npx',
    [
      '--no-install',
      'vsce',
      'package',
      '--no-dependencies',
      '--no-rewrite-relative-links',
      '--allow-missing-repository',
      '--out',
      vsix,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (pack.status !== 0) throw new Error(`vsce package failed:\n${pack.stdout}\n${pack.stderr}`);
  log(`packaged ${(statSync(vsix).size / 1024).toFixed(0)} KiB`);
  checkReadmeLinks(vsix);
  const cs = await launchCodeServer({ installExtensions: [vsix] });
  const browser = await launchBrowser();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
    await page.goto(cs.url(undefined, { development: false }));
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await page.click('.activitybar a[aria-label^="Session Ops"]', { timeout: 30_000 });
    await page.waitForSelector('.pane-header[aria-label^="Sessions"]', { timeout: 30_000 });
    await page.waitForSelector('.pane-header[aria-label^="Providers"]', { timeout: 30_000 });
    // Activation: the extension's log channel says so.
    await page.keyboard.press('F1');
    await page.waitForSelector('.quick-input-widget input', { timeout: 15_000 });
    await page.keyboard.type('Session Ops: Show Log');
    await page.waitForSelector('.quick-input-list .monaco-list-row', { timeout: 15_000 });
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      () =>
        [...document.querySelectorAll('.view-lines')].some((e) =>
          /Session\s+Ops\s+[\d.]+\s+activated\s+in/.test(e.textContent ?? ''),
        ),
      undefined,
      { timeout: 30_000 },
    );
    mkdirSync(path.join(root, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(root, 'test-results', 'vsix-installed.png') });
    log('installed .vsix activates: container, both views and the activation log line are there');
  } finally {
    await browser.close().catch(() => {});
    await cs.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** README.md's relative links (outside code), each resolved against the archive's `extension/` folder. */
export function checkReadmeLinks(vsix) {
  const shipped = new Set(
    zipEntries(vsix)
      .filter((e) => e.startsWith('extension/'))
      .map((e) => e.slice('extension/'.length)),
  );
  if (!shipped.has('docs/cli.md')) throw new Error('the .vsix leaves out the docs/ pages');
  const prose = readFileSync(path.join(root, 'README.md'), 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/`[^`\n]*`/g, '');
  const targets = [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1].split('#')[0])
    .filter((t) => t !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(t))
    .map((t) => path.posix.normalize(t));
  if (targets.length === 0) throw new Error('README.md has no relative link: the check would prove nothing');
  const missing = [...new Set(targets)].filter((t) => !shipped.has(t));
  if (missing.length) throw new Error(`README.md links to files the .vsix leaves out: ${missing.join(', ')}`);
  log(`README.md's ${new Set(targets).size} relative links all reach files the .vsix ships`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runVsixCheck().then(
    () => process.exit(0),
    (err) => {
      console.error(`[vsix] FAILED: ${err.message}`);
      process.exit(1);
    },
  );
}
