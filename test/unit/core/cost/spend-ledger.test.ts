import assert from 'node:assert/strict';
import { SpendLedger } from '../../../../src/core/cost/spend-ledger';
import type { SessionSample } from '../../../../src/core/model';

type Sampled = Pick<SessionSample, 'session' | 'newest'>;

function sampled(id: string, usd: number | null, provider: string | null = 'local'): Sampled {
  return {
    session: {
      id,
      title: null,
      state: 'idle',
      retry: null,
      progress: null,
      updatedAt: null,
      cost:
        usd === null
          ? null
          : { usd, tokens: { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, messages: null },
    },
    newest:
      provider === null
        ? null
        : {
            id: 'msg_1',
            role: 'assistant',
            finish: 'stop',
            text: '',
            failure: null,
            providerID: provider,
            modelID: 'm1',
            createdAt: null,
            completedAt: null,
          },
  };
}

describe('cost/spend-ledger: spend observed while watching', () => {
  it('the first round is the baseline; growth counts; a later session counts whole; per provider', () => {
    const days = ['2026-11-25'];
    const ledger = new SpendLedger(() => days[0]);
    assert.deepEqual(ledger.observe({ directory: '/w', samples: [sampled('a', 1), sampled('b', 2)] }, 0), []);
    assert.deepEqual(
      ledger.observe(
        { directory: '/w', samples: [sampled('a', 1.5), sampled('b', 2), sampled('c', 0.25, 'backup')] },
        1,
      ),
      [
        { provider: 'local', usd: 0.5 },
        { provider: 'backup', usd: 0.25 },
      ],
    );
    // A cost that shrinks (a reverted session) counts nothing; an unreported one is skipped.
    assert.deepEqual(ledger.observe({ directory: '/w', samples: [sampled('a', 1), sampled('x', null)] }, 2), []);
    assert.deepEqual(ledger.observe({ directory: '/w', samples: [sampled('a', 1.25, null)] }, 3), [
      { provider: 'unknown', usd: 0.25 },
    ]);
    days[0] = '2026-11-26';
    ledger.observe({ directory: '/w', samples: [sampled('b', 3)] }, 4);
    assert.deepEqual(ledger.providers(4), [
      { provider: 'local', sinceStart: 1.5, today: 1 },
      { provider: 'backup', sinceStart: 0.25, today: 0 },
      { provider: 'unknown', sinceStart: 0.25, today: 0 },
    ]);
  });

  it('a whole round forgets unlisted sessions: one that comes back counts whole', () => {
    const ledger = new SpendLedger(() => 'd');
    ledger.observe({ directory: '/w', samples: [sampled('a', 1)] }, 0);
    ledger.observe({ directory: '/w', samples: [], listed: [] }, 1);
    assert.deepEqual(ledger.observe({ directory: '/w', samples: [sampled('a', 1)] }, 2), [
      { provider: 'local', usd: 1 },
    ]);
  });

  it('a session whose messages are summed later (pending in the first round) is a baseline; a new pending one counts whole', () => {
    const ledger = new SpendLedger(() => 'd');
    const pending = (id: string) => {
      const x = sampled(id, null);
      x.session.costPending = true;
      return x;
    };
    assert.deepEqual(ledger.observe({ directory: '/w', samples: [pending('old')] }, 0), []);
    assert.deepEqual(ledger.observe({ directory: '/w', samples: [sampled('old', 5), pending('new')] }, 1), []);
    assert.deepEqual(ledger.observe({ directory: '/w', samples: [sampled('old', 6), sampled('new', 2)] }, 2), [
      { provider: 'local', usd: 3 },
    ]);
  });
});
