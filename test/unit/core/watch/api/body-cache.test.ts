// The cached bytes of GET /api/status and /api/fleet: exactly JSON.stringify({ backends }) and a
// newline; built once per round per backend (a request between rounds serialises nothing and
// writes the same bytes); a backend's part rebuilt when its round commits, when a change names it,
// on invalidate(), and after the max age.
import { strict as assert } from 'node:assert';
import { BackendBodyCache } from '../../../../../src/core/watch/api/body-cache';
import type { BackendState } from '../../../../../src/core/monitor/sessionMonitor';

function backend(key: string, lastRoundAt: number): BackendState {
  return {
    config: { key, name: key, baseUrl: key, directories: [] },
    status: 'ok',
    error: null,
    providers: null,
    providersError: null,
    allFreeAt: null,
    lastRoundAt,
    directories: [],
    dialect: null,
  } as unknown as BackendState;
}

describe('core/watch/api/body-cache', () => {
  let now = 1_000;
  let built: string[] = [];
  const make = () =>
    new BackendBodyCache(
      (b) => (built.push(b.config.key), { key: b.config.key, at: b.lastRoundAt, text: 'é<>' }),
      () => now,
      5_000,
    );
  beforeEach(() => {
    now = 1_000;
    built = [];
  });

  it('the bytes are JSON.stringify({ backends }) and a newline; between rounds the same Buffer, nothing rebuilt', () => {
    const cache = make();
    const bs = [backend('a', 1), backend('b', 1)];
    const first = cache.bytes(bs);
    assert.equal(
      first.toString('utf8'),
      `${JSON.stringify({ backends: bs.map((b) => ({ key: b.config.key, at: 1, text: 'é<>' })) })}\n`,
    );
    assert.deepEqual(built, ['a', 'b']);
    assert.equal(cache.bytes(bs), first);
    assert.equal(cache.bytes(bs), first);
    assert.equal(cache.builds, 2);
  });

  it("a backend's round committing (lastRoundAt moved) rebuilds that backend's part only", () => {
    const cache = make();
    const bs = [backend('a', 1), backend('b', 1)];
    cache.bytes(bs);
    bs[1].lastRoundAt = 2;
    const after = cache.bytes(bs);
    assert.deepEqual(built, ['a', 'b', 'b']);
    assert.match(after.toString(), /"key":"b","at":2/);
  });

  it('invalidate(keys) rebuilds those; invalidate() all; the max age rebuilds; a backend gone leaves the body', () => {
    const cache = make();
    const bs = [backend('a', 1), backend('b', 1)];
    cache.bytes(bs);
    cache.invalidate(['a']);
    cache.bytes(bs);
    assert.deepEqual(built, ['a', 'b', 'a']);
    cache.invalidate();
    cache.bytes(bs);
    assert.deepEqual(built, ['a', 'b', 'a', 'a', 'b']);
    now += 5_001;
    cache.bytes(bs);
    assert.equal(built.length, 7);
    const one = cache.bytes([bs[0]]);
    assert.equal(JSON.parse(one.toString()).backends.length, 1);
    assert.equal(built.length, 7);
  });
});
