// Parses the one-line key=value completion report:
//   ticket=PROJ-12 label=Kind/Bug status=done pr=#34 summary="Parser fixed"
//   ticket=PROJ-12 status=blocked reason=quota-exhausted summary=quota exhausted on local
// Values are bare (up to whitespace) or double-quoted with JSON escapes. An unquoted summary or
// reason runs to the next known key (workers write free text). Unknown keys are ignored. A line
// is a report only with a ticket and a status of done, blocked or handoff.
import type { CompletionReport, MessageSnapshot, ReportStatus } from '../model';

export const REPORT_KEYS = ['ticket', 'label', 'status', 'pr', 'summary', 'reason'] as const;
export type ReportKey = (typeof REPORT_KEYS)[number];
const STATUSES: readonly ReportStatus[] = ['done', 'blocked', 'handoff'];
const FREE_TEXT_KEYS = new Set<string>(['summary', 'reason']);

/** key=value pairs of one line; null when the line is not made of pairs. */
export function parsePairs(line: string): Map<string, string> | null {
  const pairs = new Map<string, string>();
  let i = 0;
  const n = line.length;
  const skipSpace = () => {
    while (i < n && (line[i] === ' ' || line[i] === '\t')) i++;
  };
  skipSpace();
  while (i < n) {
    const keyMatch = /^([A-Za-z][A-Za-z0-9_-]*)=/.exec(line.slice(i));
    if (!keyMatch) return pairs.size > 0 ? pairs : null;
    const key = keyMatch[1].toLowerCase();
    i += keyMatch[0].length;
    let value: string;
    if (line[i] === '"') {
      const end = closingQuote(line, i);
      if (end === -1) return null;
      try {
        value = JSON.parse(line.slice(i, end + 1)) as string;
      } catch {
        return null;
      }
      i = end + 1;
    } else if (FREE_TEXT_KEYS.has(key)) {
      const rest = line.slice(i);
      const next = /\s(ticket|label|status|pr|summary|reason)=/.exec(rest);
      value = (next ? rest.slice(0, next.index) : rest).trim();
      i += next ? next.index : rest.length;
    } else {
      const start = i;
      while (i < n && line[i] !== ' ' && line[i] !== '\t') i++;
      value = line.slice(start, i);
    }
    if (!pairs.has(key)) pairs.set(key, value);
    skipSpace();
  }
  return pairs.size > 0 ? pairs : null;
}

function closingQuote(line: string, open: number): number {
  for (let j = open + 1; j < line.length; j++) {
    if (line[j] === '\\') j++;
    else if (line[j] === '"') return j;
  }
  return -1;
}

/** Strips list markers, quote markers and inline-code backticks around a line. */
function unwrap(line: string): string {
  let s = line.trim();
  s = s.replace(/^(?:[-*+]\s+|>\s*|\d+\.\s+)/, '');
  if (s.startsWith('`') && s.endsWith('`') && s.length > 1) s = s.replace(/^`+|`+$/g, '');
  return s.trim();
}

/** One line as a report, or null. */
export function parseReportLine(line: string): CompletionReport | null {
  const s = unwrap(line);
  if (!/^ticket=/i.test(s)) return null;
  const pairs = parsePairs(s);
  if (!pairs) return null;
  const ticket = pairs.get('ticket') ?? '';
  const status = pairs.get('status') as ReportStatus | undefined;
  if (ticket === '' || /[<>]/.test(ticket) || !status || !STATUSES.includes(status)) return null;
  const opt = (k: ReportKey) => {
    const v = pairs.get(k);
    return v === undefined || v === '' ? null : v;
  };
  return { ticket, label: opt('label'), status, pr: opt('pr'), summary: opt('summary'), reason: opt('reason') };
}

/** The last report line in a message text (the newest message of a session), or null. */
export function findReport(text: string | null | undefined): CompletionReport | null {
  if (!text) return null;
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const report = parseReportLine(lines[i]);
    if (report) return report;
  }
  return null;
}

/** The completion report of a message: only assistant messages carry one (a user prompt may quote one). */
export function reportOf(message: Pick<MessageSnapshot, 'role' | 'text'> | null | undefined): CompletionReport | null {
  return message && message.role === 'assistant' ? findReport(message.text) : null;
}
