// A wake prompt after a stale worldview is a fact baseline with four parts (spec "Endpoints"
// rule 4): (1) the worker was woken and its worldview is stale, naming the event and the current
// time; (2) numbered authoritative facts with artifact links and timestamps, naming which
// standing assumptions are now invalid; (3) one concrete assignment or explicit standby; (4) the
// evidence rule. Like every wake prompt it carries the anti-re-hang clause and names the
// uncommitted files (rules 2 and 3).
import type { EpochMs } from '../model';
import {
  ANTI_RE_HANG_CLAUSE,
  checkFiles,
  completionReportBlock,
  EVIDENCE_RULE,
  uncommittedFilesSection,
  type ReportProtocol,
} from './clauses';
import { bullets, inline, isoTime, numbered } from './text';

export interface Fact {
  statement: string;
  /** Artifact link (ticket, PR, commit, log URL or path) where the fact can be verified. */
  source: string;
  /** When the fact was established. */
  at: EpochMs | string;
}

export type Assignment = { kind: 'task'; step: string } | { kind: 'standby'; until: string };

export interface FactBaselineInput {
  /** What happened, e.g. "the orchestrator restarted and re-read the durable record". */
  event: string;
  now: EpochMs;
  facts: Fact[];
  /** Standing assumptions these facts invalidate (may be empty, but then say so). */
  invalidAssumptions: string[];
  assignment: Assignment;
  /** Null when the inventory was not available (the prompt then says so). */
  uncommittedFiles: string[] | null;
  report?: ReportProtocol;
}

export function composeFactBaseline(input: FactBaselineInput): string {
  if (input.facts.length === 0) throw new Error('a fact baseline needs at least one authoritative fact');
  for (const f of input.facts) {
    if (inline(f.statement) === '' || inline(f.source) === '')
      throw new Error('every fact needs a statement and an artifact link');
  }
  const files = checkFiles(input.uncommittedFiles);
  const part1 = `1. You were woken: your worldview is stale. Event: ${inline(input.event)}. Current time: ${isoTime(input.now)}.`;
  const facts = numbered(
    input.facts.map((f) => `${inline(f.statement)} (source: ${inline(f.source)}; as of ${isoTime(f.at)})`),
    '   ',
  );
  const invalid =
    input.invalidAssumptions.length > 0
      ? `   These standing assumptions are now invalid:\n${bullets(input.invalidAssumptions.map(inline), '   ')}`
      : '   No standing assumption is invalidated beyond what the facts state.';
  const part2 = `2. Authoritative facts:\n${facts}\n${invalid}`;
  const part3 =
    input.assignment.kind === 'task'
      ? `3. Assignment: ${inline(input.assignment.step)}`
      : `3. Standby: take no action until ${inline(input.assignment.until)}.`;
  const part4 = `4. ${EVIDENCE_RULE}`;
  const sections = [part1, part2, part3, part4, uncommittedFilesSection(files), ANTI_RE_HANG_CLAUSE];
  if (input.report) sections.push(completionReportBlock(input.report));
  return sections.join('\n\n');
}
