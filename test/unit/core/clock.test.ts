// The one clock (src/core/clock.ts): the system's sleeps and aborts, a clock offset for the
// editor's test hook, the manual clock tests use, and the lint rule that holds every other file to
// an injected Clock (no raw timer, no Date.now(), no argument-less new Date()).
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';
import { BackendError } from '../../../src/core/backend/errors';
import { offsetClock, sleepOn, systemClock, unrefTimer } from '../../../src/core/clock';
import { ManualClock } from '../../support/manual-clock';

describe('core/clock', () => {
  it('systemClock.sleep resolves after the time; an abort rejects at once with an aborted BackendError', async () => {
    const started = performance.now();
    await systemClock.sleep(20);
    assert.ok(performance.now() - started >= 15);
    const stop = new AbortController();
    const long = systemClock.sleep(60_000, stop.signal);
    stop.abort();
    await assert.rejects(long, (err: unknown) => err instanceof BackendError && err.code === 'aborted');
    await assert.rejects(
      systemClock.sleep(10, stop.signal),
      (err: unknown) => err instanceof BackendError && err.code === 'aborted',
    );
  });

  it('sleepOn waits on a manual clock until it is advanced; its timer is cleared on abort', async () => {
    const clock = new ManualClock(0);
    let done = false;
    const waiting = sleepOn(clock, 50).then(() => (done = true));
    clock.advance(49);
    await Promise.resolve();
    assert.equal(done, false);
    clock.advance(1);
    await waiting;
    assert.equal(done, true);
    const stop = new AbortController();
    const aborted = sleepOn(clock, 50, stop.signal);
    assert.equal(clock.size, 1);
    stop.abort();
    await assert.rejects(aborted, (err: unknown) => err instanceof BackendError && err.code === 'aborted');
    assert.equal(clock.size, 0, 'the timer went with the abort');
  });

  it("a manual clock's sleep moves its time on; timers fire only on advance, in order", async () => {
    const clock = new ManualClock(1_000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('b'), 200);
    clock.setTimeout(() => fired.push('a'), 100);
    await clock.sleep(500);
    assert.equal(clock.now(), 1_500);
    assert.deepEqual(fired, [], 'a sleep fires no timer');
    assert.equal(clock.advance(0), 2);
    assert.deepEqual(fired, ['a', 'b']);
  });

  it('offsetClock reads the base time plus the offset and waits on the base', async () => {
    const base = new ManualClock(10_000);
    let offset = 0;
    const clock = offsetClock(base, () => offset);
    offset = 3_600_000;
    assert.equal(clock.now(), 3_610_000);
    let ran = false;
    clock.setTimeout(() => (ran = true), 10);
    base.advance(10);
    assert.equal(ran, true);
    const handle = unrefTimer(systemClock.setTimeout(() => assert.fail('cleared'), 5));
    systemClock.clearTimeout(handle);
  });

  describe('the lint rule: no raw timers outside the clock', function () {
    this.timeout(60_000);
    const eslint = new ESLint({ cwd: path.resolve(__dirname, '../../..') });
    const lint = async (file: string, code: string) =>
      (await eslint.lintText(code, { filePath: path.resolve(__dirname, '../../..', file) }))[0].messages
        .filter((m) => m.ruleId === 'session-ops/no-raw-timers')
        .map((m) => m.line);

    it('flags setTimeout, setInterval, Date.now and new Date() in src and server', async () => {
      const code = [
        'export const a = setTimeout(() => undefined, 1);',
        'export const b = setInterval(() => undefined, 1);',
        'export const c = Date.now();',
        'export const d = new Date();',
        'export const e = globalThis.setTimeout;',
        'export const f = Date.now;',
        'export const ok = new Date(0).getTime() + Number(new Date(c));',
      ].join('\n');
      assert.deepEqual(await lint('src/core/monitor/example.ts', code), [1, 2, 3, 4, 5, 6]);
      assert.deepEqual(await lint('server/example.ts', code), [1, 2, 3, 4, 5, 6]);
    });

    it('leaves the clock module and the tests alone', async () => {
      const code = 'export const a = setTimeout(() => undefined, Date.now() - new Date().getTime());';
      assert.deepEqual(await lint('src/core/clock.ts', code), []);
      assert.deepEqual(await lint('test/unit/core/example.test.ts', code), []);
    });
  });
});
