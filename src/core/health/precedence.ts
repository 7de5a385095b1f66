// The one precedence of what a session's headline is, used by the badge, the action, the tooltip
// and the CLI alike:
//
//   unreadable   the newest message could not be read: nothing is known (verdict unknown)
//   waiting      a pending permission or question: a person must answer (never aborted)
//   quota-wall   a usage-limit failure stopped or spins the session: recovery comes first
//   malformed-report  the newest assistant message holds a line meant as a report that does not
//                parse: a person must read it (never woken over)
//   report       the newest assistant message carries a completion report: harvest
//   hung / idle / healthy   the verdict of the last pair of samples
//   pending      no verdict yet (one sample, samples disagree): never act on a guess
import type { CompletionReport, MalformedReport, QuotaWall, Verdict } from '../model';

export type Headline = 'unreadable' | 'quota-wall' | 'malformed-report' | 'report' | Verdict | 'pending';

export interface HeadlineInput {
  verdict: Verdict | null;
  quotaWall: QuotaWall | null;
  report: CompletionReport | null;
  malformedReport?: MalformedReport | null;
  /** Why the newest message could not be read, when it could not. */
  unreadable?: string | null;
}

export function headline(a: HeadlineInput): Headline {
  if (a.unreadable) return 'unreadable';
  if (a.verdict === 'waiting') return 'waiting';
  if (a.quotaWall) return 'quota-wall';
  if (a.malformedReport) return 'malformed-report';
  if (a.report) return 'report';
  return a.verdict ?? 'pending';
}
