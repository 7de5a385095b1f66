#!/usr/bin/env node
// Runs the editor suite inside the extension host of a real VS Code: code-server (VS Code 1.100.3)
// driven by Debian's Chromium through playwright-core. The suite is loaded through the workbench
// URL payload (extensionDevelopmentPath + extensionTestsPath) and its outcome is taken from
// codeAutomationExit. A small loopback HTTP service lets the suite ask for screenshots and read
// the rendered DOM. Every run saves screenshots to test-results/; a failed run also saves the
// extension host logs. The harness never skips: if it cannot run, it fails and says why.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { launchChromium } from '../support/chromium.mjs';
import { ensureEditor } from '../support/ensure-editor.mjs';
import { spawnTracked, stopGroup } from '../support/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = path.join(root, 'test-results');
const TOTAL_TIMEOUT_MS = Number(process.env.SESSION_OPS_EDITOR_TIMEOUT_MS ?? 20 * 60_000);

const began = Date.now();
/** Each line says when, in seconds since this process started: where the layer's time goes. */
const logLine = (m) => console.log(`[editor +${((Date.now() - began) / 1000).toFixed(0)} s] ${m}`);
const log = logLine;

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url, timeoutMs, isAlive) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive()) throw new Error(`code-server exited before ${url} answered`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/**
 * Starts code-server on a free loopback port with a private HOME, user-data and extensions folder
 * and a copy of the workspace. Returns its port, paths, a workbench URL builder and stop().
 * Options: { workspace, settings, env, trust }
 */
export async function launchCodeServer(options = {}) {
  const { codeServerBin } = ensureEditor();
  const work = mkdtempSync(path.join(os.tmpdir(), 'session-ops-editor-'));
  const home = path.join(work, 'home');
  const userData = path.join(work, 'user-data');
  const extensionsDir = path.join(work, 'extensions');
  const workspace = path.join(work, 'workspace');
  for (const d of [home, path.join(userData, 'User'), extensionsDir]) mkdirSync(d, { recursive: true });
  cpSync(options.workspace ?? path.join(root, 'test', 'editor', 'workspace'), workspace, { recursive: true });
  writeFileSync(
    path.join(userData, 'User', 'settings.json'),
    JSON.stringify(
      {
        'security.workspace.trust.enabled': options.trust ?? false,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'update.mode': 'none',
        // No "your application on port N is available" notification stealing focus from input boxes.
        'remote.autoForwardPorts': false,
        ...(options.settings ?? {}),
      },
      null,
      2,
    ),
  );
  const env = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    ...(options.env ?? {}),
  };
  for (const vsix of options.installExtensions ?? []) {
    const r = spawnSync(
      process.execPath,
      [codeServerBin, '--user-data-dir', userData, '--extensions-dir', extensionsDir, '--install-extension', vsix],
      { env, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`code-server --install-extension ${vsix} failed: ${r.stderr || r.stdout}`);
  }
  const port = await freePort();
  const args = [
    codeServerBin,
    '--auth',
    'none',
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--user-data-dir',
    userData,
    '--extensions-dir',
    extensionsDir,
  ];
  if (options.trust !== true) args.push('--disable-workspace-trust');
  args.push(workspace);
  const serverLog = [];
  // Its own process group, killed whole on every exit path of this process (test/support/processes.mjs).
  const server = spawnTracked(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let alive = true;
  server.on('exit', () => {
    alive = false;
  });
  server.stdout.on('data', (d) => serverLog.push(String(d)));
  server.stderr.on('data', (d) => serverLog.push(String(d)));
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000, () => alive);
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  return {
    port,
    work,
    userData,
    workspace,
    serverLog,
    /** The workbench URL for the workspace, with the extension under development and optional tests. */
    url(testsPath, { development = true } = {}) {
      if (!development) return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
      const payload = [['extensionDevelopmentPath', remote(root)]];
      if (testsPath) payload.push(['extensionTestsPath', remote(testsPath)]);
      return `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    },
    async stop() {
      if (alive) await stopGroup(server, 2_000);
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** Launches Chromium headless with the flags this machine needs (installing what the editor needs first). */
export async function launchBrowser() {
  ensureEditor();
  return launchChromium();
}

/** Options: { workspace, settings, env, grep, trust, tag, prefix (put before each line of the suite's output) } */
export async function runEditorSuite(options = {}) {
  const prefix = options.prefix ?? '';
  const log = (m) => logLine(`${prefix}${m}`);
  const testIndex = path.join(root, 'out', 'test', 'editor', 'index.js');
  if (!existsSync(testIndex) || !existsSync(path.join(root, 'dist', 'extension.js'))) {
    throw new Error('the bundles are missing: run "npm run build" first (npm test does)');
  }
  mkdirSync(resultsDir, { recursive: true });
  // Each run's own summary file: the editor layer and the benches' editor runs may overlap.
  const suffix = options.tag ? `-${options.tag}` : '';
  const summaryName = `editor-results${suffix}.json`;
  rmSync(path.join(resultsDir, summaryName), { force: true });

  // The harness service the suite talks to.
  let page;
  const barriers = new Map();
  let secondWindow;
  const service = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    try {
      const args = body ? JSON.parse(body) : {};
      if (!page && !['/barrier', '/second-window', '/second-window-result'].includes(req.url))
        throw new Error('the page is not open yet');
      let result = { ok: true };
      if (req.url === '/ping') {
        result = { ok: true, workbench: (await page.$('.monaco-workbench')) !== null };
      } else if (req.url === '/screenshot') {
        const safe = String(args.name).replace(/[^a-z0-9._-]+/gi, '-');
        const file = path.join(resultsDir, `${safe}.png`);
        await page.screenshot({ path: file });
        log(`screenshot saved: ${path.relative(root, file)}`);
      } else if (req.url === '/query') {
        result = await page.$$eval(args.selector, (els) =>
          els.map((e) => ({
            text: e.textContent ?? '',
            ariaLabel: e.getAttribute('aria-label'),
            className: typeof e.className === 'string' ? e.className : '',
            title: e.getAttribute('title'),
          })),
        );
      } else if (req.url === '/click') {
        // A hover tooltip left by the last pointer position can cover the element to click.
        await page.mouse.move(0, 0);
        await page
          .locator('.context-view .monaco-hover, .workbench-hover-container')
          .first()
          .waitFor({ state: 'hidden', timeout: 3_000 })
          .catch(() => undefined);
        await page.click(args.selector, { timeout: 10_000, button: args.button === 'right' ? 'right' : 'left' });
      } else if (req.url === '/barrier') {
        // Answers every caller once `parties` callers of one `name` have come (a window here and one
        // opened through /second-window act at the same moment).
        const waiting = barriers.get(args.name) ?? [];
        barriers.set(args.name, waiting);
        await new Promise((release) => {
          waiting.push(release);
          if (waiting.length >= Number(args.parties)) for (const r of waiting.splice(0)) r();
        });
      } else if (req.url === '/second-window') {
        // A second window: another code-server with its own extension host, running the suite
        // `args.suite` with `args.env`; this service's URL goes along as SESSION_OPS_PEER_URL (its
        // /barrier). The answer comes at once; /second-window-result waits for the run's exit code.
        secondWindow = runEditorSuite({
          tag: 'second-window',
          prefix: '[second-window] ',
          env: { ...args.env, SESSION_OPS_EDITOR_SUITE: args.suite, SESSION_OPS_PEER_URL: harnessUrl },
        }).catch((err) => {
          log(`second window: ${err.message}`);
          return 1;
        });
      } else if (req.url === '/second-window-result') {
        if (!secondWindow) throw new Error('no second window was opened');
        result = { ok: true, exitCode: await secondWindow };
      } else if (req.url === '/press') {
        await page.keyboard.press(args.keys);
      } else if (req.url === '/type') {
        await page.keyboard.type(args.text, { delay: 5 });
      } else if (req.url === '/fill') {
        // Into the element itself (not whatever has focus), then Enter on it: no keystroke is lost
        // to a widget that is still taking focus on a slow machine.
        await page.fill(args.selector, String(args.text), { timeout: 10_000 });
        if (args.submit) await page.press(args.selector, 'Enter', { timeout: 10_000 });
      } else {
        res.writeHead(404).end('unknown endpoint');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    } catch (err) {
      res.writeHead(500).end(String(err?.message ?? err));
    }
  });
  await new Promise((r) => service.listen(0, '127.0.0.1', r));
  const harnessUrl = `http://127.0.0.1:${service.address().port}`;

  const cs = await launchCodeServer({
    ...options,
    env: {
      SESSION_OPS_HARNESS_URL: harnessUrl,
      SESSION_OPS_EDITOR_RUNNER: 'code-server',
      // Registers sessionOps.test.configureMonitor (src/extension/testHooks.ts): tests lower the
      // monitor's minimum spacing instead of sleeping 30 s.
      SESSION_OPS_TEST_HOOKS: '1',
      SESSION_OPS_RESULTS_DIR: resultsDir,
      SESSION_OPS_RESULTS_FILE: summaryName,
      SESSION_OPS_REPO_ROOT: root,
      ...(options.grep ? { SESSION_OPS_EDITOR_GREP: options.grep } : {}),
      ...(options.env ?? {}),
    },
  });
  let browser;
  let exitCode = 1;
  const consoleLines = [];
  try {
    browser = await launchBrowser();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.on('console', async (msg) => {
      let text = msg.text();
      try {
        // The workbench forwards extension-host output as ['%c INFO', 'color: ...', format, ...values].
        const args = await Promise.all(msg.args().map((a) => a.jsonValue()));
        if (typeof args[0] === 'string' && args[0].startsWith('%c')) text = format(...args.slice(2));
      } catch {
        /* keep msg.text() */
      }
      consoleLines.push(text);
      if (
        process.env.SESSION_OPS_EDITOR_VERBOSE ||
        /passing|failing|pending|✔|✓|\d+\) |Error|AssertionError|^\[editor\] /.test(text)
      ) {
        if (!/Failed to load resource|DevTools|webview/i.test(text)) console.log(`  ${prefix}${text}`);
      }
    });
    const exited = new Promise((resolve) => page.exposeFunction('codeAutomationExit', (code) => resolve(Number(code))));
    log(`code-server on port ${cs.port}, workspace ${cs.workspace}`);
    await page.goto(cs.url(testIndex));
    // Wait for the workbench itself, not a fixed sleep.
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    log('workbench is up; running the suite in its extension host');
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the suite did not finish within ${TOTAL_TIMEOUT_MS / 60000} min`)),
        TOTAL_TIMEOUT_MS,
      );
    });
    exitCode = await Promise.race([exited, timeout]);
    clearTimeout(timer);
    await page.screenshot({ path: path.join(resultsDir, `editor-final${suffix}.png`) }).catch(() => {});
  } catch (err) {
    console.error(`[editor] ${err.message}`);
    if (page) await page.screenshot({ path: path.join(resultsDir, `editor-failure${suffix}.png`) }).catch(() => {});
    exitCode = 1;
  } finally {
    const summaryFile = path.join(resultsDir, summaryName);
    if (existsSync(summaryFile)) {
      const { outcomes } = JSON.parse(readFileSync(summaryFile, 'utf8'));
      for (const o of outcomes)
        console.log(
          `  ${prefix}${o.state === 'passed' ? 'ok  ' : o.state === 'failed' ? 'FAIL' : 'skip'} ${o.title}${
            o.error
              ? '\n' +
                o.error
                  .split('\n')
                  .slice(0, 8)
                  .map((l) => '       ' + l)
                  .join('\n')
              : ''
          }`,
        );
    }
    if (exitCode !== 0) {
      const logsOut = path.join(resultsDir, `editor-logs${suffix}`);
      rmSync(logsOut, { recursive: true, force: true });
      const logsIn = path.join(cs.userData, 'logs');
      if (existsSync(logsIn)) cpSync(logsIn, logsOut, { recursive: true });
      writeFileSync(path.join(resultsDir, `editor-code-server${suffix}.log`), cs.serverLog.join(''));
      writeFileSync(path.join(resultsDir, `editor-browser-console${suffix}.log`), consoleLines.join('\n'));
      const exthost = findFiles(logsOut, /exthost|remoteexthost/i);
      log(
        `failure logs saved to ${path.relative(root, logsOut)}${exthost.length ? ` (extension host: ${exthost.map((f) => path.relative(root, f)).join(', ')})` : ''}`,
      );
    }
    await browser?.close().catch(() => {});
    service.close();
    await cs.stop();
  }
  return exitCode;
}

function findFiles(dir, re) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(p, re));
    else if (re.test(p)) out.push(p);
  }
  return out;
}

/**
 * The editor layer: the main suite, then Restricted Mode with a hostile workspace. The main suite runs
 * as two halves at once (SESSION_OPS_EDITOR_HALVES=1: in one run), each in a code-server of its own
 * (private HOME, ports, workspace copy and summary file), the untrusted run after the shorter half:
 * its tests mostly wait on real servers and the monitor's rounds, so two extension hosts share the
 * CPU without waiting on each other. Each line of a half is prefixed with its name.
 */
export async function runAllEditorSuites(grep) {
  const untrustedRun = async () => {
    const untrusted = await runEditorSuite({
      trust: true,
      tag: 'untrusted',
      workspace: path.join(root, 'test', 'editor', 'untrusted-workspace'),
      env: { SESSION_OPS_EDITOR_SUITE: 'untrusted' },
    });
    log(untrusted === 0 ? 'untrusted-workspace suite passed' : `untrusted-workspace suite FAILED (exit ${untrusted})`);
    return untrusted;
  };
  if (grep || process.env.SESSION_OPS_EDITOR_HALVES === '1') {
    const main = await runEditorSuite({ grep });
    log(main === 0 ? 'editor suite passed' : `editor suite FAILED (exit ${main})`);
    return grep ? main : main || (await untrustedRun());
  }
  const half = async (name, then) => {
    const code = await runEditorSuite({ tag: name, prefix: `[${name}] `, env: { SESSION_OPS_EDITOR_SUITE: name } });
    log(code === 0 ? `editor suite ${name} passed` : `editor suite ${name} FAILED (exit ${code})`);
    return code || (then ? await then() : 0);
  };
  const [a, b] = await Promise.all([half('main-a'), half('main-b', untrustedRun)]);
  return a || b;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runAllEditorSuites(process.argv[2]).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err.message);
      process.exit(1);
    },
  );
}
