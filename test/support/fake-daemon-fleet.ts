// A daemon's fleet as `GET /api/fleet` and `GET /api/providers` answer it (docs/daemon-api.md), for
// the attached-daemon unit tests' fake daemon.
export const BACKEND = 'http://127.0.0.1:4096/';

export function session(id: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    verdict: 'healthy',
    headline: 'healthy',
    unreadable: null,
    action: 'leave-alone',
    quotaWall: null,
    report: null,
    settled: true,
    basis: 'steps grew',
    actionBasis: 'healthy',
    title: `title ${id}`,
    state: 'generating',
    samples: 2,
    abortFirst: false,
    recoverOn: null,
    waitUntil: null,
    escalation: null,
    waiting: null,
    parentId: null,
    engine: null,
    cost: null,
    costPending: false,
    overBudget: false,
    automaticSkip: null,
    waitingDetail: null,
    retry: null,
    stepCount: null,
    lastStepAt: null,
    newestId: null,
    newestRole: null,
    ...over,
  };
}

export const HUNG = session('ses_hung', {
  verdict: 'hung',
  headline: 'hung',
  action: 'abort-and-wake',
  basis: 'frozen across two samples',
  stepCount: 42,
  lastStepAt: 900,
  newestId: 'msg_009',
  newestRole: 'assistant',
});
export const WAITING = session('ses_wait', {
  verdict: 'waiting',
  headline: 'waiting',
  action: 'answer',
  waiting: { kind: 'permission', title: 'permission: bash ls', requestID: 'per_1' },
  waitingDetail: { kind: 'permission', tool: 'bash', patterns: ['ls'], always: [] },
});

export function fleet(sessions: unknown[]): unknown {
  return {
    backends: [
      {
        key: BACKEND,
        name: 'build-box',
        baseUrl: BACKEND.slice(0, -1),
        dialect: 'opencode',
        up: true,
        error: null,
        lastRoundAt: 1_000,
        directories: [
          {
            directory: '/srv/work',
            baseUrl: BACKEND.slice(0, -1),
            dialect: 'opencode',
            sampledAt: [1_000],
            providers: [{ id: 'local', connected: true, quota: null, name: 'Local', category: null }],
            allFreeAt: null,
            errors: [],
            warnings: [],
            cost: null,
            budgetUsd: null,
            sessions,
          },
        ],
      },
    ],
  };
}

export const PROVIDERS = {
  backends: [
    {
      key: BACKEND,
      name: 'build-box',
      error: null,
      providers: [
        {
          id: 'local',
          connected: true,
          quota: null,
          name: 'Local',
          category: null,
          models: ['m1', 'm2'],
          defaultModel: 'm1',
          variants: { m1: ['high'] },
        },
        {
          id: 'cloud',
          connected: true,
          quota: { markedAt: 500, resetAt: 9_000 },
          name: 'Cloud',
          category: 'usage-limit',
          models: ['c1'],
          defaultModel: null,
          variants: {},
        },
      ],
      allFreeAt: 9_000,
    },
  ],
};
