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
  /** Standing assumptions these facts invalidate; ["none"] says that none is. */
  invalidAssumptions: string[];
  assignment: Assignment;
  /** Null when the inventory was not available (the prompt then says so). */
  uncommittedFiles: string[] | null;
  report?: ReportProtocol;
}

/** The parts a person (or a facts file) fills in; composeFactBaseline adds the time and the rest. */
export type FactBaselineParts = Pick<FactBaselineInput, 'event' | 'facts' | 'invalidAssumptions' | 'assignment'>;

/** Written for "no standing assumption is invalid": naming none must be said, not left empty. */
export const NO_INVALID_ASSUMPTION = 'none';

/**
 * Why a fact baseline is incomplete, naming the part, or null when every part is filled: the
 * event (1); at least one fact, each with a statement, an artifact link and a timestamp, and the
 * invalid assumptions or "none" (2); one concrete step, or a standby with its end (3).
 */
export function factBaselineProblem(b: FactBaselineParts): string | null {
  if (inline(b.event ?? '') === '') return 'part 1: the event (what made the worldview stale) is empty';
  if (b.facts.length === 0) return 'part 2: a fact baseline needs at least one authoritative fact';
  for (let i = 0; i < b.facts.length; i++) {
    const f = b.facts[i];
    const n = `part 2, fact ${i + 1}`;
    if (inline(f.statement ?? '') === '') return `${n}: the statement is empty`;
    if (inline(f.source ?? '') === '') return `${n}: the artifact link (where to verify it) is empty`;
    if (typeof f.at === 'number' ? !Number.isFinite(f.at) || f.at <= 0 : inline(f.at ?? '') === '')
      return `${n}: the timestamp is empty`;
  }
  if (b.invalidAssumptions.every((a) => inline(a) === ''))
    return `part 2: name the standing assumptions these facts make invalid, or write "${NO_INVALID_ASSUMPTION}"`;
  if (b.assignment.kind === 'task' && inline(b.assignment.step) === '')
    return 'part 3: the assignment is empty: give one concrete step, or an explicit standby with its end';
  if (b.assignment.kind === 'standby' && inline(b.assignment.until) === '')
    return 'part 3: a standby needs its end (until when, or until what)';
  return null;
}

export function composeFactBaseline(input: FactBaselineInput): string {
  const problem = factBaselineProblem(input);
  if (problem) throw new Error(`fact baseline: ${problem}`);
  const files = checkFiles(input.uncommittedFiles);
  const part1 = `1. You were woken: your worldview is stale. Event: ${inline(input.event)}. Current time: ${isoTime(input.now)}.`;
  const facts = numbered(
    input.facts.map((f) => `${inline(f.statement)} (source: ${inline(f.source)}; as of ${isoTime(f.at)})`),
    '   ',
  );
  const named = input.invalidAssumptions.map(inline).filter((a) => a !== '');
  const invalid =
    named.length === 1 && named[0].toLowerCase() === NO_INVALID_ASSUMPTION
      ? `   Standing assumptions now invalid: ${NO_INVALID_ASSUMPTION}.`
      : `   These standing assumptions are now invalid:\n${bullets(named, '   ')}`;
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
