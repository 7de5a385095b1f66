// What Session Ops itself is doing to each session (abort in progress, woken and confirmed, a
// retry scheduled after a reset ...), so the Sessions view can show it on the row. Pure: the
// extension records into it and renders `describeOperation`; nothing here sends a request.
import { systemClock } from '../clock';
import type { EpochMs } from '../model';

export type OperatorAction =
  'abort' | 'wake' | 'abort-and-wake' | 'recover' | 'dispatch' | 'answer' | 'scheduled-retry';

export type OperationOutcome =
  | 'running'
  | 'confirmed'
  | 'not-confirmed'
  | 'idle'
  | 'not-idle'
  | 'refused'
  | 'failed'
  | 'scheduled'
  | 'escalated'
  | 'cancelled'
  | 'answered';

export interface Operation {
  action: OperatorAction;
  outcome: OperationOutcome;
  /** One line for the row, e.g. "woken on local/m1, confirmed". Plain text. */
  text: string;
  startedAt: EpochMs;
  endedAt: EpochMs | null;
  /** scheduled-retry: when it fires. */
  at?: EpochMs | null;
}

export class OperationBook {
  private readonly ops = new Map<string, Operation>();
  private readonly listeners = new Set<(key: string) => void>();

  constructor(
    private readonly now: () => EpochMs = systemClock.now,
    /** How long a finished operation stays on the row. */
    private readonly keepMs = 10 * 60_000,
  ) {}

  onDidChange(listener: (rowKey: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(rowKey: string, action: OperatorAction, text: string): void {
    this.set(rowKey, { action, outcome: 'running', text, startedAt: this.now(), endedAt: null });
  }

  /** Updates the running text (a phase: "aborting", "waiting for idle", "sending"). */
  progress(rowKey: string, text: string): void {
    const op = this.ops.get(rowKey);
    if (op && op.outcome === 'running') this.set(rowKey, { ...op, text });
  }

  finish(
    rowKey: string,
    outcome: Exclude<OperationOutcome, 'running'>,
    text: string,
    extra: Partial<Pick<Operation, 'at' | 'action'>> = {},
  ): void {
    const op = this.ops.get(rowKey);
    const now = this.now();
    this.set(rowKey, {
      action: extra.action ?? op?.action ?? 'wake',
      outcome,
      text,
      startedAt: op?.startedAt ?? now,
      endedAt: outcome === 'scheduled' ? null : now,
      ...extra,
    });
  }

  clear(rowKey: string): void {
    if (this.ops.delete(rowKey)) this.fire(rowKey);
  }

  get(rowKey: string): Operation | undefined {
    const op = this.ops.get(rowKey);
    if (op && op.endedAt !== null && this.now() - op.endedAt > this.keepMs) {
      this.ops.delete(rowKey);
      return undefined;
    }
    return op;
  }

  /** Whether an action is running on the session (the menus then offer nothing else). */
  busy(rowKey: string): boolean {
    return this.get(rowKey)?.outcome === 'running';
  }

  scheduled(rowKey: string): boolean {
    return this.get(rowKey)?.outcome === 'scheduled';
  }

  private set(rowKey: string, op: Operation): void {
    this.ops.set(rowKey, op);
    this.fire(rowKey);
  }

  private fire(rowKey: string): void {
    for (const l of this.listeners) l(rowKey);
  }
}

/** The row's suffix for an operation, e.g. "⟳ aborting…" or "woken on local/m1, confirmed". */
export function describeOperation(op: Operation | undefined): string | null {
  if (!op) return null;
  return op.outcome === 'running' ? `${op.text}…` : op.text;
}
