#!/usr/bin/env node
// `npm run demo`: Session Ops in a real editor (code-server, VS Code 1.100.3) against embedded
// backends on loopback (scripts/demo-backends.mjs): the real opencode server, password-protected,
// with a scripted local model and a session in every state, and a spec-dialect server.
//
//   node scripts/demo.mjs                      code-server until Ctrl+C; prints the URL and the password to set
//   node scripts/demo.mjs --screenshots DIR    headless: sets the password through the command, waits until every
//                                              badge has settled, saves screenshots to DIR, exits 0 (1 with the reason)
//   node scripts/demo.mjs --screenshots DIR --web-only   only the web page's screenshots (no editor)
//   node scripts/demo.mjs --backend-only       only the backends, and the settings to paste into a desktop VS Code
//   --prometheus                               with any of the above: also a local Prometheus scraping watch with
//                                              the shipped alert rules (its alerts page URL is printed)
// Every mode also runs `session-ops watch` over the demo backends (scripts/demo-watch.mjs; its
// /metrics URL, its web page and the page's act token are printed). The screenshot mode also takes
// the web page's screenshots (scripts/demo-web-screenshots.mjs), after the editor's.
//
// Every child runs in a process group of its own and is killed on every exit path
// (test/support/processes.mjs), Ctrl+C included.
import { mkdirSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { track } from '../test/support/processes.mjs';
import { OPENCODE_SESSIONS, SPEC_SESSIONS, startDemoBackends } from './demo-backends.mjs';
import { startDemoWatch } from './demo-watch.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const workspaceSource = path.join(root, 'scripts', 'demo-workspace');
const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i < 0 ? undefined : (argv[i + 1] ?? '');
};
const screenshotsDir = flag('--screenshots');
const backendOnly = argv.includes('--backend-only');
const withPrometheus = argv.includes('--prometheus');
const webOnly = argv.includes('--web-only');
if (
  screenshotsDir === '' ||
  (webOnly && !screenshotsDir) ||
  argv.some((a) => a.startsWith('--') && !['--screenshots', '--backend-only', '--prometheus', '--web-only'].includes(a))
) {
  console.error('usage: node scripts/demo.mjs [--screenshots DIR [--web-only] | --backend-only] [--prometheus]');
  process.exit(2);
}

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;
const log = (m) => console.log(`[demo ${elapsed()}] ${m}`);

/** The pid of the opencode server (spawned detached by test/support/opencode.ts with its HOME as cwd). */
function pidWithCwd(dir) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === dir) return Number(entry);
    } catch {
      /* gone or not ours */
    }
  }
  return undefined;
}

const cleanups = [];
process.on('exit', () => {
  for (const c of cleanups)
    try {
      c();
    } catch {
      /* best effort */
    }
});

const backends = await startDemoBackends({ log });
// Let processes.mjs kill the opencode server's group on every exit path, like code-server's.
const ocPid = pidWithCwd(backends.opencode.home);
if (ocPid)
  track({
    pid: ocPid,
    exitCode: null,
    signalCode: null,
    once() {},
    kill(sig) {
      process.kill(ocPid, sig);
    },
  });
cleanups.push(
  () => rmSync(backends.opencode.home, { recursive: true, force: true }),
  () => rmSync(backends.opencode.directory, { recursive: true, force: true }),
);

let watch;
try {
  watch = await startDemoWatch(backends, { log, prometheus: withPrometheus });
} catch (err) {
  console.error(`[demo] FAILED: ${err.message}`);
  await backends.stop();
  process.exit(1);
}

const settings = {
  'sessionOps.backends': backends.settings,
  'sessionOps.sampleSpacingSeconds': 30,
  'sessionOps.budget.sessionUsd': 1,
};
// The editor only: code-server would announce every loopback port the backends open.
const editorSettings = { ...settings, 'remote.autoForwardPorts': false };

async function stopAll(cs, code) {
  await cs?.stop().catch(() => {});
  await watch.stop();
  await backends.stop();
  process.exit(code);
}

/** The web page's screenshots into `out` (the demo's sessions listed and settled, the waiting and hung ones in its attention list). */
async function webScreenshots(out) {
  const { takeWebScreenshots } = await import('./demo-web-screenshots.mjs');
  return takeWebScreenshots({
    pageUrl: watch.pageUrl,
    token: watch.token,
    out,
    log,
    titles: [...OPENCODE_SESSIONS, ...SPEC_SESSIONS].map((s) => s.title),
    attention: [
      { title: 'DEMO-7 release', reason: 'waiting' },
      { title: 'PAY-102 data model', reason: 'hung' },
    ],
  });
}

if (screenshotsDir && webOnly) {
  const out = path.resolve(screenshotsDir);
  mkdirSync(out, { recursive: true });
  let code = 0;
  try {
    const report = await webScreenshots(out);
    log(
      `${report.files.length} screenshots of the web page in ${path.relative(process.cwd(), out) || '.'}: ${report.files.join(', ')}`,
    );
    for (const note of report.notes) log(note);
  } catch (err) {
    console.error(`[demo] FAILED: ${err.message}`);
    code = 1;
  }
  await stopAll(undefined, code);
} else if (backendOnly) {
  console.log(
    `\nThe demo backends are running. Paste into your VS Code user settings (settings.json):\n\n${JSON.stringify(settings, null, 2)}\n`,
  );
  console.log(
    `Then run "Session Ops: Set Backend Password...", pick "${backends.opencode.name}", user "${backends.opencode.username}", password ${backends.opencode.password}`,
  );
  console.log('(a throwaway password for this run; the opencode backend answers 401 until it is set).');
  console.log(`The sessions' directory is ${backends.opencode.directory}.`);
  console.log(
    `session-ops watch: ${watch.metricsUrl}${watch.alertsUrl ? `; alerts: ${watch.alertsUrl}` : ''}; its web page: ${watch.pageUrl} (token ${watch.token}). Stop: Ctrl+C\n`,
  );
  process.on('SIGINT', () => stopAll(undefined, 0));
  process.on('SIGTERM', () => stopAll(undefined, 0));
} else {
  const { launchCodeServer } = await import('../test/editor/run-code-server.mjs');
  const cs = await launchCodeServer({
    workspace: workspaceSource,
    settings: editorSettings,
    // Screenshot mode only: a second code-server window must not pick up test hooks in a person's demo.
    env: screenshotsDir ? { SESSION_OPS_TEST_HOOKS: '1' } : {},
  });
  cleanups.push(() => rmSync(cs.work, { recursive: true, force: true }));
  // The workbench opens on the routing table (the workbench URL's openFile).
  const url = new URL(cs.url());
  const payload = JSON.parse(url.searchParams.get('payload'));
  payload.push(['openFile', `vscode-remote://127.0.0.1:${cs.port}${path.join(cs.workspace, 'routing.yaml')}`]);
  url.searchParams.set('payload', JSON.stringify(payload));

  if (screenshotsDir) {
    const { takeScreenshots } = await import('./demo-screenshots.mjs');
    const out = path.resolve(screenshotsDir);
    mkdirSync(out, { recursive: true });
    let code = 0;
    // The web page of the same watch: its screenshots are taken once the editor's badges have
    // settled (so has the watch, which started first), beside the editor's acts.
    let web;
    try {
      const report = await takeScreenshots({
        url: url.href,
        out,
        backends,
        log,
        expected: [...OPENCODE_SESSIONS, ...SPEC_SESSIONS],
        onSettled: () => {
          web = webScreenshots(out);
          web.catch(() => {}); // awaited below; never an unhandled rejection meanwhile
        },
      });
      log(
        `every badge settled ${report.settledSeconds.toFixed(0)} s after the view opened; ${report.files.length} screenshots in ${path.relative(process.cwd(), out) || '.'}: ${report.files.join(', ')}`,
      );
      for (const note of report.notes) log(note);
      const webReport = await web;
      log(`${webReport.files.length} screenshots of the web page: ${webReport.files.join(', ')}`);
      for (const note of webReport.notes) log(note);
    } catch (err) {
      console.error(`[demo] FAILED: ${err.message}`);
      code = 1;
    }
    await stopAll(cs, code);
  } else {
    console.log(`\nSession Ops demo is running.\n  Open: ${url.href}\n  Backends: ${backends.describe}`);
    console.log(`  session-ops watch metrics: ${watch.metricsUrl}`);
    console.log(`  session-ops watch web page: ${watch.pageUrl} (paste the token ${watch.token})`);
    if (watch.alertsUrl) console.log(`  Prometheus alerts (the shipped rules): ${watch.alertsUrl}`);
    console.log(
      `  The opencode backend is password-protected: run "Session Ops: Set Backend Password..." (F1), pick "${backends.opencode.name}",`,
    );
    console.log(
      `  keep the user "${backends.opencode.username}", password ${backends.opencode.password} (a throwaway for this run).`,
    );
    console.log('  Badges settle about 30 s after the Session Ops view opens. Stop: Ctrl+C\n');
    process.on('SIGINT', () => stopAll(cs, 0));
    process.on('SIGTERM', () => stopAll(cs, 0));
  }
}
