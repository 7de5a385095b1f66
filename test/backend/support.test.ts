// The test backends as other scripts use them: the ESM entry (test/support/backends.mjs) from a
// plain Node script and standalone, the scripted model's raw answers, the missing-binary error.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { findOpencodeBinary, launchSession, startOpencode } from '../support/opencode';
import {
  ensureOpencodeConfigTemplate,
  isOpencodeConfigTemplate,
  opencodeCacheRoot,
  opencodeVersion,
} from '../support/opencode-config-template.mjs';
import { waitFor } from './helpers';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';

const root = process.cwd();

describe('test backends as building blocks', function () {
  it('a plain .mjs script imports backends.mjs and starts the spec server and the scripted model', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-mjs-'));
    try {
      const script = path.join(dir, 'use.mjs');
      writeFileSync(
        script,
        `import { startSpecServer, startScriptedModel } from ${JSON.stringify(path.join(root, 'test/support/backends.mjs'))};
const spec = await startSpecServer();
spec.setProviders([{ id: 'p' }], ['p']);
spec.directory('/w').addSession({ state: 'idle' });
const res = await fetch(spec.url + 'session?directory=%2Fw');
const model = await startScriptedModel();
const m = await fetch(model.url + '/chat/completions', { method: 'POST', body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], tools: [{}], stream: false }) });
console.log(JSON.stringify({ sessions: (await res.json()).length, model: (await m.json()).choices[0].message.content }));
await spec.stop(); await model.stop();
`,
      );
      const r = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout.trim()), { sessions: 1, model: 'OK.' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('standalone: `node test/support/backends.mjs spec` prints its URL and serves until SIGTERM', async () => {
    const child = spawn(process.execPath, ['test/support/backends.mjs', 'spec'], { cwd: root });
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c) => {
        out += c;
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}`)));
    });
    const { kind, url } = JSON.parse(line) as { kind: string; url: string };
    assert.equal(kind, 'spec');
    const res = await fetch(`${url}session?directory=%2Fx`);
    assert.deepEqual(await res.json(), []);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  });

  it('a missing opencode binary is a clear error, never a skip', () => {
    const saved = process.env.SESSION_OPS_OPENCODE_BIN;
    delete process.env.SESSION_OPS_OPENCODE_BIN;
    try {
      assert.throws(
        () => findOpencodeBinary('/'),
        /opencode binary was not found .*npm install --save-dev opencode-ai/,
      );
      assert.match(findOpencodeBinary(root), /node_modules\/\.bin\/opencode$/);
    } finally {
      if (saved !== undefined) process.env.SESSION_OPS_OPENCODE_BIN = saved;
    }
  });

  it("each opencode server is given the plugin SDK installed once: its first turn installs nothing (no npm cache, the SDK's files are the template's)", async () => {
    const model = await startScriptedModel();
    const oc = await startOpencode({ modelUrl: model.url });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-sdk-'));
    try {
      const binary = findOpencodeBinary();
      const template = path.join(opencodeCacheRoot(binary), 'opencode-config', opencodeVersion(binary));
      const sdk = (base: string) => path.join(base, 'node_modules', '@opencode-ai', 'plugin', 'package.json');
      const seeded = path.join(oc.home, '.config', 'opencode');
      assert.equal(statSync(sdk(seeded)).ino, statSync(sdk(template)).ino, 'the SDK is hard-linked from the template');
      await launchSession(oc, dir, 'sdk', 'hello');
      // The first instance (this turn's) writes the config directory's .gitignore right before its
      // background dependency install. Left to itself (pluginSdk: 'own'), opencode's install had
      // created ~/.npm 1.3 s after that file and replaced node_modules after 5 s (measured on
      // 1.18.33): so ~/.npm must not appear within 6 s of it, nor the SDK's files change.
      await waitFor("opencode's dependency step for its config directory", () =>
        existsSync(path.join(seeded, '.gitignore')),
      );
      const stepAt = Date.now();
      await waitFor('the reply', () => model.requests.some((r) => !r.auxiliary));
      const fetched = path.join(oc.home, '.npm');
      while (Date.now() - stepAt < 6_000 && !existsSync(fetched)) await new Promise((r) => setTimeout(r, 100));
      assert.equal(existsSync(fetched), false, 'opencode fetched packages from the registry');
      assert.equal(statSync(sdk(seeded)).ino, statSync(sdk(template)).ino, 'opencode reinstalled its SDK');
    } finally {
      await oc.stop();
      await model.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the plugin SDK's install inside a project's .cache leaves the project's package.json alone", async () => {
    const project = mkdtempSync(path.join(os.tmpdir(), 'session-ops-project-'));
    try {
      const manifest = '{"name":"a-project","private":true}\n';
      writeFileSync(path.join(project, 'package.json'), manifest);
      const binary = findOpencodeBinary();
      const dir = await ensureOpencodeConfigTemplate(opencodeVersion(binary), path.join(project, '.cache'), (m) => {
        throw new Error(m);
      });
      assert.equal(dir, path.join(project, '.cache', 'opencode-config', opencodeVersion(binary)));
      assert.ok(isOpencodeConfigTemplate(dir!));
      assert.equal(readFileSync(path.join(project, 'package.json'), 'utf8'), manifest);
      assert.equal(existsSync(path.join(project, 'node_modules')), false);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  describe('scripted model', () => {
    let model: ScriptedModel;
    beforeEach(async () => (model = await startScriptedModel()));
    afterEach(async () => model.stop());
    const call = (content: string, tools: unknown[] = [{ type: 'function' }]) =>
      fetch(`${model.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          stream: true,
          tools,
          messages: [
            { role: 'system', content: 'sys' },
            { role: 'user', content },
          ],
        }),
      });

    it('429 with and without retry-after, 402 insufficient_quota', async () => {
      model.when('[a]', { kind: 'rate-limit', retryAfter: 30 });
      model.when('[b]', { kind: 'rate-limit' });
      model.when('[c]', { kind: 'balance' });
      const a = await call('x [a]');
      assert.deepEqual([a.status, a.headers.get('retry-after')], [429, '30']);
      const b = await call('x [b]');
      assert.deepEqual([b.status, b.headers.get('retry-after')], [429, null]);
      const c = await call('x [c]');
      assert.equal(c.status, 402);
      assert.equal(((await c.json()) as { error: { code: string } }).error.code, 'insufficient_quota');
    });

    it('streams a reply that ends with a completion report; title requests are answered at once', async () => {
      model.setDefault({ kind: 'stall' });
      model.when('[r]', { kind: 'reply', text: 'done\nticket=T-1 status=done', chunks: 3 });
      const text = await (await call('x [r]')).text();
      const content = text
        .split('\n')
        .filter((l) => l.startsWith('data: {'))
        .map((l) => JSON.parse(l.slice(6)).choices[0].delta.content ?? '')
        .join('');
      assert.equal(content, 'done\nticket=T-1 status=done');
      assert.match(text, /data: \[DONE\]/);
      const title = await (await call('Generate a title for this conversation', [])).text();
      assert.match(title, /Session title/);
      assert.equal(model.requests.filter((r) => r.auxiliary).length, 1);
    });

    it('stalls mid-stream until released', async () => {
      model.when('[s]', { kind: 'stall', text: 'thinking' });
      const res = await call('x [s]');
      const reader = res.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      assert.match(first, /thinking/);
      const pending = reader.read();
      const raced = await Promise.race([
        pending.then(() => 'data'),
        new Promise((r) => setTimeout(() => r('stalled'), 300)),
      ]);
      assert.equal(raced, 'stalled');
      model.releaseStalls('bye');
      let rest = new TextDecoder().decode((await pending).value);
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += new TextDecoder().decode(value);
      }
      assert.match(rest, /bye[\s\S]*\[DONE\]/);
    });
  });
});
