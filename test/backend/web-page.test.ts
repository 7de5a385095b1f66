// The daemon's web page as a person uses it (issue 32 item 5): real Chromium (Debian's, through
// playwright-core) on the page of a real `session-ops watch` (the bundled CLI with the page's bundle
// beside it) over the real opencode server with scripted sessions.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.mjs';
import { startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { bundleCliWithPage } from './cli-bundle';
import { waitFor } from './helpers';

describe('the web page of session-ops watch in real Chromium (real daemon, real opencode)', function () {
  let tmp: string;
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let watch: ChildProcess;
  let out = '';
  let base: string;
  let browser: Browser;
  let directory: string;

  before(async function () {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-web-page-'));
    directory = mkdtempSync(path.join(os.tmpdir(), 'session-ops-web-dir-'));
    const cli = path.join(tmp, 'cli.js');
    [model] = await Promise.all([startScriptedModel(), bundleCliWithPage(cli)]);
    oc = await startOpencode({ modelUrl: model.url, configure: (c) => ({ ...c, permission: { bash: 'ask' } }) });
    const config = path.join(tmp, 'session-ops.yaml');
    writeFileSync(
      config,
      [
        'backends:',
        `  - { name: oc, baseUrl: "${oc.baseUrl}", directories: ["${directory}"] }`,
        'sampleSpacingSeconds: 2',
        '',
      ].join('\n'),
    );
    watch = spawn(
      process.execPath,
      [cli, 'watch', '--config', config, '--listen', '127.0.0.1:0', '--allow-short-spacing'],
      {
        env: { PATH: process.env.PATH ?? '', HOME: tmp, SESSION_OPS_STATE_DIR: path.join(tmp, 'state') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    watch.stdout!.on('data', (c) => (out += c));
    watch.stderr!.on('data', (c) => (out += c));
    const metricsUrl = await waitFor(
      'watch to listen',
      () =>
        /"metricsUrl":"([^"]+)"/.exec(out)?.[1] ?? (watch.exitCode !== null ? Promise.reject(new Error(out)) : null),
      20_000,
    );
    base = new URL(metricsUrl).origin;
    browser = await launchChromium();
  });

  after(async function () {
    await browser?.close();
    if (watch && watch.exitCode === null) watch.kill('SIGKILL');
    await oc?.stop();
    await model?.stop();
    rmSync(tmp, { recursive: true, force: true });
    rmSync(directory, { recursive: true, force: true });
  });

  /** A fresh page (its own sessionStorage) with every console error and CSP violation kept. */
  async function openPage(viewport = { width: 1280, height: 900 }): Promise<{ page: Page; problems: string[] }> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    return { page, problems };
  }

  it('serves the page with its CSP: the bundle runs, asks for a token, and the browser refuses inline script', async () => {
    const { page, problems } = await openPage();
    const res = await page.goto(`${base}/`);
    assert.equal(res?.status(), 200);
    assert.match(res?.headers()['content-security-policy'] ?? '', /default-src 'self'/);
    assert.equal(res?.headers()['set-cookie'], undefined);
    await page.waitForSelector('form#login input#token[type=password]');
    assert.equal(await page.title(), 'Session Ops');
    // The browser enforces the CSP: an inline script added to the document does not run.
    // (A string: this file is type-checked without the DOM's types.)
    const ran = await page.evaluate(`(async () => {
      const s = document.createElement('script');
      s.textContent = 'window.inlineRan = true';
      document.body.appendChild(s);
      await new Promise((r) => setTimeout(r, 100));
      return window.inlineRan === true;
    })()`);
    assert.equal(ran, false, 'an inline script ran despite the CSP');
    assert.ok(
      problems.some((p) => /Content Security Policy/.test(p)),
      `the refused inline script is reported: ${problems.join(' | ')}`,
    );
    assert.deepEqual(
      problems.filter((p) => !/inline script/i.test(p) && !/Content Security Policy/.test(p)),
      [],
      'no other error',
    );
    assert.deepEqual(await page.context().cookies(), []);
    await page.context().close();
  });
});
