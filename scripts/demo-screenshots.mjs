// The demo's screenshot mode: a headless Chromium on the demo's workbench sets the backend
// password through Session Ops' own command, waits until every session shows the badge of its
// state, then saves the screenshots the README shows. Any state that does not appear fails the
// run with its name.
import path from 'node:path';
import { launchBrowser } from '../test/editor/run-code-server.mjs';
import {
  clickMenuItem,
  collapseView,
  expandView,
  openContextMenu,
  openFile,
  runCommand,
  sessionLabels,
  setBackendPassword,
  waitForBadges,
} from './demo-drive.mjs';

const SIDEBAR_WIDTH = 620;

/**
 * `onSettled` is called once every badge has settled (the demo starts the web page's screenshots
 * there, beside the editor's acts, rather than after them).
 */
export async function takeScreenshots({ url, out, backends, log, expected, onSettled = () => {} }) {
  const files = [];
  const notes = [];
  const browser = await launchBrowser();
  let page;
  try {
    page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
    const shot = async (name) => {
      await page.mouse.move(0, 0);
      await page.screenshot({ path: path.join(out, `${name}.png`) });
      files.push(`${name}.png`);
      log(`screenshot ${name}.png`);
    };
    await page.goto(url);
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await page.waitForSelector('.tab[aria-label^="routing.yaml"]', { timeout: 60_000 }).catch(() => {
      throw new Error('the workbench did not open routing.yaml on start');
    });
    log('workbench is up with routing.yaml open');
    await page.click('.activitybar [aria-label^="Session Ops"]', { timeout: 30_000 });
    await page.waitForSelector('.pane-header[aria-label^="Sessions"]', { timeout: 30_000 });
    await widenSidebar(page).catch((err) => notes.push(`(the sidebar stayed narrow: ${err.message})`));

    await setBackendPassword(page, {
      backendName: backends.opencode.name,
      username: backends.opencode.username,
      password: backends.opencode.password,
    });
    log('password set through "Session Ops: Set Backend Password..."');
    const viewOpened = Date.now();

    let last = -1;
    await waitForBadges(page, expected, {
      timeoutMs: 150_000,
      onTick: (n, total) => {
        if (n !== last) log(`${n}/${total} sessions show their state`);
        last = n;
      },
    });
    const settledSeconds = (Date.now() - viewOpened) / 1000;
    onSettled();
    const pending = await backends.pendingPermissions();
    const waitingId = pending.find((p) => p.permission === 'bash')?.sessionID;
    if (!waitingId)
      throw new Error(`GET /permission shows no pending bash permission (${JSON.stringify(pending).slice(0, 200)})`);
    const waitingRow = (await sessionLabels(page)).find((l) => l.startsWith('DEMO-7 release, ')) ?? '(no row)';
    notes.push(`GET /permission: the bash call of DEMO-7 waits for a reply (${waitingId}); its row: ${waitingRow}`);
    await shot('sessions');

    await openContextMenu(page, 'DEMO-2 data model port', 'Abort and Wake');
    await shot('sessions-context-menu');
    await page.keyboard.press('Escape');

    await expandView(page, 'Providers');
    await page
      .waitForSelector(
        '.pane-body .monaco-list-row[aria-label*="backup" i], .pane-body .monaco-list-row[aria-label*="Backup"]',
        { timeout: 30_000 },
      )
      .catch(() => {
        throw new Error('the Providers view does not list the backup provider');
      });
    await shot('providers');

    await collapseView(page, 'Providers');
    await runCommand(page, 'Notifications: Clear All Notifications');
    await page.click('.tab[aria-label^="routing.yaml"]');
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel .monaco-list-row', { timeout: 60_000 }).catch(() => {
      throw new Error('the Problems panel shows no diagnostics for routing.yaml');
    });
    // The hover on the misspelt effort (line 17, column 13).
    await page.keyboard.press('Control+G');
    await page.keyboard.type('17:13', { delay: 5 });
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    await page
      .waitForSelector('.monaco-hover:not(.hidden)', { timeout: 15_000 })
      .catch(() => notes.push('(no hover showed on the misspelt effort)'));
    await shot('routing-diagnostics');
    await page.keyboard.press('Escape');

    await collapseView(page, 'Sessions');
    await expandView(page, 'Port Analysis');
    await openFile(page, 'ports/payments/source-analysis/02-public-api.md');
    await page
      .waitForSelector('.pane-body .monaco-list-row[aria-label^="port payments"]', { timeout: 60_000 })
      .catch(() => {
        throw new Error('the Port Analysis view does not show the payments port');
      });
    await page
      .waitForSelector('.pane-body .monaco-list-row[aria-label^="02-public-api, 3 warnings"]', { timeout: 60_000 })
      .catch(() => {
        throw new Error('the Port Analysis view does not count the 3 warnings of payments/02-public-api');
      });
    await shot('port-analysis');

    await page.keyboard.press('Control+J');
    await collapseView(page, 'Port Analysis');
    await expandView(page, 'Sessions');
    await openContextMenu(page, 'DEMO-4 error codes', 'Wake with Prompt...');
    await clickMenuItem(page, 'Wake with Prompt...');
    await page
      .waitForSelector('.quick-input-widget:not([style*="display: none"]) .quick-input-list .monaco-list-row', {
        timeout: 30_000,
      })
      .catch(() => {
        throw new Error('Wake with Prompt... did not offer the prompt kinds');
      });
    await page.keyboard.press('Enter');
    const send = page.locator('.codelens-decoration a', { hasText: 'Send to "DEMO-4 error codes"' }).first();
    await send.waitFor({ timeout: 30_000 }).catch(() => {
      throw new Error('the prompt preview has no Send lens');
    });
    await shot('prompt-preview');

    // The action for real: send the reviewed prompt and see the row confirm it.
    await send.click();
    await page
      .waitForSelector('.monaco-list-row[aria-label^="DEMO-4 error codes, "][aria-label*="confirmed"]', {
        timeout: 60_000,
      })
      .catch(() => {
        throw new Error('the wake sent from the prompt preview was not confirmed on the row');
      });
    notes.push('Wake with Prompt...: sent from the preview, confirmed on the row');

    // The other rescues, from the rows' context menus, as a person would.
    notes.push(
      `Abort and Wake: ${await runRowAction(page, 'DEMO-2 data model port', 'Abort and Wake', /woken on \S+, (not )?confirmed/)}`,
    );
    notes.push(
      `Recover on Another Provider: ${await runRowAction(page, 'DEMO-5 fidelity baseline', 'Recover on Another Provider', /recovered on (backup|local)\/\S+/)}`,
    );
    // Costs: every opencode session shows one, and DEMO-1's tool loop crosses the $1 budget.
    await page
      .waitForSelector('.monaco-list-row[aria-label^="DEMO-1 long refactor, "][aria-label*="(over budget)"]', {
        timeout: 120_000,
      })
      .catch(async () => {
        const row = await page.getAttribute('.monaco-list-row[aria-label^="DEMO-1 long refactor, "]', 'aria-label');
        throw new Error(`DEMO-1 did not cross its $1 budget; its row: ${row}`);
      });
    const demoRows = (await sessionLabels(page)).filter((l) => /^DEMO-\d /.test(l));
    const costed = demoRows.filter((l) => /\$\d+\.\d+/.test(l));
    if (demoRows.length === 0 || costed.length !== demoRows.length)
      throw new Error(`not every DEMO session shows a cost:\n${demoRows.join('\n')}`);
    notes.push(`costs: ${costed.length} opencode sessions show theirs; ${costed.find((l) => l.startsWith('DEMO-1 '))}`);
    return { settledSeconds, files, notes };
  } catch (err) {
    // What the workbench showed when a step failed, for the message's reader.
    await page?.screenshot({ path: path.join(out, 'failure.png') }).catch(() => {});
    throw new Error(`${err.message}\n(the workbench at that moment: ${path.join(out, 'failure.png')})`, { cause: err });
  } finally {
    await browser.close().catch(() => {});
  }
}

/** Runs a row's context-menu action, waits until the row says `done` (its operation text), returns the row's label. */
async function runRowAction(page, title, action, done) {
  await openContextMenu(page, title, action);
  await clickMenuItem(page, action);
  await page
    .waitForFunction(
      ({ t, re }) =>
        [...document.querySelectorAll('.monaco-list-row[aria-label]')].some((r) => {
          const label = r.getAttribute('aria-label') ?? '';
          return label.startsWith(`${t}, `) && new RegExp(re).test(label);
        }),
      { t: title, re: done.source },
      { timeout: 90_000 },
    )
    .catch(async () => {
      const row = await page.getAttribute(`.monaco-list-row[aria-label^="${title}, "]`, 'aria-label').catch(() => null);
      throw new Error(`${action} on "${title}" did not finish (${done}); the row: ${row}`);
    });
  return page.getAttribute(`.monaco-list-row[aria-label^="${title}, "]`, 'aria-label');
}

/** Drags the sidebar's sash so the rows' descriptions (verdict, age, model) are readable. */
async function widenSidebar(page) {
  const box = await page.locator('.part.sidebar').boundingBox();
  if (!box) throw new Error('no sidebar');
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width - 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + SIDEBAR_WIDTH, y, { steps: 8 });
  await page.mouse.up();
}
