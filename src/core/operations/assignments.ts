// The durable record of who assigned each worker (src/core/actions/assignment.ts), kept in the
// operator state file that every Session Ops process of the machine shares (the editor windows,
// the CLI, the daemon): read from the file at every look-up, so a dispatch recorded by another
// process counts at once; written by merging one entry into the file. Without a state file, this
// process's memory.
import { assignmentKey, type AssignmentBook, type AssignmentRecord } from '../actions/assignment';
import type { JsonStateFile } from './state-store';
import { emptyOperatorState, newerAssignment, type OperatorState } from './state-store-operator';

export class MemoryAssignments implements AssignmentBook {
  protected readonly mine = new Map<string, AssignmentRecord>();

  get(directory: string, sessionId: string): Promise<AssignmentRecord | null> {
    return Promise.resolve(this.mine.get(assignmentKey(directory, sessionId)) ?? null);
  }

  record(entry: AssignmentRecord): Promise<void> {
    const key = assignmentKey(entry.directory, entry.sessionId);
    this.mine.set(key, newerAssignment(this.mine.get(key), entry));
    return Promise.resolve();
  }
}

export class StateFileAssignments extends MemoryAssignments {
  constructor(private readonly file: JsonStateFile<OperatorState>) {
    super();
  }

  override async get(directory: string, sessionId: string): Promise<AssignmentRecord | null> {
    const key = assignmentKey(directory, sessionId);
    const { state } = await this.file.load();
    const disk = state.assignments[key];
    const mine = this.mine.get(key);
    if (!disk) return mine ?? null;
    return mine ? newerAssignment(disk, mine) : disk;
  }

  /** Merged into the file; throws the reason when it could not be written (kept in memory then). */
  override async record(entry: AssignmentRecord): Promise<void> {
    await super.record(entry);
    const key = assignmentKey(entry.directory, entry.sessionId);
    const r = await this.file.save({ ...emptyOperatorState(), assignments: { [key]: entry } });
    if (r.warning) throw new Error(r.warning);
  }
}

/** The book over a state file, or this process's memory when there is none. */
export function assignmentBook(file: JsonStateFile<OperatorState> | null | undefined): AssignmentBook {
  return file ? new StateFileAssignments(file) : new MemoryAssignments();
}
