// Generated fleets for the decision-table properties (issue 28 item 11): providers (ids listed
// twice, quota marks with a past, near, far or unknown reset, connected or not, the models each
// lists), sessions (state, progress, how they move between the two samples, the newest message:
// none, unfinished work, a report, a malformed report, a queued prompt, a quota wall with each of
// the spec's reasons, a 402 balance failure named only by its text, another failure), sub-agents
// (parentID), the newest message's age, whether the task names a ticket, how the worker answers a
// wake, and what a person clicks. Plain data (JSON), so a failing case is kept as it is.
import fc from 'fast-check';

/** The spec's usage-limit reasons (Resources, Message: metadata.reason). */
export const WALL_REASONS = ['account_rate_limit', 'free_tier_limit', 'account_usage_limit', 'rate_limit'] as const;
export const PROVIDER_POOL = ['anthropic', 'openai', 'groq', 'local'] as const;
export const MODEL_POOL = ['m1', 'm2'] as const;

/** A reset relative to the run's start: gone 30 min ago, in 40 min (within reach), in three days, unknown. */
export type ResetKind = 'past' | 'soon' | 'far' | 'none';

export interface ProviderRecordSpec {
  id: string;
  quota: { markedAgoMin: number; reset: ResetKind } | null;
  /** Model ids (without the provider) the record lists; empty: it names none. */
  models: string[];
}

export interface ModelSpec {
  provider: string;
  model: string;
}

export type NewestSpec =
  | { kind: 'none' }
  | { kind: 'text' }
  | { kind: 'report'; status: 'done' | 'blocked' | 'handoff' }
  | { kind: 'malformed' }
  | { kind: 'queued'; token: number }
  | { kind: 'wall'; reason: (typeof WALL_REASONS)[number]; provider: string; reset: ResetKind }
  | { kind: 'balance'; provider: string }
  | { kind: 'failure'; provider: string };

export type Motion = 'frozen' | 'steps' | 'message' | 'flip';
export type HandAction = 'none' | 'wake' | 'abort-and-wake' | 'recover';

export interface SessionSpec {
  state: 'generating' | 'idle';
  progress: boolean;
  /** How the session moves between the first cycle's two samples (later cycles: only what a prompt does). */
  motion: Motion;
  newest: NewestSpec;
  /** The model of the assistant message before the newest (and of the newest when it is the worker's). */
  lastModel: ModelSpec | null;
  /** A sub-agent: its parent is the fleet's first session (or, for the first, a session not listed). */
  parent: boolean;
  /** Age of the newest message at the run's start, in hours. */
  ageHours: number;
  /** The first user message (the assignment) carries a ticket reference. */
  ticketed: boolean;
  /** How the worker answers a prompt: unfinished text (idle again, no report), or a done report. */
  answer: 'text' | 'report';
  /** What a person clicks in the last cycle (when the row qualifies). */
  hand: HandAction;
}

export interface Fleet {
  providers: ProviderRecordSpec[];
  connected: string[];
  sessions: SessionSpec[];
  switches: { abortHung: boolean; wakeIdle: boolean; recoverQuotaWalls: boolean };
  /** automatic.onlyTicketed (issue 28 item 1; a setting of branch `charge`). */
  onlyTicketed: boolean;
  /** Sampling cycles (two samples each, 25 min apart). */
  cycles: number;
}

const resetKind = fc.constantFrom<ResetKind>('past', 'soon', 'far', 'none');
const providerId = fc.constantFrom(...PROVIDER_POOL);

const providerRecord: fc.Arbitrary<ProviderRecordSpec> = fc.record({
  id: providerId,
  quota: fc.option(fc.record({ markedAgoMin: fc.integer({ min: 1, max: 600 }), reset: resetKind }), { freq: 2 }),
  models: fc.oneof({ arbitrary: fc.subarray([...MODEL_POOL], { minLength: 1 }), weight: 4 }, fc.constant<string[]>([])),
});

const modelSpec: fc.Arbitrary<ModelSpec> = fc.record({ provider: providerId, model: fc.constantFrom(...MODEL_POOL) });

const newest: fc.Arbitrary<NewestSpec> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  { arbitrary: fc.constant({ kind: 'text' as const }), weight: 3 },
  fc.record({ kind: fc.constant('report' as const), status: fc.constantFrom('done', 'blocked', 'handoff') }),
  fc.constant({ kind: 'malformed' as const }),
  {
    arbitrary: fc.record({ kind: fc.constant('queued' as const), token: fc.integer({ min: 1, max: 99_999 }) }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('wall' as const),
      reason: fc.constantFrom(...WALL_REASONS),
      provider: providerId,
      reset: resetKind,
    }),
    weight: 3,
  },
  fc.record({ kind: fc.constant('balance' as const), provider: providerId }),
  fc.record({ kind: fc.constant('failure' as const), provider: providerId }),
);

const ageHours = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 23 }), weight: 3 },
  fc.integer({ min: 25, max: 24 * 120 }),
);

const session: fc.Arbitrary<SessionSpec> = fc.record({
  state: fc.constantFrom('generating', 'idle'),
  progress: fc.boolean(),
  motion: fc.oneof(
    { arbitrary: fc.constant<Motion>('frozen'), weight: 4 },
    fc.constantFrom<Motion>('steps', 'message', 'flip'),
  ),
  newest,
  lastModel: fc.option(modelSpec, { freq: 5 }),
  parent: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, fc.constant(true)),
  ageHours,
  ticketed: fc.boolean(),
  answer: fc.constantFrom('text', 'report'),
  hand: fc.oneof(
    { arbitrary: fc.constant<HandAction>('none'), weight: 3 },
    fc.constantFrom<HandAction>('wake', 'abort-and-wake', 'recover'),
  ),
});

export const fleetArbitrary: fc.Arbitrary<Fleet> = fc
  .record({
    providers: fc.array(providerRecord, { minLength: 1, maxLength: 5 }),
    connectedPick: fc.oneof(
      { arbitrary: fc.subarray([...PROVIDER_POOL], { minLength: 1 }), weight: 5 },
      fc.subarray([...PROVIDER_POOL]),
    ),
    sessions: fc.array(session, { minLength: 1, maxLength: 4 }),
    switches: fc.record({ abortHung: fc.boolean(), wakeIdle: fc.boolean(), recoverQuotaWalls: fc.boolean() }),
    // automatic.onlyTicketed leaves most sessions alone: on in about one fleet in six.
    onlyTicketed: fc.oneof({ arbitrary: fc.constant(false), weight: 5 }, fc.constant(true)),
    cycles: fc.integer({ min: 1, max: 5 }),
  })
  .map(({ connectedPick, ...f }) => ({ ...f, connected: connectedPick }));
