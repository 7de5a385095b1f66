import assert from 'node:assert/strict';
import { QuotaMarkBook } from '../../../../src/core/backend/quota-marks';
import { recordWalls } from '../../../../src/core/health/record-walls';
import { failure, MIN, msg, sample, SEC, T0 } from './fixtures';

describe('health/recordWalls (stock opencode quota marks)', () => {
  const wallA = sample({
    id: 'A',
    state: 'idle',
    newest: msg('m_a', {
      providerID: 'local',
      finish: 'error',
      failure: failure({ provider: 'local', category: 'rate-limit', reason: 'rate_limit' }),
      completedAt: T0 - 10 * MIN,
    }),
  });
  const okB = sample({
    id: 'B',
    state: 'idle',
    newest: msg('m_b', { providerID: 'local', completedAt: T0 - 1 * MIN, text: 'done' }),
  });

  for (const order of [
    ['A then B', [wallA, okB]],
    ['B then A', [okB, wallA]],
  ] as const) {
    it(`an old wall in one session and a later success in another: unmarked (${order[0]}), and stays unmarked on replay`, () => {
      const book = new QuotaMarkBook(() => T0);
      recordWalls(book, order[1]);
      assert.equal(book.get('local'), null);
      recordWalls(book, [wallA]);
      assert.equal(book.get('local'), null, 'replaying the old message never re-marks');
    });
  }

  it('a mark is dated by the message that caused it; a short retry marks nothing, a long one marks at the sample', () => {
    const book = new QuotaMarkBook(() => T0);
    recordWalls(book, [wallA]);
    assert.equal(book.get('local')?.markedAt, T0 - 10 * MIN);
    const other = new QuotaMarkBook(() => T0);
    const retry = (next: number) =>
      sample({
        id: 'R',
        at: T0,
        newest: msg('m_r', { providerID: 'p2' }),
        retry: { attempt: 1, message: 'Rate limit reached', next },
      });
    recordWalls(other, [retry(T0 + 5 * SEC)]);
    assert.equal(other.get('p2'), null);
    recordWalls(other, [retry(T0 + 10 * MIN)]);
    assert.equal(other.get('p2')?.markedAt, T0);
  });
});
