// What the session monitor keeps per backend (a runtime): its state for the views, its client, the
// sample history per directory, its quota marks, schedule, event streams and nudges. A runtime
// replaced by setBackends/resetClient is closed: nothing awaited for it may touch it afterwards.
import { BudgetLevels } from '../cost/budget';
import { MessageLedger } from '../cost/message-ledger';
import { SpendLedger } from '../cost/spend-ledger';
import { QuotaMarkBook, type ActivityCounter, type BackendClient } from '../backend';
import type { BackendConfig } from '../config/backends';
import { joinKey } from '../keys';
import type { SampleHistory } from '../health';
import type { Clock, TimerHandle } from '../clock';
import type { EpochMs, TodoProgress } from '../model';
import type { Badge } from './row';
import type { BackendState } from './types';

export interface BackendRuntime {
  /** The monitor's clock: its schedule and nudges are timers on it. */
  clock: Clock;
  state: BackendState;
  client: BackendClient | null;
  /** Per directory: the recent samples of its sessions. */
  history: Map<string, SampleHistory>;
  /** Quota marks of a backend without quota objects; handed to every client of this backend. */
  marks: QuotaMarkBook;
  /** Set when the runtime was replaced or the monitor disposed: late work must not touch it. */
  closed: boolean;
  badges: Map<string, Badge>;
  /** Budget levels told per session (directory + id). */
  budgets: BudgetLevels;
  /** Spend per provider seen while watching, fed by each round. */
  spend: SpendLedger;
  /** Per directory: the sums of its sessions' messages (cost where the backend reports it per message). */
  ledgers: Map<string, MessageLedger>;
  events: AbortController | null;
  /** Per directory: a pending nudge and what it re-samples (null: the whole directory). */
  nudges: Map<string, { timer: TimerHandle; sessions: Set<string> | null }>;
  /** Per directory: the sample running or queued last (`partial`: for named sessions). */
  inFlight: Map<string, { run: Promise<void>; partial: boolean }>;
  /** Directories being sampled right now (the overlap guard). */
  sampling: Set<string>;
  /** The backend's own schedule: its next round, and the round running. */
  timer: TimerHandle | undefined;
  round: Promise<void> | undefined;
  providersAt: EpochMs;
  providerRefresh: boolean;
  /** Output events seen on the event stream per directory: a live signal between two samples. */
  activity: Map<string, ActivityCounter>;
  /** Todo progress per session (directory + id), read when first seen and on todo.updated events. */
  todos: Map<string, TodoProgress | null>;
}

export function newRuntime(
  config: BackendConfig,
  marks: QuotaMarkBook | undefined,
  clock: Clock,
  markMaxAgeMs: number | undefined,
): BackendRuntime {
  return {
    clock,
    state: {
      config,
      status: 'loading',
      error: null,
      dialect: null,
      directories: config.directories.map((directory) => ({
        directory,
        rows: [],
        error: null,
        partialErrors: [],
        truncated: null,
      })),
      providers: null,
      providersError: null,
      allFreeAt: null,
      eventStream: null,
      lastRoundAt: null,
    },
    client: null,
    history: new Map(),
    marks: marks ?? new QuotaMarkBook(clock.now, { maxAgeMs: markMaxAgeMs }),
    closed: false,
    badges: new Map(),
    budgets: new BudgetLevels(),
    spend: new SpendLedger(),
    ledgers: new Map(),
    events: null,
    nudges: new Map(),
    inFlight: new Map(),
    sampling: new Set(),
    timer: undefined,
    round: undefined,
    providersAt: 0,
    providerRefresh: true,
    activity: new Map(),
    todos: new Map(),
  };
}

/** Closes a runtime: its streams, nudges, schedule and client end; late work sees `closed`. */
export function closeRuntime(rt: BackendRuntime): void {
  rt.closed = true;
  rt.events?.abort();
  rt.events = null;
  for (const n of rt.nudges.values()) rt.clock.clearTimeout(n.timer);
  rt.nudges.clear();
  rt.clock.clearTimeout(rt.timer);
  rt.timer = undefined;
  void rt.client?.close().catch(() => undefined);
  rt.client = null;
}

/** True when a configuration change keeps the runtime (same URL, name, directories and surface). */
export function sameConfig(a: BackendConfig, b: BackendConfig): boolean {
  return (
    a.baseUrl === b.baseUrl &&
    a.name === b.name &&
    joinKey(...a.directories) === joinKey(...b.directories) &&
    (a.surface ?? 'auto') === (b.surface ?? 'auto')
  );
}

/** Thrown inside the monitor when a runtime was replaced during an await. */
export class StaleRuntime extends Error {
  constructor() {
    super('backend runtime replaced');
  }
}

/** The message ledger of a directory of the runtime (made when first asked). */
export function ledgerFor(rt: BackendRuntime, directory: string): MessageLedger {
  let ledger = rt.ledgers.get(directory);
  if (!ledger) rt.ledgers.set(directory, (ledger = new MessageLedger()));
  return ledger;
}
