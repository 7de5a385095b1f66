// The CLI's quota marks across runs (src/cli/mark-store.ts): where the file lives, what it holds,
// merging runs that overlap, and bad files that must not stop a run.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  markStorePath,
  MARK_STORE_MAX_BYTES,
  openMarkStore,
  stateDir,
  withMarkStore,
} from '../../../src/cli/mark-store';

const URL = 'http://127.0.0.1:4096/';
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0);

describe('cli/mark-store', () => {
  let dir: string;
  let now: number;
  const clock = () => now;
  const env = () => ({ SESSION_OPS_STATE_DIR: dir });
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-marks-'));
    now = T0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('state directory: SESSION_OPS_STATE_DIR, else XDG_STATE_HOME, else HOME; empty or none: off', () => {
    assert.equal(stateDir({ SESSION_OPS_STATE_DIR: '/s', HOME: '/h' }), '/s');
    assert.equal(stateDir({ SESSION_OPS_STATE_DIR: '', HOME: '/h' }), null);
    assert.equal(stateDir({ XDG_STATE_HOME: '/x', HOME: '/h' }), '/x/session-ops');
    assert.equal(stateDir({ HOME: '/h' }), '/h/.local/state/session-ops');
    assert.equal(stateDir({}), null);
    assert.notEqual(markStorePath('/s', URL), markStorePath('/s', 'http://127.0.0.1:4097/'), 'one file per backend');
  });

  it('a mark seen in one run is there in the next; a later success ends it in a third', async () => {
    const first = await openMarkStore(URL, env(), clock);
    first.book.record('anthropic', { at: T0 - 1000, resetAt: T0 + 3_600_000, category: 'usage-limit' });
    assert.equal(await first.save(), null);
    const text = readFileSync(first.file!, 'utf8');
    assert.deepEqual(
      JSON.parse(text).marks.map((m: { provider: string }) => m.provider),
      ['anthropic'],
    );
    const second = await openMarkStore(URL, env(), clock);
    assert.equal(second.book.get('anthropic')?.resetAt, T0 + 3_600_000);
    second.book.observeSuccess('anthropic', T0);
    await second.save();
    const third = await openMarkStore(URL, env(), clock);
    assert.equal(third.book.get('anthropic'), null);
    // The old wall replayed (an old message read again) does not mark again: the clearance is kept.
    third.book.record('anthropic', { at: T0 - 1000, resetAt: T0 + 3_600_000, category: 'usage-limit' });
    assert.equal(third.book.get('anthropic'), null);
  });

  it('runs that overlap keep each other’s marks (the file is re-read before it is written)', async () => {
    const a = await openMarkStore(URL, env(), clock);
    const b = await openMarkStore(URL, env(), clock);
    a.book.record('anthropic', { at: T0, resetAt: null, category: 'balance' });
    b.book.record('openai', { at: T0, resetAt: T0 + 60_000, category: 'rate-limit' });
    await a.save();
    await b.save();
    const c = await openMarkStore(URL, env(), clock);
    assert.deepEqual(
      c.book
        .list()
        .map((m) => m.provider)
        .sort(),
      ['anthropic', 'openai'],
    );
  });

  it('a malformed or oversized file is a warning, never a failed run; it is replaced on save', async () => {
    const file = markStorePath(dir, URL);
    writeFileSync(file, '{"marks": [ oops');
    const bad = await openMarkStore(URL, env(), clock);
    assert.match(bad.warning ?? '', /could not be read/);
    assert.equal(bad.book.list().length, 0);
    writeFileSync(file, 'x'.repeat(MARK_STORE_MAX_BYTES + 1));
    const big = await openMarkStore(URL, env(), clock);
    assert.match(big.warning ?? '', /not read/);
    writeFileSync(
      file,
      JSON.stringify({
        marks: [
          { provider: 'p', markedAt: 'yesterday' },
          null,
          7,
          { provider: 'q', markedAt: T0, resetAt: null, category: 'balance' },
        ],
        cleared: { p: 'x' },
      }),
    );
    const mixed = await openMarkStore(URL, env(), clock);
    assert.deepEqual(
      mixed.book.list().map((m) => m.provider),
      ['q'],
      'the malformed entries are skipped',
    );
  });

  it('withMarkStore saves even when the command throws, and says when it cannot write', async () => {
    let err = '';
    await assert.rejects(
      withMarkStore('wake', URL, { env: env(), stderr: (t) => (err += t) }, clock, {}, async (book) => {
        book.record('openai', { at: T0, resetAt: null, category: 'balance' });
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.ok(readFileSync(markStorePath(dir, URL), 'utf8').includes('openai'));
    const blocked = path.join(dir, 'not-a-dir');
    writeFileSync(blocked, '');
    await withMarkStore(
      'wake',
      URL,
      { env: { SESSION_OPS_STATE_DIR: blocked }, stderr: (t) => (err += t) },
      clock,
      {},
      async () => 0,
    );
    assert.match(err, /session-ops wake: warning: quota marks not saved/);
  });
});
