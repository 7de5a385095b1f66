// Builders for samples, messages and listings used by the decision tests.
import type {
  MessageFailure,
  MessageSnapshot,
  ProviderListing,
  ProviderRecord,
  SessionSample,
  SessionState,
} from '../../../../src/core/model';

export const T0 = Date.UTC(2026, 0, 5, 12, 0, 0);
export const SEC = 1000;
export const MIN = 60 * SEC;

export function msg(id: string | null, patch: Partial<MessageSnapshot> = {}): MessageSnapshot | null {
  if (id === null) return null;
  return {
    id,
    role: 'assistant',
    finish: null,
    text: '',
    failure: null,
    providerID: 'anthropic',
    modelID: 'claude',
    createdAt: null,
    completedAt: null,
    partCount: 1,
    runningTool: null,
    ...patch,
  };
}

export function failure(patch: Partial<MessageFailure> = {}): MessageFailure {
  return {
    text: 'usage limit reached',
    reason: 'account_usage_limit',
    provider: 'anthropic',
    statusCode: null,
    category: 'usage-limit',
    resetAt: null,
    ...patch,
  };
}

export interface SampleInit {
  id?: string;
  at?: number;
  state?: SessionState;
  progress?: { stepCount: number; lastStepAt: number } | null;
  newest?: MessageSnapshot | null;
  retry?: SessionSample['session']['retry'];
  activity?: number | null;
}

export function sample(init: SampleInit = {}): SessionSample {
  return {
    at: init.at ?? T0,
    session: {
      id: init.id ?? 'ses_1',
      title: null,
      state: init.state ?? 'generating',
      retry: init.retry ?? null,
      progress: init.progress === undefined ? null : init.progress,
      updatedAt: null,
    },
    newest: init.newest === undefined ? msg('msg_1') : init.newest,
    ...(init.activity !== undefined ? { activity: init.activity } : {}),
  };
}

/** Two samples 45 s apart; the second is built from the first plus `b`. */
export function pair(a: SampleInit, b: SampleInit): [SessionSample, SessionSample] {
  const first = sample({ at: T0, ...a });
  const second = sample({ at: T0 + 45 * SEC, ...a, ...b });
  return [first, second];
}

export function provider(id: string, patch: Partial<ProviderRecord> = {}): ProviderRecord {
  return { id, name: null, connected: true, quota: null, models: ['m1'], defaultModel: null, ...patch };
}

export function listing(providers: ProviderRecord[]): ProviderListing {
  return { providers, connected: providers.filter((p) => p.connected).map((p) => p.id) };
}
