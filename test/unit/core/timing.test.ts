import assert from 'node:assert/strict';
import { Coalesce, Debounce, SlicedQueue, Ticker, TurnQueue, withDeadline } from '../../../src/core/timing';
import { sleepOn, type Clock } from '../../../src/core/clock';
import { ManualClock } from '../../support/manual-clock';

describe('core/timing', () => {
  let timers: ManualClock;
  beforeEach(() => (timers = new ManualClock(0)));

  it('Debounce runs once, after the last trigger of a burst; cancel drops it', () => {
    let runs = 0;
    const d = new Debounce(300, () => runs++, timers);
    d.trigger();
    timers.advance(200);
    d.trigger();
    timers.advance(200);
    assert.equal(runs, 0, 'the second trigger moved it on');
    timers.advance(100);
    assert.equal(runs, 1);
    d.trigger();
    d.cancel();
    timers.advance(1000);
    assert.equal(runs, 1);
  });

  it('Coalesce runs once, after the first trigger since it last ran', () => {
    let runs = 0;
    const c = new Coalesce(400, () => runs++, timers);
    c.trigger();
    timers.advance(300);
    c.trigger();
    assert.equal(c.pending, true);
    timers.advance(100);
    assert.equal(runs, 1, 'the later trigger waited with the first');
    assert.equal(c.pending, false);
  });

  it('Ticker ticks every period between start and stop', () => {
    let ticks = 0;
    const t = new Ticker(30_000, () => ticks++, timers);
    t.start();
    timers.advance(95_000);
    assert.equal(ticks, 3);
    t.stop();
    timers.advance(100_000);
    assert.equal(ticks, 3);
    assert.equal(timers.size, 0);
  });

  it('SlicedQueue hands out slices in later turns, at most one slice per gap, each item once', () => {
    const slices: number[][] = [];
    const q = new SlicedQueue<number>(2, 250, (s) => slices.push(s), timers);
    q.add([1, 2, 3, 4, 5]);
    assert.deepEqual(slices, [], 'never inside the stretch that queued them');
    timers.advance(0);
    assert.deepEqual(slices, [[1, 2]]);
    q.add([3, 6]);
    timers.advance(249);
    assert.equal(slices.length, 1, 'the next slice waits a gap');
    timers.advance(1);
    assert.deepEqual(slices, [
      [1, 2],
      [3, 4],
    ]);
    timers.advance(250);
    assert.deepEqual(slices.at(-1), [5, 6]);
    q.add([7]);
    timers.advance(0);
    assert.equal(slices.length, 3, 'items queued within a gap of the last slice wait for it to pass');
    timers.advance(250);
    assert.deepEqual(slices.at(-1), [7]);
    timers.advance(250);
    q.add([8]);
    timers.advance(0);
    assert.deepEqual(slices.at(-1), [8], 'a queue idle for a gap hands out on the next tick');
    q.add([9]);
    q.dispose();
    timers.advance(1000);
    assert.deepEqual(slices.at(-1), [8], 'nothing after dispose');
    assert.equal(timers.size, 0);
  });

  it('SlicedQueue with a weight bounds the sum of weights in a slice, a heavy item alone', () => {
    const slices: string[][] = [];
    const weights: Record<string, number> = { a: 1, b: 1, P: 250, Q: 250, R: 600, c: 1 };
    const q = new SlicedQueue<string>(
      500,
      250,
      (s) => slices.push(s),
      timers,
      (x) => weights[x],
    );
    q.add(['P', 'a', 'Q', 'R', 'b', 'c']);
    timers.advance(0);
    assert.deepEqual(slices, [['P', 'a']], 'Q would pass the budget: it waits');
    timers.advance(250);
    assert.deepEqual(slices.at(-1), ['Q'], 'R would pass the budget');
    timers.advance(250);
    assert.deepEqual(slices.at(-1), ['R'], 'heavier than the budget: a slice of its own');
    timers.advance(250);
    assert.deepEqual(slices.at(-1), ['b', 'c']);
    q.dispose();
  });

  it('TurnQueue hands out one item per timer tick, in order, never in the stretch that queued it', () => {
    // Timers whose callbacks run only when the test runs the next one: one callback, one turn.
    const due: Array<{ fn: () => void; handle: { timer: unknown } }> = [];
    const turns: Clock = {
      now: () => 0,
      setTimeout: (fn, ms) => {
        assert.equal(ms, 0);
        const handle = { timer: Symbol('turn') };
        due.push({ fn, handle });
        return handle;
      },
      clearTimeout: (handle) => {
        const i = due.findIndex((d) => d.handle === handle);
        if (i >= 0) due.splice(i, 1);
      },
      sleep: (ms, signal) => sleepOn(turns, ms, signal),
    };
    const handled: string[] = [];
    const q = new TurnQueue<string>((x) => handled.push(x), turns);
    q.add('a');
    q.add('b');
    q.add('c');
    assert.deepEqual(handled, [], 'never inside the stretch that queued them');
    assert.equal(due.length, 1, 'one turn scheduled at a time');
    due.shift()!.fn();
    assert.deepEqual(handled, ['a'], 'one item per turn');
    assert.equal(q.size, 2);
    due.shift()!.fn();
    q.add('d');
    assert.equal(due.length, 1, 'an item queued meanwhile waits for the turn already scheduled');
    due.shift()!.fn();
    due.shift()!.fn();
    assert.deepEqual(handled, ['a', 'b', 'c', 'd']);
    assert.equal(due.length, 0, 'nothing scheduled once empty');
    q.add('e');
    q.dispose();
    assert.equal(due.length, 0, 'dispose drops the turn');
    assert.deepEqual(handled, ['a', 'b', 'c', 'd']);
  });

  it('withDeadline gives the value in time, else the timeout error', async () => {
    assert.equal(await withDeadline(Promise.resolve(7), 100, () => new Error('late'), timers), 7);
    const never = new Promise<number>(() => undefined);
    const late = withDeadline(never, 100, () => new Error('no answer within 0.1 s'), timers);
    timers.advance(100);
    await assert.rejects(late, /no answer within 0.1 s/);
  });
});
