// The operator's state in the state file (operator-state.json): scheduled retries, automatic
// mode's memory, wake streaks, dispatch records and seen reports are read once at start (merged
// into this process's books) and written after every change, one write after another.
import type { OperatorCore } from './operator-core';
import type { RetryScheduler } from './retry-scheduler';
import type { OperatorState } from './state-store-operator';

export class OperatorStore {
  private saving: Promise<void> = Promise.resolve();
  private read = false;

  constructor(
    private readonly core: OperatorCore,
    private readonly retries: () => RetryScheduler,
  ) {}

  /** Whether the persisted state was read (at once without a state file). */
  get restored(): boolean {
    return this.read;
  }

  get hasFile(): boolean {
    return !!this.core.o.state;
  }

  /** Reads the persisted state: automatic memory and seen reports added, scheduled retries scheduled again. */
  async restore(): Promise<void> {
    const file = this.core.o.state;
    if (file) {
      const { state, warning } = await file.load();
      if (warning) this.core.log('warn', `operator state: ${warning}`);
      this.core.policy.remember(state);
      this.core.wakes.remember(state.wakes);
      this.core.dispatches.remember(state.dispatched);
      this.core.reports.rememberSeen(state.seen);
      this.retries().restore(state.retries);
    }
    this.read = true;
  }

  /** Merges this operator's plans and memory into the state file (writes one after another). */
  persist(): void {
    const file = this.core.o.state;
    if (!file) return;
    const snapshot: OperatorState = {
      version: 1,
      retries: this.retries().entries(),
      ...this.core.policy.memory(),
      seen: this.core.reports.seenEntries(),
      wakes: this.core.wakes.memory(),
      dispatched: this.core.dispatches.memory(),
      assignments: {},
    };
    this.saving = this.saving.then(async () => {
      const r = await file.save(snapshot);
      if (r.warning) this.core.log('warn', `operator state: ${r.warning}`);
    });
  }

  /** Re-reads the wake streaks another process wrote (a person's reset); whether any changed. */
  async rereadWakes(): Promise<boolean> {
    const file = this.core.o.state;
    if (!file) return false;
    const { state } = await file.load();
    return this.core.wakes.remember(state.wakes);
  }

  /** Settles once every change so far is in the state file. */
  flush(): Promise<void> {
    return this.saving;
  }
}
