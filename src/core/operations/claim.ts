// Authority rule 2 for the operator's own actions: an operator that was restarted (a daemon start,
// a window reload, its state restored; every operator starts so) does not instruct a worker until
// it has verified, from the durable record (src/core/actions/assignment.ts: the dispatch record,
// else the worker's first user message), that the worker's recorded orchestrator is the one it
// speaks for. A verification is used for one automatic action: the next one verifies again, so a
// re-tasking recorded meanwhile by another process counts. Verifying reads (the state file, once a
// session's first user message) happen outside the monitor's synchronous round: `check` starts
// one and answers 'pending'; `onSettled` asks the policy again once it is in.
import type { EpochMs } from '../model';

/** 'mine': verified; 'pending': being verified; otherwise why the session is not in its charge. */
export type ClaimAnswer = 'mine' | 'pending' | { notMine: string };

/** How long a "not in its charge" answer stands before the record is read again. */
export const NOT_MINE_RECHECK_MS = 10 * 60_000;

export class ClaimCheck {
  private readonly answers = new Map<string, { reason: string | null; at: EpochMs }>();
  private readonly pending = new Set<string>();
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    /** Why the session is not in this operator's charge, or null when verified. Never throws. */
    private readonly verify: (key: string) => Promise<string | null>,
    private readonly now: () => EpochMs,
    private readonly onSettled: () => void,
  ) {}

  check(key: string): ClaimAnswer {
    if (this.pending.has(key)) return 'pending';
    const known = this.answers.get(key);
    if (known && (known.reason === null || this.now() - known.at < NOT_MINE_RECHECK_MS))
      return known.reason === null ? 'mine' : { notMine: known.reason };
    this.pending.add(key);
    const done: Promise<void> = this.verify(key)
      .catch((err: unknown) => `not verified: ${err instanceof Error ? err.message : String(err)}`)
      .then((reason) => {
        this.pending.delete(key);
        this.inflight.delete(done);
        this.answers.set(key, { reason, at: this.now() });
        this.onSettled();
      });
    this.inflight.add(done);
    return 'pending';
  }

  /** The known reason the session is not in this operator's charge (its last verification), without starting one; null: none known. */
  notMine(key: string): string | null {
    return this.answers.get(key)?.reason ?? null;
  }

  /** Settles once no verification is under way (and the policy was asked again after each). */
  async settled(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  /** A verification is spent by the action it allowed. */
  consume(key: string): void {
    this.answers.delete(key);
  }

  verifying(key: string): boolean {
    return this.pending.has(key);
  }
}
