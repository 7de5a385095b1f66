// The shapes of a worker's recorded assignment (authority rules 1 and 2): where it comes from, the
// durable record's interface (the operator state file, or this process's memory), and who assigned
// the worker as read. Types only, so the action context and the authority rules can name them
// without importing the reader (assignment.ts).
import type { EpochMs } from '../model';

/** Where a recorded assignment comes from. */
export type AssignmentSource = 'dispatch' | 'fact-baseline' | 'first-message';

export interface AssignmentRecord {
  directory: string;
  sessionId: string;
  /** The orchestrator session the assignment names (null: it names none). */
  orchestrator: string | null;
  /** The ticket it names, when it names one. */
  ticket: string | null;
  source: AssignmentSource;
  /** When it was recorded (a newer record of the same rank wins; a dispatch outranks a first message). */
  at: EpochMs;
}

/** The durable record of assignments (the operator state file, or this process's memory). */
export interface AssignmentBook {
  /** The session's record, read from the durable record now (another process may have written it). */
  get(directory: string, sessionId: string): Promise<AssignmentRecord | null>;
  /** Records an assignment (merged with what other processes wrote). */
  record(entry: AssignmentRecord): Promise<void>;
}

/** Who assigned the worker, and where that was read. */
export interface Assigner {
  orchestrator: string | null;
  ticket: string | null;
  /** 'unread': neither a record nor the first user message could be read (`detail` says why). */
  source: AssignmentSource | 'unread';
  detail: string;
}
