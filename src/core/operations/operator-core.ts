// What every room of the operator shares: the host's options, the settings now, the clock, the
// books (operation book, completion reports, automatic memory, wake streaks, dispatch records, who
// assigned each worker) and the action lock. Nothing here acts; the rooms (acts/, act-runner.ts,
// retry-scheduler.ts, automatic-runner.ts, operator-store.ts) do, and operator.ts is their facade.
import type { WorktreeInventory } from '../actions';
import type { AssignmentBook } from '../actions/assignment';
import type { BackendClient } from '../backend/client';
import { systemClock, type Clock } from '../clock';
import type { EpochMs } from '../model';
import type { SessionRow } from '../monitor/row';
import type { MonitorChange } from '../monitor/sessionMonitor';
import type { OperatorSettings } from '../settings/operator-settings';
import { assignmentBook } from './assignments';
import { AutomaticPolicy } from './automatic';
import { OperationBook } from './book';
import { DispatchRecords, WakeStreaks } from './charge';
import type { SessionLocker } from '../state/session-locker';
import { ReportBook } from './reports';
import { InProcessSessionLock, type SessionLock } from './session-lock';
import type { JsonStateFile } from './state-store';
import type { OperatorState } from './state-store-operator';

/** What the operator reads of the session monitor. */
export interface OperatorMonitor {
  rows(): readonly SessionRow[];
  row(key: string): SessionRow | undefined;
  client(backendKey: string): Promise<BackendClient>;
  nudge(backendKey: string, directory: string): void;
  /** The smallest sample spacing the monitor accepts (only tests lower it below the spec's 30 s). */
  minSpacingMs(): number;
  onDidChange(listener: (change: MonitorChange) => void): () => void;
}

export type OperatorLog = (level: 'info' | 'warn' | 'error', message: string) => void;

/** How long automatic.onlyTicketed trusts a session's ticket as read before reading its record again. */
export const TICKET_REREAD_MS = 10 * 60_000;

/** How often automatic mode re-reads the state file for a person's reset of a stuck session (another process's). */
export const WAKES_REREAD_MS = 30_000;

/** Bounds of an action's waits: reading idle after an abort, and confirming a sent prompt started. */
export const ACTION_WAITS = { abortMs: 60_000, confirmMs: 60_000 };

export interface OperatorOptions {
  monitor: OperatorMonitor;
  /** The operator settings (src/core/settings), as the host read them. */
  settings: OperatorSettings;
  log: OperatorLog;
  book?: OperationBook;
  lock?: SessionLock;
  reports?: ReportBook;
  /** The one clock: the time read, the scheduled retries and the actions' own waits (default the system's). */
  clock?: Clock;
  /** Whom a session's prompts speak for and its ticket (the editor keeps them per workspace). */
  authority?: (row: SessionRow) => { orchestrator: string | null; ticket: string | null };
  /** Whether automatic actions may run (the editor: the workspace is trusted). Default yes. */
  trusted?: () => boolean;
  /** Where the worktree inventory of a wake prompt comes from; default the backend, then git. */
  inventory?: (client: BackendClient) => WorktreeInventory[];
  waits?: { abortMs: number; confirmMs: number };
  /**
   * Where scheduled retries, automatic mode's memory and seen reports persist (the state
   * directory's operator-state.json); absent: this process only.
   */
  state?: JsonStateFile<OperatorState> | null;
  /** The machine-wide per-session lock held around each POST; default that of the state directory (SESSION_OPS_STATE_DIR ...). */
  postLocker?: SessionLocker;
  /**
   * Who assigned each worker (authority rules 1 and 2); default the record in `state` (this
   * process's memory without one).
   */
  assignments?: AssignmentBook;
  /**
   * Set by a host that must name its orchestrator (the daemon: where to set it, e.g. "orchestrator:
   * in the watch config"): without one its automatic actions are refused, and it acts only on
   * workers whose durable record names that orchestrator (authority rule 2).
   */
  requireOrchestrator?: string;
  /**
   * Whether a recovery that ends in wait-for-reset arms a scheduled retry (default yes). A one-shot
   * host (the CLI, whose caller retries after exit 4) says no: its process would not live to fire it.
   */
  armRetries?: boolean;
}

export class OperatorCore {
  readonly timers: Clock;
  readonly book: OperationBook;
  readonly lock: SessionLock;
  readonly reports: ReportBook;
  readonly policy: AutomaticPolicy;
  /** Per session, automatic wakes since its last completion report or a person's action (persisted). */
  readonly wakes: WakeStreaks;
  /** The dispatches made, with the ticket each named (persisted; automatic.onlyTicketed reads them). */
  readonly dispatches: DispatchRecords;
  /** Who assigned each worker: the durable record every action reads (authority rules 1 and 2). */
  readonly assignments: AssignmentBook;
  settings: OperatorSettings;

  constructor(readonly o: OperatorOptions) {
    this.timers = o.clock ?? systemClock;
    const now = () => this.timers.now();
    this.book = o.book ?? new OperationBook(now);
    this.lock = o.lock ?? new InProcessSessionLock();
    this.reports = o.reports ?? new ReportBook();
    this.policy = new AutomaticPolicy(now);
    this.wakes = new WakeStreaks(now);
    this.dispatches = new DispatchRecords(now);
    this.assignments = o.assignments ?? assignmentBook(o.state);
    this.settings = o.settings;
  }

  get monitor(): OperatorMonitor {
    return this.o.monitor;
  }

  now(): EpochMs {
    return this.timers.now();
  }

  log(level: 'info' | 'warn' | 'error', message: string): void {
    this.o.log(level, message);
  }

  get waits(): { abortMs: number; confirmMs: number } {
    return this.o.waits ?? ACTION_WAITS;
  }

  client(backendKey: string): Promise<BackendClient> {
    return this.o.monitor.client(backendKey);
  }
}

/** The session's title, else its id. */
export function label(row: Pick<SessionRow, 'title' | 'id'>): string {
  return row.title ?? row.id;
}
