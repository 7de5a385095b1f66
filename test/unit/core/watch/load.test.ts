// Loading the watch configuration from disk: passwords from the environment or a file, and every
// failure a clear line (the CLI exits 2 on them) that never contains a password.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadWatchConfig } from '../../../../src/core/watch/load';

describe('core/watch/load', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'watch-load-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    return file;
  };
  const backend = (extra: string) =>
    `backends:\n  - name: a\n    baseUrl: http://127.0.0.1:4096\n    directories: [/w]\n${extra}`;

  it('takes the password from passwordEnv or passwordFile (trailing newline dropped)', async () => {
    const pw = write('pw', 's3cret\n');
    const file = write(
      'session-ops.yaml',
      `${backend('    passwordEnv: A_PW\n')}  - name: b\n    baseUrl: http://127.0.0.1:4097\n    directories: [/w]\n    username: me\n    passwordFile: ${pw}\n`,
    );
    const r = await loadWatchConfig(file, { allowShortSpacing: false, env: { A_PW: 'from-env' } });
    assert.ok(r.ok);
    assert.deepEqual(r.loaded.credentials.get('a'), { username: 'opencode', password: 'from-env' });
    assert.deepEqual(r.loaded.credentials.get('b'), { username: 'me', password: 's3cret' });
  });

  it('an unreadable passwordFile, an unset passwordEnv, a missing file: clear errors', async () => {
    const missing = path.join(dir, 'nope');
    const file = write('session-ops.yaml', backend(`    passwordFile: ${missing}\n`));
    const r1 = await loadWatchConfig(file, { allowShortSpacing: false, env: {} });
    assert.equal(r1.ok, false);
    assert.match((r1 as { errors: string[] }).errors[0], /backend "a": cannot read passwordFile .*nope: ENOENT/);
    const file2 = write('b.session-ops.yaml', backend('    passwordEnv: UNSET_PW\n'));
    const r2 = await loadWatchConfig(file2, { allowShortSpacing: false, env: {} });
    assert.match((r2 as { errors: string[] }).errors[0], /UNSET_PW \(passwordEnv\) is not set/);
    const r3 = await loadWatchConfig(path.join(dir, 'absent.yaml'), { allowShortSpacing: false, env: {} });
    assert.match((r3 as { errors: string[] }).errors[0], /cannot read the configuration .*absent.yaml: ENOENT/);
  });

  it('schema problems come as FILE:LINE:COL lines; an inline password is never echoed', async () => {
    const file = write('session-ops.yaml', backend('    password: topsecret\n'));
    const r = await loadWatchConfig(file, { allowShortSpacing: false, env: {} });
    assert.equal(r.ok, false);
    const errors = (r as { errors: string[] }).errors;
    assert.match(errors[0], /session-ops\.yaml:5:5: error: backends\[0\]\.password: a password is never written/);
    assert.doesNotMatch(errors.join('\n'), /topsecret/);
  });
});
