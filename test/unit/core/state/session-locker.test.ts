// The per-session lock in the state directory: one holder at a time, a bounded wait that names
// the holder, stale locks of dead processes (or without refresh) broken, a broken lock not
// released by its former holder.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  FileSessionLocker,
  lockName,
  ProcessSessionLocker,
  sessionLockerFor,
  type SessionLocker,
} from '../../../../src/core/state/session-locker';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('per-session lock (src/core/state/session-locker.ts)', function () {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function serializes(a: SessionLocker, b: SessionLocker): Promise<void> {
    let inside = 0;
    let most = 0;
    const order: string[] = [];
    const body = (name: string) => async () => {
      inside++;
      most = Math.max(most, inside);
      order.push(`${name}+`);
      await tick(30);
      order.push(`${name}-`);
      inside--;
      return name;
    };
    const runs = await Promise.all([
      a.withSessionLock('ses_1', { purpose: 'wake' }, body('a1')),
      b.withSessionLock('ses_1', { purpose: 'wake' }, body('b1')),
      a.withSessionLock('ses_1', { purpose: 'wake' }, body('a2')),
      b.withSessionLock('ses_2', { purpose: 'wake' }, async () => 'other'),
    ]);
    assert.equal(most, 1, `two holders at once: ${order.join(' ')}`);
    assert.deepEqual(
      runs.map((r) => r.acquired && r.value),
      ['a1', 'b1', 'a2', 'other'],
    );
  }

  it('one holder at a time per session across lockers of one directory; other sessions unaffected', async () => {
    await serializes(new FileSessionLocker(dir), new FileSessionLocker(dir));
    assert.deepEqual(readdirSync(path.join(dir, 'locks')), [], 'every lock released');
  });

  it('the locker of a process without a state directory still serializes its own actors', async () => {
    const p = sessionLockerFor(null);
    assert.ok(p instanceof ProcessSessionLocker);
    await serializes(p, p);
  });

  it('a bounded wait, then busy naming the holder; the body never runs', async () => {
    const a = new FileSessionLocker(dir);
    const b = new FileSessionLocker(dir, { waitMs: 150 });
    let release!: () => void;
    const held = a.withSessionLock('ses_1', { purpose: 'wake' }, () => new Promise<void>((r) => (release = r)));
    await tick(20);
    let ran = false;
    const r = await b.withSessionLock('ses_1', { purpose: 'abort' }, async () => {
      ran = true;
    });
    assert.equal(r.acquired, false);
    assert.equal(ran, false);
    if (!r.acquired) {
      assert.match(
        r.reason,
        new RegExp(`session ses_1 is busy: process ${process.pid} on .* \\(wake, for \\d+ s\\) holds its lock`),
      );
      assert.equal(r.holder?.purpose, 'wake');
    }
    release();
    assert.equal((await held).acquired, true);
    assert.equal((await b.withSessionLock('ses_1', { purpose: 'abort' }, async () => 1)).acquired, true);
  });

  function plantLock(owner: object | string, ageMs = 0): string {
    const lock = path.join(dir, 'locks', lockName('ses_1'));
    mkdirSync(lock, { recursive: true });
    writeFileSync(path.join(lock, 'owner.json'), typeof owner === 'string' ? owner : JSON.stringify(owner));
    if (ageMs) {
      const t = new Date(Date.now() - ageMs);
      utimesSync(lock, t, t);
    }
    return lock;
  }

  it('a lock of a dead process of this host is broken at once', async () => {
    plantLock({ pid: 999_999, host: 'here', token: 't', since: Date.now(), purpose: 'wake' });
    const l = new FileSessionLocker(dir, { host: 'here', isAlive: (pid) => pid !== 999_999, waitMs: 100 });
    const r = await l.withSessionLock('ses_1', { purpose: 'wake' }, async () => 'mine');
    assert.deepEqual(r, { acquired: true, value: 'mine' });
  });

  it('a live holder of this host, or one of another host, is waited for until its mtime is stale', async () => {
    plantLock({ pid: 4242, host: 'here', token: 't', since: Date.now(), purpose: 'wake' });
    const alive = new FileSessionLocker(dir, { host: 'here', isAlive: () => true, waitMs: 80 });
    assert.equal((await alive.withSessionLock('ses_1', { purpose: 'wake' }, async () => 1)).acquired, false);
    rmSync(path.join(dir, 'locks'), { recursive: true });
    plantLock({ pid: 4242, host: 'elsewhere', token: 't', since: Date.now(), purpose: 'wake' }, 60_000);
    const l = new FileSessionLocker(dir, { host: 'here', isAlive: () => true, staleMs: 30_000, waitMs: 80 });
    assert.equal((await l.withSessionLock('ses_1', { purpose: 'wake' }, async () => 1)).acquired, true);
  });

  it('a corrupt owner record is stale once its mtime is old, never a crash', async () => {
    plantLock('{not json', 0);
    const l = new FileSessionLocker(dir, { staleMs: 30_000, waitMs: 60 });
    const r = await l.withSessionLock('ses_1', { purpose: 'wake' }, async () => 1);
    assert.equal(r.acquired, false);
    if (!r.acquired) assert.match(r.reason, /another actor holds its lock/);
    rmSync(path.join(dir, 'locks'), { recursive: true });
    plantLock('{not json', 60_000);
    assert.equal((await l.withSessionLock('ses_1', { purpose: 'wake' }, async () => 1)).acquired, true);
  });

  it('a holder whose lock was broken as stale does not remove the new holder’s lock', async () => {
    const a = new FileSessionLocker(dir);
    const b = new FileSessionLocker(dir, { waitMs: 100 });
    const lock = path.join(dir, 'locks', lockName('ses_1'));
    const r = await a.withSessionLock('ses_1', { purpose: 'wake' }, async () => {
      // Another actor judged this lock stale and took the session.
      rmSync(lock, { recursive: true });
      plantLock({ pid: process.pid, host: os.hostname(), token: 'other', since: Date.now(), purpose: 'abort' });
      return 1;
    });
    assert.equal(r.acquired, true);
    assert.deepEqual(readdirSync(path.join(dir, 'locks')), [lockName('ses_1')], 'the new holder keeps its lock');
    assert.equal((await b.withSessionLock('ses_1', { purpose: 'wake' }, async () => 1)).acquired, false);
  });

  it('lock names are file-safe whatever the session id holds', () => {
    assert.match(lockName('../../etc/passwd'), /^______etc_passwd-[0-9a-f]{10}\.lock$/);
    assert.notEqual(lockName('a/b'), lockName('a_b'));
  });
});
