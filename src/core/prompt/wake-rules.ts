// What every wake prompt carries, whoever wrote it (a composed prompt, a file, an edited
// document): the anti-re-hang clause (spec Endpoints rule 3) and the restated completion-report
// protocol with the quota self-report clause. A clause that is missing is appended unchanged and
// the caller is told so; one that is present (whitespace aside) is kept as written. A fact-baseline
// document must still hold its four parts (rule 4) before it is sent.
import { ANTI_RE_HANG_CLAUSE, completionReportBlock, QUOTA_SELF_REPORT_CLAUSE, type ReportProtocol } from './clauses';

export type WakeRule = 'anti-re-hang clause' | 'completion-report protocol';

export interface GuaranteedPrompt {
  text: string;
  /** What was appended, in order; empty when the prompt carried both. */
  appended: WakeRule[];
  /** One readable line for the person who sent it (stderr, the editor), or null when nothing was appended. */
  notice: string | null;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

function holds(text: string, clause: string): boolean {
  return squash(text).includes(squash(clause));
}

/** The completion-report protocol counts as present when its heading and the quota self-report clause are. */
function holdsReportProtocol(text: string): boolean {
  return /Completion report protocol:/.test(text) && holds(text, QUOTA_SELF_REPORT_CLAUSE);
}

export function guaranteeWakeRules(text: string, report: ReportProtocol): GuaranteedPrompt {
  const appended: WakeRule[] = [];
  const sections = [text.trimEnd()];
  if (!holds(text, ANTI_RE_HANG_CLAUSE)) {
    sections.push(ANTI_RE_HANG_CLAUSE);
    appended.push('anti-re-hang clause');
  }
  if (!holdsReportProtocol(text)) {
    sections.push(completionReportBlock(report));
    appended.push('completion-report protocol');
  }
  if (appended.length === 0) return { text, appended, notice: null };
  return {
    text: sections.join('\n\n'),
    appended,
    notice: `the prompt lacked them, so Session Ops appended the ${appended.join(' and the ')} (unchanged) before sending`,
  };
}

const PARTS: Array<[RegExp, string]> = [
  [/^\s*1\.\s+You were woken\b/m, 'part 1 (you were woken, the event and the current time)'],
  [/^\s*2\.\s+Authoritative facts:/m, 'part 2 (the numbered authoritative facts)'],
  [/^\s*3\.\s+(Assignment|Standby):\s*\S/m, 'part 3 (one concrete assignment or an explicit standby)'],
  [/^\s*4\.\s+Evidence rule:/m, 'part 4 (the evidence rule)'],
];

/** Why an edited fact-baseline document may not be sent (a part is gone), naming the part; or null. */
export function factBaselineDocumentProblem(text: string): string | null {
  for (const [re, part] of PARTS)
    if (!re.test(text)) return `the fact baseline lost ${part}: restore it before sending`;
  return null;
}

const QUOTA_WAKE_PARTS: Array<[RegExp, string]> = [
  [/^What happened:/m, 'what happened (turn killed by quota, provider, expected reset)'],
  [/^What is done:/m, 'what is done (steps, commits, pull request state, uncommitted files)'],
  [/^Where to resume:\s*\S/m, 'where to resume (one concrete step)'],
  [/^Evidence rule:/m, 'the evidence rule'],
];

/**
 * Why a text is not a quota-wall wake prompt (spec Endpoints rule 5: what happened, what is done,
 * where to resume, the evidence rule, the completion-report protocol with the quota self-report
 * clause), naming the first missing part; or null.
 */
export function quotaWakeDocumentProblem(text: string): string | null {
  for (const [re, part] of QUOTA_WAKE_PARTS) if (!re.test(text)) return `it lacks ${part}`;
  if (!holdsReportProtocol(text)) return 'it lacks the completion-report protocol with the quota self-report clause';
  return null;
}

/**
 * Whether a text is a fact-baseline document (whoever wrote it: composed, a file, an edited
 * document): it holds its part 2 (the authoritative facts) or two of its four parts.
 */
export function isFactBaselineDocument(text: string): boolean {
  const held = PARTS.filter(([re]) => re.test(text)).length;
  return held >= 2 || PARTS[1][0].test(text);
}
