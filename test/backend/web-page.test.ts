// The daemon's web page as a person uses it (issue 32 item 5): real Chromium (Debian's, through
// playwright-core) on the page of a real `session-ops watch` (the bundled CLI with the page's bundle
// beside it, tokens made by `session-ops token add`) over the real opencode server with scripted
// sessions: one waits for a permission (its bash call asks), one finished. The page lists them with
// their badges (a title written as markup shown as text); Allow once from the page lets the waiting one go on (seen on the backend); a read
// token sees no act button and its forged POST is 403; no token is 401; a wrong token five times is
// slowed down (429 with Retry-After), and the page says so.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.mjs';
import { BackendClient } from '../../src/core/backend/client';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
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
  let client: BackendClient;
  const tokens = { act: '', read: '' };
  let waitingId: string;
  let doneId: string;
  /** A session whose title is markup: the page must show it as text. */
  let markupId: string;
  const MARKUP_TITLE = '<img src=x onerror="window.injected=1"><b>WEB-3</b>';

  before(async function () {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-web-page-'));
    directory = mkdtempSync(path.join(os.tmpdir(), 'session-ops-web-dir-'));
    const cli = path.join(tmp, 'cli.js');
    [model] = await Promise.all([startScriptedModel(), bundleCliWithPage(cli)]);
    oc = await startOpencode({ modelUrl: model.url, configure: (c) => ({ ...c, permission: { bash: 'ask' } }) });
    client = new BackendClient({ baseUrl: oc.baseUrl });
    model.when('[perm]', {
      kind: 'tool-calls',
      calls: [{ tool: 'bash', args: { command: 'ls -la', description: 'list the files' } }],
      then: 'listed the files',
    });
    model.when('[done]', { kind: 'reply', text: 'all done here' });
    [waitingId, doneId, markupId] = await Promise.all([
      launchSession(oc, directory, 'WEB-1 list the files', 'list the files [perm]'),
      launchSession(oc, directory, 'WEB-2 say hello', 'say hello [done]'),
      launchSession(oc, directory, MARKUP_TITLE, 'say hello [done]'),
    ]);
    // The tokens, as an owner makes them: only their hashes go into the file.
    const tokensFile = path.join(tmp, 'tokens.json');
    for (const [name, scope] of [
      ['alice', 'act'],
      ['bob', 'read'],
    ] as const) {
      const made = execFileSync(
        process.execPath,
        [cli, 'token', 'add', name, '--scope', scope, '--tokens-file', tokensFile, '--json'],
        { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } },
      );
      tokens[scope] = (JSON.parse(made) as { token: string }).token;
    }
    const config = path.join(tmp, 'session-ops.yaml');
    writeFileSync(
      config,
      [
        'backends:',
        `  - { name: oc, baseUrl: "${oc.baseUrl}", directories: ["${directory}"] }`,
        'sampleSpacingSeconds: 2',
        `auth: { tokensFile: "${tokensFile}" }`,
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
    await client?.close();
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
    await see(page, 'form#login input#token[type=password]');
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
  /** Signs in through the form as a person does; returns the page signed in. */
  async function signIn(tokenText: string, viewport?: { width: number; height: number }) {
    const opened = await openPage(viewport);
    await opened.page.goto(`${base}/`);
    await opened.page.fill('#token', tokenText);
    await opened.page.click('#login button[type=submit]');
    return opened;
  }

  /** The text of the first element the selector matches ('' when it has none). */
  const text = async (page: Page, selector: string) => (await page.textContent(selector)) ?? '';

  /** Waits for `selector`; on a timeout the error carries what the page shows and the daemon's last lines. */
  async function see(page: Page, selector: string, timeout = 30_000, state: 'visible' | 'detached' = 'visible') {
    await page.waitForSelector(selector, { timeout, state }).catch(async (err: Error) => {
      const shown = await page.textContent('#app').catch(() => '(no page)');
      throw new Error(`${err.message.split('\n')[0]}\nthe page shows: ${shown}\nwatch: ${out.slice(-1500)}`);
    });
  }

  const card = (where: string, id: string) => `${where} article.session[data-session="${id}"]`;

  it('an act token: the attention list and every session with its badge; Allow once from the page lets the session go on', async () => {
    const { page, problems } = await signIn(tokens.act);
    await see(page, '#top .who[data-scope=act]');
    assert.match(await text(page, '#top .who'), /^alice · can act$/);
    // Verdicts need two samples: the waiting session settles into the attention list.
    await see(page, `${card('#attention', waitingId)}[data-headline=waiting]`, 60_000);
    assert.equal(await page.textContent(`${card('#attention', waitingId)} .badge`), 'waiting for you');
    assert.match(await text(page, `${card('#attention', waitingId)} .request-title`), /^permission: bash ls -la$/);
    await see(page, `${card('#sessions', doneId)}[data-headline=idle]`, 60_000);
    assert.equal(await page.textContent(`${card('#sessions', doneId)} .title`), 'WEB-2 say hello');
    assert.equal(await page.locator(card('#attention', doneId)).count(), 0, 'the idle session needs nobody');
    await see(page, '#top .stream[data-stream=live]');

    // Allow once: a confirmation first, then the outcome the daemon answered.
    await page.click(`${card('#attention', waitingId)} [data-act=allow-once]`);
    await see(page, 'dialog[open] [data-act=confirm]');
    assert.match(await text(page, 'dialog[open] .says'), /WEB-1 list the files asks: permission: bash ls -la/);
    assert.equal(await page.locator('dialog[open] .outcome *').count(), 0, 'nothing is sent before the confirmation');
    await page.click('dialog[open] [data-act=confirm]');
    await see(page, 'dialog[open] .outcome [data-outcome]:not(.sent)', 30_000);
    const outcome = page.locator('dialog[open] .outcome [data-outcome]:not(.sent)').first();
    assert.equal(await outcome.getAttribute('class'), 'done', (await outcome.textContent()) ?? '');
    // On the backend: the permission is answered and the session goes on.
    await waitFor(
      'the next assistant message after Allow once',
      async () => ((await client.newestMessage(directory, waitingId))?.text ?? '').includes('listed the files'),
      30_000,
      200,
    );
    assert.equal((await client.listPermissions(directory)).requests.length, 0);
    await page.click('dialog[open] button.secondary');
    // Live: the session leaves the attention list; its card shows who acted (the audit trail).
    await see(page, card('#attention', waitingId), 30_000, 'detached');
    await see(page, `${card('#sessions', waitingId)} .last-acts .who`, 30_000);
    assert.equal(await page.textContent(`${card('#sessions', waitingId)} .last-acts .who`), 'alice');
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  it('a read token: no act button anywhere, markup in a title shown as text, the deep link opens the session, and a forged POST is 403', async () => {
    const { page, problems } = await signIn(tokens.read, { width: 390, height: 844 });
    await see(page, '#top .who[data-scope=read]');
    await see(page, card('#sessions', doneId), 60_000);
    assert.equal(await page.locator('[data-act]').count(), 0, 'a read token is offered no act');
    // Server text is text: a title written as markup is shown as written, and nothing of it runs.
    await see(page, card('#sessions', markupId), 60_000);
    assert.equal(await text(page, `${card('#sessions', markupId)} a.title`), MARKUP_TITLE);
    assert.equal(await page.locator('#app img, #app b').count(), 0);
    assert.equal(await page.evaluate('window.injected'), undefined);
    const key = await page.getAttribute(card('#sessions', doneId), 'data-backend');
    await page.goto(`${base}/#/session/${encodeURIComponent(key!)}/${encodeURIComponent(doneId)}`);
    await see(page, `#detail[data-session="${doneId}"]`);
    assert.match(await text(page, '#detail h2'), /WEB-2 say hello/);
    assert.equal(await page.locator('#detail .actions, [data-act]').count(), 0);
    // A forged act with the read token from the page itself: refused before anything is read or sent.
    const forged = (await page.evaluate(`(async () => {
      const res = await fetch('/api/sessions/${doneId}/abort', {
        method: 'POST',
        headers: { authorization: 'Bearer ' + sessionStorage.getItem('session-ops-token'), 'content-type': 'application/json' },
        body: JSON.stringify({ backend: ${JSON.stringify(key)} }),
      });
      return { status: res.status, body: await res.json() };
    })()`)) as { status: number; body: { error?: { code?: string } } };
    assert.equal(forged.status, 403);
    assert.equal(forged.body.error?.code, 'forbidden');
    assert.ok(
      problems.every((p) => /403/.test(p)),
      `only the forged request's 403 is reported: ${problems.join(' | ')}`,
    );
    await page.context().close();
  });

  it('no token: the API answers 401 and the page asks for one', async () => {
    for (const p of ['/api/whoami', '/api/fleet', '/api/events']) {
      const res = await fetch(`${base}${p}`);
      assert.equal(res.status, 401, p);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'unauthenticated');
    }
    const { page } = await openPage();
    const calls: string[] = [];
    page.on('request', (r) => calls.push(new URL(r.url()).pathname));
    await page.goto(`${base}/`);
    await see(page, 'form#login');
    assert.deepEqual(
      calls.filter((c) => c.startsWith('/api/')),
      [],
      'nothing is asked of the API without a token',
    );
    await page.context().close();
  });

  it('a wrong token five times is slowed down: 429 with Retry-After, said on the page; the right one works after the wait', async () => {
    const { page } = await openPage();
    const answers: Array<{ status: number; retryAfter: string | null }> = [];
    page.on('response', (r) => {
      if (new URL(r.url()).pathname === '/api/whoami')
        answers.push({ status: r.status(), retryAfter: r.headers()['retry-after'] ?? null });
    });
    await page.goto(`${base}/`);
    // Each wrong attempt doubles the wait after the fifth; one lands inside it however slow the machine.
    for (let i = 0; i < 12 && !answers.some((a) => a.status === 429); i++) {
      const before = answers.length;
      await page.fill('#token', `wrong-token-${i}`);
      await page.click('#login button[type=submit]');
      await waitFor('the answer to the attempt', () => answers.length > before, 10_000, 20);
      await see(page, '#login .error');
    }
    const first429 = answers.findIndex((a) => a.status === 429);
    assert.ok(first429 >= 5, `429 after five failures, not before: ${JSON.stringify(answers)}`);
    assert.ok(
      answers.slice(0, 5).every((a) => a.status === 401),
      JSON.stringify(answers),
    );
    assert.match(answers[first429].retryAfter ?? '', /^\d+$/);
    assert.match(await text(page, '#login .error'), /Too many failed attempts from this address: wait \d+ s/);
    // After the wait, the right token signs in (a success clears the address).
    await new Promise((r) => setTimeout(r, Number(answers[first429].retryAfter) * 1000 + 100));
    await page.fill('#token', tokens.read);
    await page.click('#login button[type=submit]');
    await see(page, '#top .who[data-scope=read]', 15_000);
    await page.context().close();
  });
});
