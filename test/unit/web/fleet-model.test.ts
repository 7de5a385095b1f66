// The page's fleet model: the fleet read from /api/fleet's and /api/status's shapes, the attention
// list (waiting for you, escalated, stuck, hung, over budget, in that order), the requests of a row,
// and the live changes (row, removed) applied to the right backend and directory.
import { strict as assert } from 'node:assert';
import {
  applyRemoved,
  applyRow,
  attentionList,
  attentionOf,
  costText,
  findRow,
  readFleet,
  relativeTime,
  requestsOf,
  withProviders,
  type PageRow,
} from '../../../src/web/fleet-model';

const row = (id: string, extra: Partial<PageRow> = {}): PageRow =>
  ({
    id,
    verdict: 'healthy',
    headline: 'healthy',
    action: 'leave-alone',
    settled: true,
    basis: 'stepCount grew',
    waiting: null,
    escalation: null,
    automaticSkip: null,
    overBudget: false,
    cost: null,
    costPending: false,
    ...extra,
  }) as PageRow;

const KEY = 'http://127.0.0.1:4096/';

describe('web/fleet-model', () => {
  it('reads /api/fleet (backends > directories > rows) and /api/status (documents)', () => {
    const fleet = readFleet({
      backends: [
        {
          key: KEY,
          name: 'oc',
          dialect: 'opencode',
          error: null,
          directories: [{ directory: '/w', rows: [row('s1')] }, { bad: true }],
        },
        'junk',
      ],
    });
    assert.equal(fleet.backends.length, 1);
    assert.deepEqual(
      [fleet.backends[0].key, fleet.backends[0].name, fleet.backends[0].dialect],
      [KEY, 'oc', 'opencode'],
    );
    assert.deepEqual(
      fleet.backends[0].directories.map((d) => [d.directory, d.rows.map((r) => r.id)]),
      [['/w', ['s1']]],
    );
    const status = readFleet([
      {
        backend: 'oc',
        up: false,
        error: 'connection refused',
        documents: [
          {
            baseUrl: 'http://127.0.0.1:4096',
            directory: '/w',
            dialect: 'opencode',
            sessions: [row('s2'), { no: 'id' }],
            providers: [{ id: 'local', connected: true, quota: null, name: null, category: null }],
            errors: [{ sessionId: null, kind: 'backend', message: 'HTTP 500' }],
          },
        ],
      },
    ]);
    const b = status.backends[0];
    assert.deepEqual([b.key, b.name, b.dialect, b.error], [KEY, 'oc', 'opencode', 'connection refused']);
    assert.deepEqual(
      b.directories[0].rows.map((r) => r.id),
      ['s2'],
    );
    assert.equal(b.directories[0].error, 'HTTP 500');
    assert.deepEqual(
      b.providers.map((p) => p.id),
      ['local'],
    );
    assert.throws(() => readFleet({ nope: 1 }), /no list of backends/);
  });

  it('the attention list: every reason of a row, the most pressing first, then in fleet order', () => {
    const fleet = readFleet({
      backends: [
        {
          key: KEY,
          name: 'oc',
          directories: [
            {
              directory: '/w',
              rows: [
                row('fine'),
                row('costly', { overBudget: true }),
                row('hung', { verdict: 'hung', headline: 'hung', action: 'abort-and-wake' }),
                row('stuck', { automaticSkip: { reason: 'stuck', text: '3 wakes without a report' } }),
                row('esc', { action: 'escalate' }),
                row('waits', {
                  verdict: 'waiting',
                  headline: 'waiting',
                  action: 'answer',
                  overBudget: true,
                  waiting: { kind: 'permission', title: 'permission: bash ls', requestID: 'per1' },
                }),
                row('too-old', { automaticSkip: { reason: 'too-old', text: 'older than 48 h' } }),
              ],
            },
          ],
        },
      ],
    });
    const list = attentionList(fleet);
    assert.deepEqual(
      list.map((i) => [i.row.id, i.reasons]),
      [
        ['waits', ['waiting', 'over-budget']],
        ['esc', ['escalated']],
        ['stuck', ['stuck']],
        ['hung', ['hung']],
        ['costly', ['over-budget']],
      ],
    );
    assert.deepEqual(attentionOf(row('fine')), []);
  });

  it("a row's request: its waiting field, with the permission's patterns or the questions in full", () => {
    const waiting = { kind: 'question' as const, title: 'question: Colour', requestID: 'que1' };
    assert.deepEqual(requestsOf(row('a', { waiting })), [{ ...waiting, permission: null, questions: [] }]);
    const questions = [{ question: 'Which?', header: null, options: [], multiple: false, custom: true }];
    assert.deepEqual(requestsOf(row('a', { waiting, waitingDetail: { kind: 'question', questions } })), [
      { ...waiting, permission: null, questions },
    ]);
    const perm = { kind: 'permission' as const, title: 'permission: bash ls', requestID: 'per1' };
    assert.deepEqual(
      requestsOf(
        row('b', {
          waiting: perm,
          waitingDetail: { kind: 'permission', tool: 'bash', patterns: ['ls'], always: ['ls *'] },
        }),
      ),
      [{ ...perm, permission: { tool: 'bash', patterns: ['ls'], always: ['ls *'] }, questions: [] }],
    );
    assert.deepEqual(requestsOf(row('a')), []);
  });

  it('row and removed events change the one row they name; a new directory is added', () => {
    let fleet = readFleet({
      backends: [{ key: KEY, name: 'oc', directories: [{ directory: '/w', rows: [row('s1'), row('s2')] }] }],
    });
    fleet = applyRow(fleet, { backend: KEY, directory: '/w', row: row('s1', { verdict: 'hung', headline: 'hung' }) });
    assert.equal(findRow(fleet, KEY, 's1')?.row.verdict, 'hung');
    assert.equal(findRow(fleet, KEY, 's2')?.row.verdict, 'healthy');
    fleet = applyRow(fleet, { backend: 'oc', directory: '/v', row: row('s3') });
    assert.equal(findRow(fleet, KEY, 's3')?.directory, '/v');
    fleet = applyRow(fleet, { backend: 'other/', directory: '/w', row: row('s9') });
    assert.equal(findRow(fleet, KEY, 's9'), null);
    fleet = applyRemoved(fleet, { backend: KEY, directory: '/w', sessionId: 's2' });
    assert.equal(findRow(fleet, KEY, 's2'), null);
    assert.equal(applyRow(fleet, { nonsense: true }), fleet);
  });

  it("providers from /api/providers replace the fleet's, by key or name", () => {
    const fleet = readFleet({ backends: [{ key: KEY, name: 'oc', directories: [] }] });
    const marked = {
      id: 'anthropic',
      connected: true,
      quota: { markedAt: 1, resetAt: null },
      name: null,
      category: null,
    };
    assert.deepEqual(withProviders(fleet, { backends: [{ name: 'oc', providers: [marked] }] }).backends[0].providers, [
      marked,
    ]);
    assert.deepEqual(withProviders(fleet, { backends: [{ key: KEY, providers: [marked] }] }).backends[0].providers, [
      marked,
    ]);
  });

  it('texts: cost and relative times', () => {
    assert.equal(costText(row('a')), '');
    assert.equal(costText(row('a', { costPending: true })), 'cost pending');
    assert.equal(costText(row('a', { cost: { usd: 1.234, tokens: {} as never, messages: 3 } })), '$1.23');
    assert.equal(costText(row('a', { cost: { usd: 0.0012, tokens: {} as never, messages: 3 } })), '$0.0012');
    assert.equal(relativeTime(1_000, 61_000), '60 s ago');
    assert.equal(relativeTime(10 * 60_000, 0), 'in 10 min');
    assert.equal(relativeTime(0, 3 * 3600_000), '3 h ago');
  });
});
