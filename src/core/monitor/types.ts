// The session monitor's types: its options (what the host passes in), the state it keeps per
// backend and directory (what views read), and what it tells listeners (changes, transitions,
// counters).
import type { Spend } from '../cost/spend-ledger';
import type { QuotaMarkBook, EventStreamState, BackendClient } from '../backend';
import type { Clock } from '../clock';
import type { BackendConfig } from '../config/backends';
import type { Dialect, EpochMs, ProviderListing } from '../model';
import type { MonitorSettings } from '../settings/operator-settings';
import type { SessionRow } from './row';
import type { ProviderSpend } from '../cost/spend-ledger';

export interface MonitorCredentials {
  username: string;
  password: string;
}

/**
 * The operator settings (src/core/settings/operator-settings.ts) in milliseconds; those marked
 * optional fall back to the model's defaults. `providers` absent or null: any connected provider.
 */
export type MonitorSettingOptions = Pick<MonitorSettings, 'spacingMs' | 'resetWithinReachMs' | 'useEventStream'> &
  Partial<Pick<MonitorSettings, 'retryWaitMs' | 'markMaxAgeMs' | 'toolCeilingMs' | 'budgetUsd'>> & {
    providers?: MonitorSettings['providers'] | null;
  };

export interface MonitorOptions extends MonitorSettingOptions {
  /** Builds a client; pass `marks` on as BackendClientOptions.marks so no quota mark is forgotten. */
  createClient: (
    config: BackendConfig,
    credentials: MonitorCredentials | undefined,
    marks: QuotaMarkBook,
  ) => BackendClient;
  getCredentials: (config: BackendConfig) => Promise<MonitorCredentials | undefined>;
  /** Shortest spacing a verdict accepts (the spec's 30 s; only tests lower it). */
  minSpacingMs?: number;
  /** How long a provider listing is reused (stock opencode sends ~6.4 MB). Default 5 min. */
  providerMaxAgeMs?: number;
  /** Coalescing delay for event nudges. Default 150 ms. */
  nudgeDelayMs?: number;
  /** The one clock (src/core/clock.ts): rounds, nudges and every time read (default the system's). */
  clock?: Clock;
  /** Waits for a later turn of the event loop between two slices of a large directory's rows (default: setImmediate). */
  nextTurn?: () => Promise<void>;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
  /** The spend a round showed per provider (its sessions' costs as the views show them, message sums included). */
  onSpend?: (backendKey: string, spent: readonly Spend[]) => void;
}

export interface DirectoryState {
  directory: string;
  rows: SessionRow[];
  error: string | null;
  /** Sessions whose newest message could not be read this round. */
  partialErrors: Array<{ sessionId: string; message: string }>;
  /** The last whole round listed more sessions than are sampled per directory per round (src/core/backend/limits.ts). */
  truncated: { listed: number; kept: number } | null;
}

/** A backend shown from an attached daemon's API (src/core/daemon/attached-daemon.ts): never sampled by this window. */
export interface AttachedInfo {
  /** The daemon's key (its normalized url) and name (sessionOps.daemons). */
  daemonKey: string;
  daemonName: string;
  /** The daemon's key of this backend (`?backend=` and act bodies); null for the daemon's own error or loading row. */
  remoteKey: string | null;
  /** The token's scope (`/api/whoami`): `read` shows the rows without act menus; null: not known yet. */
  scope: 'read' | 'act' | null;
}

export interface BackendState {
  config: BackendConfig;
  /** Set for a backend of an attached daemon: shown from its API, acted on through it. */
  attached?: AttachedInfo;
  status: 'loading' | 'ok' | 'error';
  error: string | null;
  dialect: Dialect | null;
  directories: DirectoryState[];
  providers: ProviderListing | null;
  providersError: string | null;
  allFreeAt: EpochMs | null;
  eventStream: EventStreamState | null;
  lastRoundAt: EpochMs | null;
  /** Spend per provider seen while watching (today and since watching began); absent: none yet. */
  spend?: ProviderSpend[];
}

/**
 * `waiting`: a session turned to wait for a person (a new permission or question): notify once.
 * `budget-80`, `budget-100`: a session's cost reached 80 % / 100 % of budget.sessionUsd (once each).
 */
export type TransitionKind = 'hung' | 'waiting' | 'quota-wall' | 'report' | 'budget-80' | 'budget-100';

export interface Transition {
  kind: TransitionKind;
  row: SessionRow;
}

export interface MonitorChange {
  /** Backends whose structure (directories, session set, status) changed: re-render the subtree. */
  structural: string[];
  /** Rows whose content changed. */
  rows: SessionRow[];
  /** Providers changed. */
  providers: boolean;
}

/** Counters for the load run (bench/views --load) and the leak tests. */
export interface MonitorStats {
  /** Backend rounds started (scheduled or refresh()). */
  rounds: number;
  /** Directory samples started, whole (`samples`) and for named sessions (`partialSamples`). */
  samples: number;
  partialSamples: number;
  /** A directory sample started while another of the same directory ran (must stay 0). */
  overlaps: number;
  /** Timers pending now: backend schedules and nudge delays. */
  timers: number;
  /** Event streams open now (one per directory of a backend with a stream). */
  streams: number;
  /** Clients created and not closed. */
  clients: number;
}
