// The demo's screenshots of the web page of `session-ops watch` (issue 32): headless Chromium opens
// the daemon's page, pastes the demo's act token into its form as a person does, waits until every
// demo session is listed with a settled badge and the attention list holds the waiting DEMO-7 and
// the hung PAY-102, then saves the fleet on a desktop, the same on a phone-sized screen, and one
// session's page with the confirmation of Allow once open (not confirmed). Nothing is drawn.
import path from 'node:path';
import { launchChromium } from '../test/support/chromium.mjs';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * `pageUrl`: the daemon's page; `token`: an act token; `titles`: every demo session's title;
 * `attention`: [{title, reason}] the attention list must hold. Returns {files, notes}.
 */
export async function takeWebScreenshots({ pageUrl, token, out, log, titles, attention, timeoutMs = 150_000 }) {
  const files = [];
  const notes = [];
  const browser = await launchChromium();
  let page;
  try {
    const signIn = async (viewport) => {
      const context = await browser.newContext({ viewport, deviceScaleFactor: viewport === PHONE ? 2 : 1 });
      page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // A failed request is judged by its URL below (the console's line does not name it).
      page.on(
        'console',
        (m) => m.type() === 'error' && !/^Failed to load resource/.test(m.text()) && errors.push(m.text()),
      );
      page.on('response', (r) => {
        const where = new URL(r.url()).pathname;
        if (r.status() >= 400) errors.push(`${r.status()} ${where}`);
      });
      await page.goto(pageUrl);
      await page.fill('#token', token);
      await page.click('#login button[type=submit]');
      await page.waitForSelector('#top .who[data-scope=act]', { timeout: 30_000 }).catch(() => {
        throw new Error(
          `the page did not sign in with the demo's act token (${errors.join(' | ') || 'no error shown'})`,
        );
      });
      return { page, errors };
    };
    const shot = async (p, name) => {
      await p.screenshot({ path: path.join(out, `${name}.png`) });
      files.push(`${name}.png`);
      log(`screenshot ${name}.png`);
    };

    const desktop = await signIn(DESKTOP);
    const started = Date.now();
    await waitForFleet(desktop.page, titles, attention, started + timeoutMs, (m) => log(m));
    notes.push(
      `web page: ${titles.length} sessions listed with settled badges ${((Date.now() - started) / 1000).toFixed(0)} s after sign-in`,
    );
    await desktop.page.waitForSelector('#top .stream[data-stream=live]', { timeout: 15_000 }).catch(() => {
      throw new Error("the page did not go live on the daemon's event stream");
    });
    notes.push('web page: live on the event stream');
    await shot(desktop.page, 'web-fleet');

    // One session's page (the deep link), with the confirmation of Allow once.
    const waiting = attention.find((a) => a.reason === 'waiting');
    if (waiting) {
      const card = desktop.page.locator('#attention article.session', { hasText: waiting.title }).first();
      await card.locator('a.title').click();
      await desktop.page.waitForSelector('#detail .requests [data-act=allow-once]', { timeout: 30_000 }).catch(() => {
        throw new Error(`the page of ${waiting.title} offers no Allow once`);
      });
      notes.push(`web page: ${waiting.title} opens at ${new URL(desktop.page.url()).hash}`);
      await desktop.page.click('#detail .requests [data-act=allow-once]');
      await desktop.page.waitForSelector('dialog[open] [data-act=confirm]', { timeout: 10_000 });
      await shot(desktop.page, 'web-session');
      await desktop.page.click('dialog[open] button.secondary');
    }
    if (desktop.errors.length) throw new Error(`the page reported errors: ${desktop.errors.join(' | ')}`);
    await desktop.page.context().close();

    const phone = await signIn(PHONE);
    await waitForFleet(phone.page, titles, attention, Date.now() + 60_000, () => {});
    await shot(phone.page, 'web-phone');
    const overflow = await phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (overflow > 0) throw new Error(`on a phone-sized screen the page is ${overflow} px wider than the screen`);
    notes.push('web page: no horizontal overflow at 390 px');
    await phone.page.context().close();
    return { files, notes };
  } catch (err) {
    await page?.screenshot({ path: path.join(out, 'web-failure.png') }).catch(() => {});
    throw new Error(`${err.message}\n(the page at that moment: ${path.join(out, 'web-failure.png')})`, { cause: err });
  } finally {
    await browser.close().catch(() => {});
  }
}

/** Waits until every title is listed with a settled badge and the attention list holds each expected item. */
async function waitForFleet(page, titles, attention, deadline, log) {
  let last = '';
  for (;;) {
    const seen = await page
      .evaluate(() => ({
        listed: [...document.querySelectorAll('#sessions article.session')].map((a) => ({
          title: a.querySelector('a.title')?.textContent ?? '',
          badge: a.getAttribute('data-headline'),
        })),
        attention: [...document.querySelectorAll('#attention article.session')].map((a) => ({
          title: a.querySelector('a.title')?.textContent ?? '',
          reasons: (a.getAttribute('data-reasons') ?? '').split(' '),
        })),
      }))
      .catch(() => ({ listed: [], attention: [] }));
    const missing = titles.filter((t) => !seen.listed.some((l) => l.title === t && l.badge !== 'pending'));
    const notAttended = attention.filter(
      (a) => !seen.attention.some((s) => s.title === a.title && s.reasons.includes(a.reason)),
    );
    if (!missing.length && !notAttended.length) return;
    const state = `${titles.length - missing.length}/${titles.length} sessions settled on the page`;
    if (state !== last) log(state);
    last = state;
    if (Date.now() > deadline)
      throw new Error(
        `the web page did not show, in time: ${[...missing.map((t) => `${t} (settled)`), ...notAttended.map((a) => `${a.title} as ${a.reason}`)].join(', ')}`,
      );
    await new Promise((r) => setTimeout(r, 1_000));
  }
}
