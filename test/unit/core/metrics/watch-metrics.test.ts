// The metrics of `session-ops watch`: names and labels (a contract), values computed at scrape
// time from the monitor's state, the per-session cap, absent unknown times, OpenMetrics on demand.
import { strict as assert } from 'node:assert';
import type { BackendState } from '../../../../src/core/monitor/sessionMonitor';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { requestOutcome, wantsOpenMetrics, WatchMetrics } from '../../../../src/core/metrics/watch-metrics';
import { BackendError } from '../../../../src/core/backend/errors';
import { sessionRow } from '../../../support/session-rows';

/** A healthy generating session unless told otherwise. */
function row(id: string, over: Partial<SessionRow> = {}): SessionRow {
  const latest = { at: 0, state: 'idle' as const, stepCount: null, lastStepAt: null, newestId: null, newestRole: null };
  return sessionRow({
    id,
    title: `title ${id}`,
    badge: 'healthy',
    verdict: 'healthy',
    action: 'leave-alone',
    state: 'generating',
    evidence: { earlier: null, latest },
    ...over,
  });
}

function backend(name: string, rows: SessionRow[], over: Partial<BackendState> = {}): BackendState {
  return {
    config: { key: `http://${name}/`, name, baseUrl: `http://${name}`, directories: ['/w'], insecure: false },
    status: 'ok',
    error: null,
    dialect: 'spec',
    directories: [{ directory: '/w', rows, error: null, partialErrors: [], truncated: null }],
    providers: null,
    providersError: null,
    allFreeAt: null,
    eventStream: null,
    lastRoundAt: 1,
    ...over,
  };
}

function lines(text: string, name: string): string[] {
  return text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
}

describe('core/metrics/watch-metrics', () => {
  it('backend_up, backend_info (the key), sessions per verdict (all six) and one verdict series per session', async () => {
    const state = [
      backend('a', [
        row('s1'),
        row('s2', { verdict: 'hung', action: 'abort-and-wake', title: 'line\nbreak' }),
        row('s3', { verdict: null, action: null, pending: 'one sample' }),
        row('s4', { verdict: null, action: null, unreadable: 'GET failed' }),
      ]),
      backend('down', [], { status: 'error', error: 'refused' }),
    ];
    const m = new WatchMetrics({ source: { backends: () => state }, processMetrics: false });
    const { body, contentType } = await m.render(false);
    assert.match(contentType, /^text\/plain; version=0\.0\.4/);
    assert.deepEqual(lines(body, 'session_ops_backend_up'), [
      'session_ops_backend_up{backend="a"} 1',
      'session_ops_backend_up{backend="down"} 0',
    ]);
    // The backend's key (the daemon's identifier, its normalized base URL) for the alerts' page link.
    assert.deepEqual(lines(body, 'session_ops_backend_info'), [
      'session_ops_backend_info{backend="a",key="http://a/"} 1',
      'session_ops_backend_info{backend="down",key="http://down/"} 1',
    ]);
    assert.deepEqual(lines(body, 'session_ops_sessions'), [
      'session_ops_sessions{backend="a",directory="/w",verdict="healthy"} 1',
      'session_ops_sessions{backend="a",directory="/w",verdict="idle"} 0',
      'session_ops_sessions{backend="a",directory="/w",verdict="hung"} 1',
      'session_ops_sessions{backend="a",directory="/w",verdict="waiting"} 0',
      'session_ops_sessions{backend="a",directory="/w",verdict="unknown"} 1',
      'session_ops_sessions{backend="a",directory="/w",verdict="pending"} 1',
    ]);
    const verdicts = lines(body, 'session_ops_session_verdict');
    assert.equal(verdicts.length, 4);
    assert.ok(
      verdicts.includes(
        'session_ops_session_verdict{backend="a",directory="/w",session="s2",title="line break",verdict="hung",action="abort-and-wake"} 1',
      ),
    );
    assert.ok(verdicts.some((l) => l.includes('session="s3"') && l.includes('verdict="pending",action="none"')));
    assert.deepEqual(lines(body, 'session_ops_session_series_dropped'), ['session_ops_session_series_dropped 0']);
  });

  it('values are read at scrape time: a changed state shows on the next scrape, gone series vanish', async () => {
    let state = [backend('a', [row('s1', { verdict: 'hung', action: 'abort-and-wake' })])];
    const m = new WatchMetrics({ source: { backends: () => state }, processMetrics: false });
    assert.match((await m.render(false)).body, /session="s1".*verdict="hung"/);
    state = [backend('a', [row('s1', { verdict: 'healthy' })])];
    const body = (await m.render(false)).body;
    assert.doesNotMatch(body, /verdict="hung",action/);
    assert.match(body, /session="s1".*verdict="healthy"/);
  });

  it('caps per-session series at maxSessionSeries, keeping those that need a person, and counts the rest', async () => {
    const rows = [row('ok1'), row('ok2'), row('h1', { verdict: 'hung' }), row('w1', { verdict: 'waiting' })];
    const m = new WatchMetrics({
      source: { backends: () => [backend('a', rows)] },
      maxSessionSeries: 3,
      processMetrics: false,
    });
    const body = (await m.render(false)).body;
    const sessions = lines(body, 'session_ops_session_verdict').map((l) => /session="([^"]+)"/.exec(l)![1]);
    assert.deepEqual(sessions.sort(), ['h1', 'ok1', 'w1']);
    assert.deepEqual(lines(body, 'session_ops_session_series_dropped'), ['session_ops_session_series_dropped 1']);
    m.setMaxSessionSeries(0);
    const none = (await m.render(false)).body;
    assert.equal(lines(none, 'session_ops_session_verdict').length, 0);
    assert.deepEqual(lines(none, 'session_ops_session_series_dropped'), ['session_ops_session_series_dropped 4']);
  });

  it('sessions automatic mode leaves alone, per reason; a stuck session has its series with the wakes counted, kept first under the cap', async () => {
    const rows = [
      row('ok1'),
      row('ok2'),
      row('sub', { parentId: 'ok1' }),
      row('loop', { verdict: 'idle', action: 'wake', state: 'idle', title: 'Loops' }),
    ];
    const skips: Record<string, { reason: string; text: string; wakes?: number }> = {
      sub: { reason: 'sub-agent', text: 'sub-agent of ok1' },
      loop: { reason: 'stuck', text: 'stuck: woken 3 times without a report', wakes: 3 },
      ok2: { reason: 'authority', text: 'authority rule 2: its first user message names orchestrator ses_other' },
    };
    const m = new WatchMetrics({
      source: { backends: () => [backend('a', rows)] },
      maxSessionSeries: 1,
      processMetrics: false,
      automaticSkip: (r) => skips[r.id] ?? null,
    });
    const body = (await m.render(false)).body;
    assert.deepEqual(lines(body, 'session_ops_automatic_skipped_sessions'), [
      'session_ops_automatic_skipped_sessions{backend="a",directory="/w",reason="sub-agent"} 1',
      'session_ops_automatic_skipped_sessions{backend="a",directory="/w",reason="stuck"} 1',
      'session_ops_automatic_skipped_sessions{backend="a",directory="/w",reason="too-old"} 0',
      'session_ops_automatic_skipped_sessions{backend="a",directory="/w",reason="age-unknown"} 0',
      'session_ops_automatic_skipped_sessions{backend="a",directory="/w",reason="not-ticketed"} 0',
      'session_ops_automatic_skipped_sessions{backend="a",directory="/w",reason="authority"} 1',
    ]);
    assert.deepEqual(lines(body, 'session_ops_session_stuck_wakes'), [
      'session_ops_session_stuck_wakes{backend="a",directory="/w",session="loop",title="Loops"} 3',
    ]);
    const kept = lines(body, 'session_ops_session_verdict').map((l) => /session="([^"]+)"/.exec(l)![1]);
    assert.deepEqual(kept, ['loop'], 'a stuck session needs a person: kept first under the cap');
    delete skips.loop;
    const after = (await m.render(false)).body;
    assert.deepEqual(lines(after, 'session_ops_session_stuck_wakes'), [], 'gone once a person acted');
  });

  it('a session at a quota wall (a frozen 429 retry reads hung/recover) has its quota-wall series, and is kept first under the cap', async () => {
    const retry = { provider: 'anthropic', reason: 'rate_limit', category: 'rate-limit' as const, resetAt: null };
    const rows = [
      row('ok1'),
      row('spin', { verdict: 'hung', action: 'recover', quotaWall: retry }),
      row('hang', { verdict: 'hung', action: 'abort-and-wake' }),
      row('died', { verdict: 'idle', action: 'recover', quotaWall: { ...retry, provider: null, category: null } }),
    ];
    const m = new WatchMetrics({ source: { backends: () => [backend('a', rows)] }, processMetrics: false });
    const body = (await m.render(false)).body;
    assert.deepEqual(lines(body, 'session_ops_session_quota_wall'), [
      'session_ops_session_quota_wall{backend="a",directory="/w",session="spin",provider="anthropic",category="rate-limit"} 1',
      'session_ops_session_quota_wall{backend="a",directory="/w",session="died",provider="unknown",category="unknown"} 1',
    ]);
    assert.ok(
      lines(body, 'session_ops_session_verdict').includes(
        'session_ops_session_verdict{backend="a",directory="/w",session="spin",title="title spin",verdict="hung",action="recover"} 1',
      ),
      "the verdict stays the spec's (hung): the quota wall is its own series",
    );
    m.setMaxSessionSeries(3);
    const capped = (await m.render(false)).body;
    const kept = lines(capped, 'session_ops_session_verdict').map((l) => /session="([^"]+)"/.exec(l)![1]);
    assert.deepEqual(kept.sort(), ['died', 'hang', 'spin']);
  });

  it('providers, quota walls, reset times (absent when unknown) and the all-free time', async () => {
    const wall = { provider: 'p1', reason: 'rate', category: 'rate-limit' as const, resetAt: null };
    const b = backend(
      'a',
      [row('s1', { quotaWall: wall, verdict: 'idle' }), row('s2', { quotaWall: wall, verdict: 'idle' })],
      {
        providers: {
          connected: ['p1', 'p2'],
          providers: [
            {
              id: 'p1',
              name: 'P1',
              connected: true,
              quota: { markedAt: 1000, resetAt: 7_200_000, category: 'rate-limit' },
            },
            { id: 'p2', name: 'P2', connected: true, quota: { markedAt: 1000, resetAt: null, category: 'rate-limit' } },
            { id: 'p3', name: 'P3', connected: false, quota: null },
          ],
        } as unknown as BackendState['providers'],
        allFreeAt: null,
      },
    );
    const m = new WatchMetrics({ source: { backends: () => [b] }, processMetrics: false });
    const body = (await m.render(false)).body;
    assert.deepEqual(lines(body, 'session_ops_quota_walls'), [
      'session_ops_quota_walls{backend="a",directory="/w",provider="p1"} 2',
    ]);
    assert.deepEqual(lines(body, 'session_ops_provider_connected'), [
      'session_ops_provider_connected{backend="a",provider="p1"} 1',
      'session_ops_provider_connected{backend="a",provider="p2"} 1',
    ]);
    assert.deepEqual(lines(body, 'session_ops_provider_quota_marked'), [
      'session_ops_provider_quota_marked{backend="a",provider="p1"} 1',
      'session_ops_provider_quota_marked{backend="a",provider="p2"} 1',
    ]);
    assert.deepEqual(lines(body, 'session_ops_provider_quota_reset_timestamp_seconds'), [
      'session_ops_provider_quota_reset_timestamp_seconds{backend="a",provider="p1"} 7200',
    ]);
    assert.deepEqual(lines(body, 'session_ops_all_providers_free_timestamp_seconds'), []);
    b.allFreeAt = 9_000_000;
    const later = (await m.render(false)).body;
    assert.deepEqual(lines(later, 'session_ops_all_providers_free_timestamp_seconds'), [
      'session_ops_all_providers_free_timestamp_seconds{backend="a"} 9000',
    ]);
  });

  it('counters and the round histogram; OpenMetrics on demand, Prometheus text unchanged after it', async () => {
    const m = new WatchMetrics({ source: { backends: () => [] }, processMetrics: false });
    m.countRequest('a', 'GET /session', 'ok');
    m.countRequest('a', 'GET /session', 'timeout');
    m.countAction('a', 'abort-and-wake', 'done', 'automatic');
    m.observeRound('a', 0.2);
    const om = await m.render(true);
    assert.match(om.contentType, /^application\/openmetrics-text; version=1\.0\.0/);
    assert.match(om.body, /# TYPE session_ops_requests counter/);
    assert.match(om.body, /session_ops_requests_total\{backend="a",endpoint="GET \/session",outcome="timeout"\} 1/);
    assert.match(om.body, /# EOF\n$/);
    const text = (await m.render(false)).body;
    assert.match(text, /# TYPE session_ops_requests_total counter/);
    assert.match(
      text,
      /session_ops_actions_total\{backend="a",action="abort-and-wake",outcome="done",trigger="automatic"\} 1/,
    );
    assert.match(text, /session_ops_sample_round_duration_seconds_count\{backend="a"\} 1/);
    assert.doesNotMatch(text, /# EOF/);
  });

  it('removeBackend drops every counter and round-time series of that backend, and only those', async () => {
    let state = [backend('a', [row('s1')]), backend('b', [row('s2', { verdict: 'hung', action: 'abort-and-wake' })])];
    const m = new WatchMetrics({ source: { backends: () => state }, processMetrics: false });
    for (const name of ['a', 'b']) {
      m.initBackend(name);
      m.countRequest(name, 'GET /session', 'ok');
      m.countRequest(name, 'GET /session', 'timeout');
      m.countAction(name, 'abort-and-wake', 'done', 'automatic');
      m.countSpend(name, 'anthropic', 0.5);
      m.observeRound(name, 0.2);
    }
    assert.match((await m.render(false)).body, /backend="b"/);
    state = [state[0]];
    await m.removeBackend('b');
    const body = (await m.render(false)).body;
    assert.doesNotMatch(body, /backend="b"/);
    for (const series of [
      'session_ops_requests_total{backend="a",endpoint="GET /session",outcome="timeout"} 1',
      'session_ops_actions_total{backend="a",action="abort-and-wake",outcome="done",trigger="automatic"} 1',
      'session_ops_actions_total{backend="a",action="recover",outcome="failed",trigger="scheduled"} 0',
      'session_ops_provider_cost_usd_total{backend="a",provider="anthropic"} 0.5',
      'session_ops_sample_round_duration_seconds_count{backend="a"} 1',
      'session_ops_session_verdict{backend="a",directory="/w",session="s1",title="title s1",verdict="healthy",action="leave-alone"} 1',
    ])
      assert.ok(body.split('\n').includes(series), series);
    // OpenMetrics after the removal: the same, with the counter names intact.
    assert.doesNotMatch((await m.render(true)).body, /backend="b"/);
    assert.match((await m.render(false)).body, /# TYPE session_ops_requests_total counter/);
  });

  it('default process metrics are included unless turned off', async () => {
    const m = new WatchMetrics({ source: { backends: () => [] } });
    assert.match((await m.render(false)).body, /process_cpu_user_seconds_total/);
  });

  it('request outcomes by error kind and status; OpenMetrics chosen by Accept', () => {
    const err = (code: BackendError['code'], status?: number) =>
      new BackendError({ code, operation: 'GET /session', baseUrl: 'http://x/', status });
    assert.equal(requestOutcome(err('timeout')), 'timeout');
    assert.equal(requestOutcome(err('too-large', 200)), 'too_large');
    assert.equal(requestOutcome(err('not-found', 404)), 'http_4xx');
    assert.equal(requestOutcome(err('server', 503)), 'http_5xx');
    assert.equal(requestOutcome(err('refused')), 'refused');
    assert.equal(requestOutcome(new Error('x')), 'error');
    assert.equal(wantsOpenMetrics('application/openmetrics-text; version=1.0.0,text/plain;q=0.5'), true);
    assert.equal(wantsOpenMetrics('text/plain'), false);
    assert.equal(wantsOpenMetrics(undefined), false);
  });
});

describe('core/metrics/watch-metrics: cost', () => {
  const cost = (usd: number) => ({
    usd,
    tokens: { input: 10, output: 5, reasoning: 1, cacheRead: 2, cacheWrite: 3 },
    messages: null,
  });
  const withCost = (id: string, usd: number | null, over: Partial<SessionRow> = {}) =>
    row(id, { ...over, assessment: { cost: usd === null ? null : cost(usd) } as SessionRow['assessment'] });

  it('per session: cost with its sub-agents and tokens by type; absent when not reported; capped like the verdicts', async () => {
    const state = [
      backend('a', [
        withCost('p', 0.5),
        withCost('c', 0.25, { parentId: 'p' }),
        withCost('none', null),
        withCost('h', 1, { verdict: 'hung' }),
      ]),
    ];
    const m = new WatchMetrics({ source: { backends: () => state }, processMetrics: false });
    const body = (await m.render(false)).body;
    assert.deepEqual(lines(body, 'session_ops_session_cost_usd').sort(), [
      'session_ops_session_cost_usd{backend="a",directory="/w",session="c"} 0.25',
      'session_ops_session_cost_usd{backend="a",directory="/w",session="h"} 1',
      'session_ops_session_cost_usd{backend="a",directory="/w",session="p"} 0.75',
    ]);
    const tokens = lines(body, 'session_ops_session_tokens').filter((l) => l.includes('session="p"'));
    assert.deepEqual(tokens, [
      'session_ops_session_tokens{backend="a",directory="/w",session="p",type="input"} 20',
      'session_ops_session_tokens{backend="a",directory="/w",session="p",type="output"} 10',
      'session_ops_session_tokens{backend="a",directory="/w",session="p",type="reasoning"} 2',
      'session_ops_session_tokens{backend="a",directory="/w",session="p",type="cache_read"} 4',
      'session_ops_session_tokens{backend="a",directory="/w",session="p",type="cache_write"} 6',
    ]);
    // Cap 1: the session that needs a person only.
    m.setMaxSessionSeries(1);
    const capped = (await m.render(false)).body;
    assert.deepEqual(lines(capped, 'session_ops_session_cost_usd'), [
      'session_ops_session_cost_usd{backend="a",directory="/w",session="h"} 1',
    ]);
    assert.equal(lines(capped, 'session_ops_session_tokens').length, 5);
  });

  it('the budget per session: a gauge read at scrape time, absent when off', async () => {
    let budget = 0;
    const m = new WatchMetrics({ source: { backends: () => [] }, budgetUsd: () => budget, processMetrics: false });
    assert.deepEqual(lines((await m.render(false)).body, 'session_ops_budget_session_usd'), []);
    budget = 2.5;
    assert.deepEqual(lines((await m.render(false)).body, 'session_ops_budget_session_usd'), [
      'session_ops_budget_session_usd 2.5',
    ]);
    assert.deepEqual(lines((await m.render(true)).body, 'session_ops_budget_session_usd'), [
      'session_ops_budget_session_usd 2.5',
    ]);
    budget = 0;
    assert.deepEqual(lines((await m.render(false)).body, 'session_ops_budget_session_usd'), [], 'turned off: absent');
    const without = new WatchMetrics({ source: { backends: () => [] }, processMetrics: false });
    assert.deepEqual(lines((await without.render(false)).body, 'session_ops_budget_session_usd'), []);
  });

  it('provider spend: a counter per backend and provider, named with _total in both formats', async () => {
    const m = new WatchMetrics({ source: { backends: () => [] }, processMetrics: false });
    m.countSpend('a', 'local', 0.25);
    m.countSpend('a', 'local', 0.5);
    m.countSpend('a', 'backup', 0);
    assert.deepEqual(lines((await m.render(false)).body, 'session_ops_provider_cost_usd_total'), [
      'session_ops_provider_cost_usd_total{backend="a",provider="local"} 0.75',
    ]);
    assert.deepEqual(lines((await m.render(true)).body, 'session_ops_provider_cost_usd_total'), [
      'session_ops_provider_cost_usd_total{backend="a",provider="local"} 0.75',
    ]);
  });
});
