// What the views, the status bar and the commands read of the fleet: the backends with their rows,
// a row by key, and what changed. The session monitor is one (the backends this window samples);
// src/core/daemon/fleet-union.ts is the window's whole fleet (those plus the attached daemons'
// backends, which this window never samples). Never imports 'vscode'.
import type { Clock } from '../clock';
import type { SessionRow } from './row';
import type { BackendState, MonitorChange, Transition } from './types';

export interface FleetSource {
  readonly clock: Clock;
  /** Whether sampling (and attached daemons' streams) run now. */
  readonly isActive: boolean;
  backends(): readonly BackendState[];
  backend(key: string): BackendState | undefined;
  /** All rows (the same array until a row changed; do not mutate). */
  rows(): SessionRow[];
  row(key: string): SessionRow | undefined;
  onDidChange(listener: (c: MonitorChange) => void): () => void;
  onTransition(listener: (t: Transition) => void): () => void;
}
