// The status command as a process: the CLI bundled exactly as esbuild.mjs bundles dist/cli.js
// (into a temporary directory, so the shared dist/ is not touched), run with node.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleCli, runCliProcess } from './cli-bundle';
import { startSpecServer, type SpecServer } from '../support/spec-server';

const run = (cli: string, args: string[], env: Record<string, string> = {}) => runCliProcess(cli, args, env);

describe('session-ops status as a process (bundled CLI)', function () {
  let out: string;
  let cli: string;
  let server: SpecServer;

  before(async () => {
    out = mkdtempSync(path.join(os.tmpdir(), 'session-ops-cli-'));
    cli = path.join(out, 'cli.js');
    await bundleCli(cli);
    server = await startSpecServer();
  });
  after(async () => {
    await server?.stop();
    rmSync(out, { recursive: true, force: true });
  });

  it('exit 0 and exactly one JSON document on stdout', async () => {
    server.setProviders([{ id: 'p' }], ['p']);
    const d = server.directory('/w');
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { text: 'ticket=T-1 status=handoff summary="over to review"' });
    const r = await run(cli, [
      'status',
      '--base-url',
      server.url,
      '--directory',
      '/w',
      '--spacing',
      '1',
      '--allow-short-spacing',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const doc = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(doc).slice(0, 3), ['sessions', 'providers', 'allFreeAt']);
    assert.deepEqual(
      [doc.sessions[0].id, doc.sessions[0].verdict, doc.sessions[0].action, doc.sessions[0].report.status],
      [id, 'idle', 'harvest', 'handoff'],
    );
    assert.equal(r.stdout.trim().split('\n').length, 1);
  });

  it('exit 2 on a spacing under 30 s, exit 1 when the backend cannot be read', async () => {
    let r = await run(cli, ['status', '--base-url', server.url, '--directory', '/w', '--spacing', '5']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /under 30 s/);
    r = await run(cli, [
      'status',
      '--base-url',
      'http://127.0.0.1:1/',
      '--directory',
      '/w',
      '--spacing',
      '1',
      '--allow-short-spacing',
      '--json',
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot read the backend: GET \/session on http:\/\/127\.0\.0\.1:1\/: connection refused/);
    assert.equal(r.stdout, '');
  });

  it('the password comes from SESSION_OPS_PASSWORD', async () => {
    const locked = await startSpecServer({ password: 'pw' });
    try {
      locked.setProviders([], []);
      const args = [
        'status',
        '--base-url',
        locked.url,
        '--directory',
        '/w',
        '--spacing',
        '1',
        '--allow-short-spacing',
        '--json',
      ];
      assert.equal((await run(cli, args)).code, 1);
      assert.equal((await run(cli, args, { SESSION_OPS_PASSWORD: 'pw' })).code, 0);
    } finally {
      await locked.stop();
    }
  });
});
