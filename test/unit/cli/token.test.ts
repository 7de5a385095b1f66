// session-ops token add|list|remove: the token printed once, only its hash stored, names unique.
import { strict as assert } from 'node:assert';
import { runToken } from '../../../src/cli/token';
import { hashToken, parseTokensFile, TokenBook } from '../../../src/core/watch/auth/tokens';

describe('cli/token', () => {
  function io() {
    const files = new Map<string, string>();
    let out = '';
    let err = '';
    return {
      files,
      out: () => out,
      err: () => err,
      io: {
        stdout: (t: string) => (out += t),
        stderr: (t: string) => (err += t),
        readText: (f: string) => Promise.resolve(files.get(f) ?? null),
        writeText: (f: string, t: string) => (files.set(f, t), Promise.resolve()),
        now: () => Date.UTC(2026, 10, 28),
      },
    };
  }

  it('add prints the token once and stores its hash; list names it; remove revokes it', async () => {
    const t = io();
    assert.equal(await runToken(['add', 'alice', '--scope', 'act', '--tokens-file', 'F'], t.io), 0);
    const token = t.out().trim();
    assert.match(token, /^sot_[A-Za-z0-9_-]{43}$/);
    assert.ok(!t.files.get('F')!.includes(token.slice(4)), 'the token is not stored');
    const stored = parseTokensFile(t.files.get('F')!);
    assert.deepEqual(stored, [
      { name: 'alice', scope: 'act', sha256: hashToken(token), createdAt: '2026-11-28T00:00:00.000Z' },
    ]);
    assert.deepEqual(new TokenBook(stored).authenticate(token), { name: 'alice', scope: 'act' });
    assert.match(t.err(), /shown once/);
    assert.equal(
      await runToken(['add', 'alice', '--scope', 'read', '--tokens-file', 'F'], t.io),
      2,
      'a name is used once',
    );
    assert.equal(await runToken(['add', 'bob', '--scope', 'admin', '--tokens-file', 'F'], t.io), 2);
    assert.equal(await runToken(['add', 'bob', '--scope', 'read', '--tokens-file', 'F', '--json'], t.io), 0);
    const json = JSON.parse(t.out().trim().split('\n').at(-1)!) as { name: string; token: string };
    assert.equal(json.name, 'bob');
    assert.match(json.token, /^sot_/);
    assert.equal(await runToken(['list', '--tokens-file', 'F', '--json'], t.io), 0);
    assert.deepEqual(
      (JSON.parse(t.out().trim().split('\n').at(-1)!) as { tokens: Array<{ name: string }> }).tokens.map((x) => x.name),
      ['alice', 'bob'],
    );
    assert.equal(await runToken(['remove', 'alice', '--tokens-file', 'F'], t.io), 0);
    assert.deepEqual(
      parseTokensFile(t.files.get('F')!).map((x) => x.name),
      ['bob'],
    );
    assert.equal(await runToken(['remove', 'nobody', '--tokens-file', 'F'], t.io), 2);
  });

  it('a broken tokens file is an error (exit 1), never overwritten', async () => {
    const t = io();
    t.files.set('F', '{"version":1,"tokens":[{"name":"a"}]}');
    assert.equal(await runToken(['add', 'x', '--scope', 'read', '--tokens-file', 'F'], t.io), 1);
    assert.equal(t.files.get('F'), '{"version":1,"tokens":[{"name":"a"}]}');
  });
});
