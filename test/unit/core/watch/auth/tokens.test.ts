// API tokens: stored hashed, found by any stored hash (every one compared), scopes, the Bearer
// header, the tokens file's checks (never a clear token in it).
import { strict as assert } from 'node:assert';
import {
  allows,
  bearerToken,
  formatTokensFile,
  hashToken,
  newToken,
  parseTokensFile,
  TokenBook,
} from '../../../../../src/core/watch/auth/tokens';

describe('core/watch/auth/tokens', () => {
  it('a new token is sot_ and 43 base64url characters; its file entry is its SHA-256 only', () => {
    const t = newToken();
    assert.match(t, /^sot_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(newToken(), t);
    const text = formatTokensFile([{ name: 'alice', scope: 'act', sha256: hashToken(t), createdAt: null }]);
    assert.ok(!text.includes(t.slice(4)));
    assert.deepEqual(parseTokensFile(text), [{ name: 'alice', scope: 'act', sha256: hashToken(t), createdAt: null }]);
  });

  it('authenticates by the hash, whichever entry holds it; unknown, empty or overlong tokens are nobody', () => {
    const a = newToken();
    const b = newToken();
    const book = new TokenBook([
      { name: 'a', scope: 'read', sha256: hashToken(a), createdAt: null },
      { name: 'b', scope: 'act', sha256: hashToken(b), createdAt: null },
    ]);
    assert.deepEqual(book.authenticate(a), { name: 'a', scope: 'read' });
    assert.deepEqual(book.authenticate(b), { name: 'b', scope: 'act' });
    assert.equal(book.authenticate(`${a}x`), null);
    assert.equal(book.authenticate(''), null);
    assert.equal(book.authenticate('x'.repeat(300)), null);
    assert.equal(book.authenticate(hashToken(a)), null, 'the stored hash is not a token');
  });

  it('scopes: act allows read and act, read only read', () => {
    assert.equal(allows('act', 'act'), true);
    assert.equal(allows('act', 'read'), true);
    assert.equal(allows('read', 'read'), true);
    assert.equal(allows('read', 'act'), false);
  });

  it('reads Bearer only: absent null, anything else malformed', () => {
    assert.equal(bearerToken(undefined), null);
    assert.equal(bearerToken('Bearer sot_abc'), 'sot_abc');
    assert.equal(bearerToken('bearer  sot_abc '), 'sot_abc');
    assert.equal(bearerToken('Basic dXNlcjpwYXNz'), undefined);
    assert.equal(bearerToken('Bearer a b'), undefined);
    assert.equal(bearerToken('Bearer'), undefined);
  });

  it('refuses a bad tokens file with a reason that names no token', () => {
    const h = hashToken('x');
    const bad = [
      ['[]', /version/],
      ['{"version":2,"tokens":[]}', /version/],
      ['{"version":1,"tokens":{}}', /list/],
      [`{"version":1,"tokens":[{"name":"a","scope":"admin","sha256":"${h}"}]}`, /scope/],
      [`{"version":1,"tokens":[{"name":"a","scope":"read","sha256":"abc"}]}`, /sha256/],
      [`{"version":1,"tokens":[{"name":"a","scope":"read","sha256":"${h}","token":"sot_x"}]}`, /unknown key "token"/],
      [
        `{"version":1,"tokens":[{"name":"a","scope":"read","sha256":"${h}"},{"name":"a","scope":"act","sha256":"${h}"}]}`,
        /twice/,
      ],
      [`{"version":1,"tokens":[{"name":"a b","scope":"read","sha256":"${h}"}]}`, /name/],
      ['{', /not JSON/],
    ] as const;
    for (const [text, reason] of bad) assert.throws(() => parseTokensFile(text), reason, text);
  });
});
