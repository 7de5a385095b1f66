// The wake prompt for an idle session with an unfinished task, or a hung one after its abort:
// why it is woken, the one step to resume with, the uncommitted files (rule 2), the evidence
// rule, the anti-re-hang clause (rule 3) and the restated completion-report protocol.
import type { EpochMs } from '../model';
import {
  ANTI_RE_HANG_CLAUSE,
  checkFiles,
  completionReportBlock,
  EVIDENCE_RULE,
  uncommittedFilesSection,
  type ReportProtocol,
} from './clauses';
import { inline, isoTime } from './text';

export type WakeReason = 'idle' | 'hung' | 'failed';

export interface WakeInput {
  reason: WakeReason;
  now: EpochMs;
  /** The task, e.g. the ticket title. */
  task: string;
  /** One concrete step to resume with. */
  resume: string;
  /** Null when the inventory was not available (the prompt then says so). */
  uncommittedFiles: string[] | null;
  report: ReportProtocol;
  /** For reason "failed": the failure text of the last turn. */
  failureText?: string | null;
}

const WHY: Record<WakeReason, string> = {
  idle: 'your session went idle while the task is unfinished',
  hung: 'your generation stream stopped (the session was frozen and has been aborted)',
  failed: 'your last turn ended on an error',
};

export function composeWakePrompt(input: WakeInput): string {
  const files = checkFiles(input.uncommittedFiles);
  const why =
    input.reason === 'failed' && input.failureText ? `${WHY.failed}: ${inline(input.failureText)}` : WHY[input.reason];
  return [
    `You were woken at ${isoTime(input.now)}: ${why}.`,
    `Task: ${inline(input.task)}`,
    `Resume with: ${inline(input.resume)}`,
    uncommittedFilesSection(files),
    EVIDENCE_RULE,
    ANTI_RE_HANG_CLAUSE,
    completionReportBlock(input.report),
  ].join('\n\n');
}
