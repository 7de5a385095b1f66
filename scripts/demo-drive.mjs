// Drives the demo's workbench the way a person would (playwright-core on code-server): the
// command palette, quick inputs, context menus, views. Each step waits for what it needs to see,
// with a deadline, and throws a clear error naming what did not appear.

export const ROW = '.monaco-list-row';
const QUICK_INPUT = '.quick-input-widget:not([style*="display: none"])';

/** The Sessions rows as their accessible labels ("title, badge, description"). */
export async function sessionLabels(page) {
  return page.$$eval(`.pane-body ${ROW}[aria-label]`, (rows) => rows.map((r) => r.getAttribute('aria-label') ?? ''));
}

async function waitQuickInput(page, what) {
  await page.waitForSelector(QUICK_INPUT, { timeout: 15_000 }).catch(() => {
    throw new Error(`the quick input for ${what} did not open`);
  });
}

/** Runs a command from the palette by its title ("Session Ops: Set Backend Password..."). */
export async function runCommand(page, title) {
  await page.keyboard.press('F1');
  await waitQuickInput(page, 'the command palette');
  await page.keyboard.type(title, { delay: 5 });
  const item = `${QUICK_INPUT} .quick-input-list ${ROW}[aria-label*="${title.replace(/"/g, '\\"')}"]`;
  await page.waitForSelector(item, { timeout: 15_000 }).catch(() => {
    throw new Error(`the command "${title}" is not in the command palette`);
  });
  await page.keyboard.press('Enter');
}

/**
 * Session Ops: Set Backend Password..., as a person does it: the backend pick, the user name box,
 * the password box. The password goes only into the editor's secret storage.
 */
export async function setBackendPassword(page, { backendName, username, password }) {
  await runCommand(page, 'Session Ops: Set Backend Password...');
  await waitQuickInput(page, 'the backend pick');
  // Two backends: a quick pick. Filter it to ours.
  const pick = await page.$(`${QUICK_INPUT} .quick-input-list ${ROW}`);
  if (pick) {
    await page.keyboard.type(backendName, { delay: 5 });
    await page.waitForSelector(`${QUICK_INPUT} .quick-input-list ${ROW}[aria-label*="${backendName}"]`, {
      timeout: 10_000,
    });
    await page.keyboard.press('Enter');
  }
  await page
    .locator('.quick-input-title', { hasText: `User name for ${backendName}` })
    .first()
    .waitFor({ timeout: 15_000 })
    .catch(() => {
      throw new Error('the user name box of Set Backend Password... did not open');
    });
  await page.keyboard.press('Control+A');
  await page.keyboard.type(username, { delay: 5 });
  await page.keyboard.press('Enter');
  await page.waitForSelector(`${QUICK_INPUT} input[type="password"]`, { timeout: 15_000 }).catch(() => {
    throw new Error('the password box of Set Backend Password... did not open');
  });
  await page.keyboard.type(password, { delay: 2 });
  await page.keyboard.press('Enter');
  await page.waitForSelector(QUICK_INPUT, { state: 'hidden', timeout: 10_000 }).catch(() => {});
}

/** Opens a workspace file through Quick Open (Ctrl+P). */
export async function openFile(page, relativePath) {
  await page.keyboard.press('Control+P');
  await waitQuickInput(page, 'Quick Open');
  await page.keyboard.type(relativePath, { delay: 5 });
  const base = relativePath.split('/').pop();
  await page
    .waitForSelector(`${QUICK_INPUT} .quick-input-list ${ROW}[aria-label*="${base}"]`, { timeout: 15_000 })
    .catch(() => {
      throw new Error(`Quick Open did not find ${relativePath}`);
    });
  await page.keyboard.press('Enter');
  await page.waitForSelector(`.tab[aria-label^="${base}"]`, { timeout: 15_000 }).catch(() => {
    throw new Error(`${relativePath} did not open in an editor`);
  });
}

/** Expands a view of the Session Ops container by its header, unless it is expanded. */
export async function expandView(page, name) {
  const header = `.pane-header[aria-label^="${name}"]`;
  await page.waitForSelector(header, { timeout: 15_000 });
  if ((await page.getAttribute(header, 'aria-expanded')) !== 'true') await page.click(header);
}

/** Collapses a view of the Session Ops container by its header, unless it is collapsed. */
export async function collapseView(page, name) {
  const header = `.pane-header[aria-label^="${name}"]`;
  await page.waitForSelector(header, { timeout: 15_000 });
  if ((await page.getAttribute(header, 'aria-expanded')) === 'true') await page.click(header);
}

/**
 * Waits until every expected session shows its badge: `expected` is [{title, badge}] where badge
 * is a label, a list of acceptable labels, or '*' for any settled badge. Returns the seconds it took; throws naming every
 * session that did not settle, with what it showed instead.
 */
export async function waitForBadges(page, expected, { timeoutMs, onTick } = {}) {
  const started = Date.now();
  const deadline = started + (timeoutMs ?? 150_000);
  let missing = expected;
  let labels = [];
  while (Date.now() < deadline) {
    labels = await sessionLabels(page).catch(() => []);
    missing = expected.filter(({ title, badge }) => {
      const label = labels.find((l) => l.startsWith(`${title}, `));
      const badges = Array.isArray(badge) ? badge : [badge];
      if (badges.includes('*')) return !label || label.startsWith(`${title}, unknown`);
      return !label || !badges.some((b) => label.startsWith(`${title}, ${b}`));
    });
    onTick?.(expected.length - missing.length, expected.length);
    if (missing.length === 0) return (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const shown = (title) => labels.find((l) => l.startsWith(`${title}, `)) ?? '(no row)';
  throw new Error(
    `these states did not appear within ${Math.round((deadline - started) / 1000)} s:\n${missing
      .map((m) => `  ${m.title}: expected ${[].concat(m.badge).join(' or ')}, shows ${shown(m.title)}`)
      .join('\n')}`,
  );
}

/** Right-clicks a session row and waits for its context menu to offer `item` (a menu label). */
export async function openContextMenu(page, title, item) {
  // A row's hover tooltip (left by the last click) can cover the row to click: move the mouse
  // off the tree and wait for any tooltip to close first.
  await dismissHover(page);
  await page.click(`${ROW}[aria-label^="${title}, "]`, { button: 'right', timeout: 10_000 });
  await page
    .locator('.context-view .action-label', { hasText: item })
    .first()
    .waitFor({ timeout: 15_000 })
    .catch(() => {
      throw new Error(`the context menu of "${title}" does not offer ${item}`);
    });
}

/** Moves the mouse off the workbench and waits until no hover tooltip is showing. */
export async function dismissHover(page) {
  await page.mouse.move(0, 0);
  await page
    .locator('.context-view .monaco-hover, .workbench-hover-container')
    .first()
    .waitFor({ state: 'hidden', timeout: 5_000 })
    .catch(async () => {
      await page.keyboard.press('Escape');
    });
}

/**
 * Runs an item of the open context menu: hovered (which focuses it), then Enter. A click right
 * after the menu opened can be taken for the release of the right-click and ignored.
 */
export async function clickMenuItem(page, label) {
  const item = page.locator('.context-view .action-label', { hasText: label }).first();
  await item.hover({ timeout: 10_000 });
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
  await page
    .locator('.context-view .action-label')
    .first()
    .waitFor({ state: 'hidden', timeout: 10_000 })
    .catch(() => {
      throw new Error(`the context menu item ${label} did not run`);
    });
}
