import { strict as assert } from 'node:assert';
import { cliBackend, cliBackendConfig, UsageError } from '../../../../src/cli/args';
import {
  isLoopbackHost,
  normalizeBackend,
  normalizeBaseUrl,
  parseBackendConfigs,
  plainHttpWarning,
} from '../../../../src/core/config/backends';
import { parseWatchConfig } from '../../../../src/core/watch/config';

describe('core/config/backends', () => {
  it('fills directories from the workspace folders and names the backend by host', () => {
    const { backends, problems } = parseBackendConfigs([{ baseUrl: 'http://127.0.0.1:4096' }], ['/w/a', '/w/b']);
    assert.deepEqual(problems, []);
    assert.equal(backends.length, 1);
    assert.deepEqual(backends[0], {
      key: 'http://127.0.0.1:4096/',
      name: '127.0.0.1:4096',
      baseUrl: 'http://127.0.0.1:4096',
      directories: ['/w/a', '/w/b'],
      insecure: false,
      surface: 'auto',
    });
  });

  it('surface: auto, api or legacy; anything else is a problem and the backend is left out', () => {
    const { backends, problems } = parseBackendConfigs(
      [
        { baseUrl: 'http://127.0.0.1:4096', surface: 'api' },
        { baseUrl: 'http://127.0.0.1:4097', surface: 'opencode2' },
      ],
      ['/w'],
    );
    assert.deepEqual(
      backends.map((b) => b.surface),
      ['api'],
    );
    assert.deepEqual(problems, [{ index: 1, message: 'surface must be auto, api or legacy' }]);
  });

  it('keeps explicit directories and names', () => {
    const { backends } = parseBackendConfigs(
      [{ name: 'build box', baseUrl: 'https://box.example/oc/', directories: ['/srv/x'] }],
      ['/w'],
    );
    assert.equal(backends[0].name, 'build box');
    assert.equal(backends[0].baseUrl, 'https://box.example/oc');
    assert.deepEqual(backends[0].directories, ['/srv/x']);
  });

  it('warns about clear-text http off the machine but keeps the backend', () => {
    const { backends, problems } = parseBackendConfigs([{ baseUrl: 'http://10.0.0.5:4096' }], []);
    assert.equal(backends.length, 1);
    assert.equal(backends[0].insecure, true);
    assert.match(problems[0].message, /clear-text/);
  });

  it('plainHttpWarning: only clear-text http:// off this machine, naming the origin and never a credential', () => {
    for (const ok of [
      'http://127.0.0.1:4096',
      'http://localhost:1/x',
      'http://[::1]:9/',
      'http://127.8.0.1/',
      'https://box.example/',
      'not a url',
    ])
      assert.equal(plainHttpWarning(ok), null, ok);
    const w = plainHttpWarning('http://10.0.0.5:4096/oc/?directory=/secret');
    assert.match(w ?? '', /^http:\/\/10\.0\.0\.5:4096 is reached over clear-text http:\/\//);
    assert.ok(!(w ?? '').includes('secret'));
    assert.match(plainHttpWarning('http://box.example') ?? '', /prefer https/);
  });

  it('rejects bad entries with a clear problem each, keeping the good ones', () => {
    const { backends, problems } = parseBackendConfigs(
      [
        { baseUrl: 'ftp://x' },
        'nope',
        { name: 'n' },
        { baseUrl: 'http://u:p@127.0.0.1:1' },
        { baseUrl: 'http://localhost:1', directories: [1] },
        { baseUrl: 'http://localhost:2' },
        { baseUrl: 'http://localhost:2/' },
      ],
      ['/w'],
    );
    assert.equal(backends.length, 1);
    assert.equal(backends[0].baseUrl, 'http://localhost:2');
    assert.deepEqual(
      problems.map((p) => p.index),
      [0, 1, 2, 3, 4, 6],
    );
    assert.match(problems[0].message, /unsupported protocol/);
    assert.match(problems[3].message, /credentials do not belong in the URL/);
    assert.match(problems[5].message, /^backend http:\/\/localhost:2 is listed twice$/);
  });

  it('treats a non-array setting as a problem, undefined as empty', () => {
    assert.equal(parseBackendConfigs({}, []).problems.length, 1);
    assert.deepEqual(parseBackendConfigs(undefined, []), { backends: [], problems: [] });
  });

  it('recognizes loopback hosts', () => {
    for (const h of ['localhost', '127.0.0.1', '127.3.2.1', '[::1]']) assert.equal(isLoopbackHost(h), true, h);
    for (const h of ['10.0.0.1', 'example.com', '128.0.0.1']) assert.equal(isLoopbackHost(h), false, h);
  });

  it('normalizes base URLs', () => {
    assert.equal(normalizeBaseUrl(' http://h:1/a?x=1#f ').href, 'http://h:1/a/');
  });

  it('a URL carrying credentials is refused without repeating them', () => {
    const { problems } = parseBackendConfigs([{ baseUrl: 'http://admin:hunter2@127.0.0.1:1' }], ['/w']);
    assert.equal(problems.length, 1);
    assert.match(problems[0].message, /^invalid baseUrl: credentials do not belong in the URL/);
    assert.doesNotMatch(problems[0].message, /hunter2|admin/);
  });

  it('an entry refused for another field does not make a later one with its URL a duplicate', () => {
    const { backends, problems } = parseBackendConfigs(
      [
        { baseUrl: 'http://127.0.0.1:1', directories: [3] },
        { baseUrl: 'http://127.0.0.1:1/', directories: ['/w'] },
      ],
      [],
    );
    assert.deepEqual(
      problems.map((p) => [p.index, p.message]),
      [[0, 'directories must be an array of non-empty strings']],
    );
    assert.deepEqual(
      backends.map((b) => b.key),
      ['http://127.0.0.1:1/'],
    );
  });

  it('one normalizer: the editor, the watch config and the CLI read the same entry as the same backend', () => {
    const entry = { name: 'box', baseUrl: 'https://box.example:4096/oc?x=1#top', directories: ['/srv/a', '/srv/a'] };
    const editor = parseBackendConfigs([entry], ['/w']).backends[0];
    const watch = parseWatchConfig(JSON.stringify({ backends: [entry] })).config!.backends[0];
    const { auth, ...watchBackend } = watch;
    assert.deepEqual(watchBackend, editor);
    assert.deepEqual(auth, { from: 'none' });
    assert.deepEqual(editor, {
      key: 'https://box.example:4096/oc/',
      name: 'box',
      baseUrl: 'https://box.example:4096/oc',
      directories: ['/srv/a'],
      insecure: false,
      surface: 'auto',
    });
    const cli = cliBackend(entry.baseUrl, '/srv/a');
    assert.deepEqual(cli, { baseUrl: editor.key, directory: '/srv/a' });
    const { auth: cliAuth, ...cliBackendRead } = cliBackendConfig(cli, {});
    assert.deepEqual(cliBackendRead, { ...editor, name: 'box.example:4096' });
    assert.deepEqual(cliAuth, { from: 'env', username: 'opencode', variable: 'SESSION_OPS_PASSWORD' });
  });

  it("the CLI's backend: SESSION_OPS_SURFACE and SESSION_OPS_USERNAME through the normalizer; a bad value names the variable", () => {
    const b = { baseUrl: 'http://127.0.0.1:1/', directory: '/w' };
    const read = cliBackendConfig(b, { SESSION_OPS_SURFACE: 'api', SESSION_OPS_USERNAME: 'ci' });
    assert.equal(read.surface, 'api');
    assert.deepEqual(read.auth, { from: 'env', username: 'ci', variable: 'SESSION_OPS_PASSWORD' });
    assert.equal(cliBackendConfig(b, { SESSION_OPS_SURFACE: '' }).surface, 'auto');
    assert.throws(
      () => cliBackendConfig(b, { SESSION_OPS_SURFACE: 'v2' }),
      (err: unknown) => err instanceof UsageError && err.message === 'SESSION_OPS_SURFACE must be auto, api or legacy',
    );
    assert.throws(
      () => cliBackend('http://u:secret@127.0.0.1:1', '/w'),
      (err: unknown) =>
        err instanceof UsageError &&
        /^invalid --base-url: credentials do not belong/.test(err.message) &&
        !err.message.includes('secret'),
    );
  });

  it("the auth reference: the host's own (secret storage), or the entry's passwordEnv / passwordFile / username", () => {
    const base = { baseUrl: 'http://127.0.0.1:1', directories: ['/w'] };
    const of = (extra: object) => {
      const r = normalizeBackend({ ...base, ...extra }, { directories: [], auth: 'entry' });
      assert.ok(r.ok);
      return r.backend.auth;
    };
    assert.deepEqual(of({ passwordEnv: 'PW' }), { from: 'env', username: 'opencode', variable: 'PW' });
    assert.deepEqual(of({ passwordFile: '/run/pw', username: 'ci' }), {
      from: 'file',
      username: 'ci',
      file: '/run/pw',
    });
    assert.deepEqual(of({}), { from: 'none' });
    const editor = normalizeBackend(
      { ...base, passwordEnv: 'PW' },
      { directories: [], auth: { from: 'secret-store' } },
    );
    assert.ok(editor.ok);
    assert.equal(editor.backend.auth, undefined, "the editor's passwords live in its secret storage only");
  });
});
