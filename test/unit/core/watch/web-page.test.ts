// The daemon's web page: GET / is the shell and /assets/* the bundle, every answer with the strict
// Content-Security-Policy and no cookie; unknown assets 404 (no path is read from the request);
// a missing bundle 503; other methods are not the page's; no page configured: / stays 404.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WatchHttpServer } from '../../../../src/core/watch/http-server';
import { PAGE_CSP, PAGE_SHELL, webPage } from '../../../../src/core/watch/web-page';

describe('core/watch/web-page', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-web-'));
  const empty = mkdtempSync(path.join(os.tmpdir(), 'session-ops-web-empty-'));
  writeFileSync(path.join(dir, 'app.js'), 'console.log("page")\n');
  writeFileSync(path.join(dir, 'app.css'), 'body{}\n');
  writeFileSync(path.join(dir, 'icon.svg'), '<svg/>');
  writeFileSync(path.join(dir, 'secret.txt'), 'not an asset');
  const servers: WatchHttpServer[] = [];
  const endpoints = {
    metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
    health: () => ({ ok: true, detail: 'ok' }),
    status: () => [],
  };
  async function serve(page?: ReturnType<typeof webPage>): Promise<string> {
    const s = new WatchHttpServer({ ...endpoints, ...(page ? { page } : {}) });
    servers.push(s);
    const addr = await s.listen({ host: '127.0.0.1', port: 0 });
    return `http://127.0.0.1:${addr.port}`;
  }
  after(async () => {
    for (const s of servers) await s.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  });

  it('the CSP allows this origin only: no inline script or style, no frames, no form posts', () => {
    assert.match(PAGE_CSP, /(^|; )default-src 'self'(;|$)/);
    assert.match(PAGE_CSP, /script-src 'self'(;|$)/);
    assert.match(PAGE_CSP, /style-src 'self'(;|$)/);
    assert.match(PAGE_CSP, /frame-ancestors 'none'/);
    assert.match(PAGE_CSP, /form-action 'none'/);
    assert.doesNotMatch(PAGE_CSP, /unsafe-inline|unsafe-eval|\*/);
    // The shell has nothing inline for the CSP to refuse.
    assert.doesNotMatch(PAGE_SHELL, /<script>|<style|\sstyle=|\son\w+=/i);
  });

  it('serves the shell and the bundle with the CSP, nosniff, no-store and no cookie', async () => {
    const base = await serve(webPage(dir));
    const shell = await fetch(`${base}/`);
    assert.equal(shell.status, 200);
    assert.equal(shell.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(await shell.text(), PAGE_SHELL);
    for (const [name, type, body] of [
      ['app.js', 'text/javascript; charset=utf-8', 'console.log("page")\n'],
      ['app.css', 'text/css; charset=utf-8', 'body{}\n'],
      ['icon.svg', 'image/svg+xml', '<svg/>'],
    ]) {
      const res = await fetch(`${base}/assets/${name}`);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get('content-type'), type);
      assert.equal(await res.text(), body);
    }
    for (const p of ['/', '/assets/app.js', '/assets/nope.js']) {
      const res = await fetch(`${base}${p}`);
      await res.arrayBuffer();
      assert.equal(res.headers.get('content-security-policy'), PAGE_CSP, p);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('set-cookie'), null);
      assert.equal(res.headers.get('access-control-allow-origin'), null);
    }
    const head = await fetch(`${base}/assets/app.js`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength('console.log("page")\n')));
  });

  it('only the three assets: any other name (traversal included) is 404; a POST is not served the page', async () => {
    const base = await serve(webPage(dir));
    for (const p of [
      '/assets/secret.txt',
      '/assets/../app.js',
      '/assets/%2e%2e/secret.txt',
      '/assets/',
      '/assets/constructor',
    ]) {
      const res = await fetch(`${base}${p}`);
      assert.equal(res.status, 404, p);
      assert.doesNotMatch(await res.text(), /not an asset/);
    }
    // Not a page request: the page's files are read-only.
    const post = await fetch(`${base}/`, { method: 'POST', body: 'x' });
    assert.ok([404, 405].includes(post.status), String(post.status));
    assert.doesNotMatch(await post.text(), /<html/);
  });

  it('a bundle that was not built answers 503 saying so; without a page / is 404', async () => {
    const base = await serve(webPage(empty));
    const res = await fetch(`${base}/`);
    assert.equal(res.status, 503);
    assert.match(await res.text(), /not built.*npm run build/);
    assert.equal((await fetch(`${base}/assets/app.css`)).status, 503);
    const bare = await serve();
    assert.equal((await fetch(`${bare}/`)).status, 404);
  });
});
