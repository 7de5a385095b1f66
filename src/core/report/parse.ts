// Parses the one-line key=value completion report, the way workers write it:
//   ticket=PROJ-12 label=Kind/Bug status=done pr=#34 summary="Parser fixed"
//   status=blocked ticket=PROJ-12 reason=quota-exhausted summary=quota exhausted on local
// Keys come in any order. Values are bare (up to whitespace) or double-quoted with JSON escapes;
// an unterminated quote is read as a bare value. An unquoted summary is free text: it runs to the
// next report key that is not set yet (a key already set is text of the summary); an unquoted
// reason runs to the next report key. Unknown keys and stray words are ignored. Fenced code
// blocks and inline code are examples, never the report. A line that starts with a report key and
// names at least two of them, one being ticket or status, is meant as a report. It is a malformed
// report, which a person must read (never harvested, never woken over), when the spec rules it
// out: a report key given twice (which value counts is a guess), no ticket, no valid status, no
// summary, or a reason on a status other than blocked (the quota self-report is a blocked report).
// Lines with <placeholders> are templates, no report.
import type { CompletionReport, MalformedReport, MessageSnapshot, ReportStatus } from '../model';

export const REPORT_KEYS = ['ticket', 'label', 'status', 'pr', 'summary', 'reason'] as const;
export type ReportKey = (typeof REPORT_KEYS)[number];
const STATUSES: readonly ReportStatus[] = ['done', 'blocked', 'handoff'];
const KEYS = new Set<string>(REPORT_KEYS);
const FREE_TEXT_KEYS = new Set<string>(['summary', 'reason']);
/** How much of a malformed line is kept for a person to read. */
const RAW_LIMIT = 500;

/** A proper report, or a line meant as one that does not parse. */
export type ReportReading = CompletionReport | MalformedReport;

export function isMalformed(r: ReportReading | null | undefined): r is MalformedReport {
  return r !== null && r !== undefined && 'malformed' in r && r.malformed === true;
}

/** key=value pairs of one line (first value of a key wins); null when the line holds none. */
export function parsePairs(line: string): Map<string, string> | null {
  const { pairs } = readPairs(line);
  return pairs.size > 0 ? pairs : null;
}

/** The pairs of one line (first value of a key wins) and the report keys given more than once. */
function readPairs(line: string): { pairs: Map<string, string>; repeated: string[] } {
  const pairs = new Map<string, string>();
  const repeated: string[] = [];
  const n = line.length;
  let i = 0;
  const isSpace = (c: string | undefined) => c === ' ' || c === '\t';
  while (i < n) {
    while (i < n && isSpace(line[i])) i++;
    if (i >= n) break;
    const keyMatch = /^([A-Za-z][A-Za-z0-9_-]*)=/.exec(line.slice(i));
    if (!keyMatch) {
      while (i < n && !isSpace(line[i])) i++; // a stray word
      continue;
    }
    const key = keyMatch[1].toLowerCase();
    i += keyMatch[0].length;
    let value: string | null = null;
    if (line[i] === '"') {
      const end = closingQuote(line, i);
      if (end !== -1) {
        value = unquote(line.slice(i, end + 1));
        i = end + 1;
      } else i++; // unterminated: read the rest as a bare value
    }
    if (value === null) {
      if (FREE_TEXT_KEYS.has(key)) {
        const end = freeTextEnd(line, i, pairs, key);
        value = line.slice(i, end).trim();
        i = end;
      } else {
        const start = i;
        while (i < n && !isSpace(line[i])) i++;
        value = line.slice(start, i);
      }
    }
    if (!pairs.has(key)) pairs.set(key, value);
    else if (KEYS.has(key) && !repeated.includes(key)) repeated.push(key);
  }
  return { pairs, repeated };
}

/**
 * Where an unquoted free-text value ends. A summary runs to the next report key that is not set
 * yet (a key already set is text of the summary); a reason runs to the next report key.
 */
function freeTextEnd(line: string, from: number, pairs: Map<string, string>, current: string): number {
  const re = /[ \t]([A-Za-z][A-Za-z0-9_-]*)=/g;
  re.lastIndex = from;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const key = m[1].toLowerCase();
    if (!KEYS.has(key)) continue;
    if (current !== 'summary' || (key !== current && !pairs.has(key))) return m.index;
  }
  return line.length;
}

function closingQuote(line: string, open: number): number {
  for (let j = open + 1; j < line.length; j++) {
    if (line[j] === '\\') j++;
    else if (line[j] === '"') return j;
  }
  return -1;
}

function unquote(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}

/** Strips list markers and quote markers around a line. */
function unwrap(line: string): string {
  let s = line.trim();
  for (let again = true; again;) {
    const next = s.replace(/^(?:[-*+]\s+|>\s*|\d+[.)]\s+)/, '');
    again = next !== s;
    s = next.trim();
  }
  return s;
}

/** Removes inline code spans (`...`, ``...``) from a line. */
function withoutInlineCode(line: string): string {
  return line.replace(/(`+)(?:(?!\1)[\s\S])*?[^`]\1(?!`)|(`+)\2/g, ' ');
}

/** The lines of a text with fenced code blocks blanked out (line numbers kept). */
function proseLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  let fence: { char: string; length: number } | null = null;
  return lines.map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1][0] === fence.char && m[1].length >= fence.length && line.trim() === m[1]) fence = null;
      return '';
    }
    if (m) {
      fence = { char: m[1][0], length: m[1].length };
      return '';
    }
    return withoutInlineCode(line);
  });
}

/** Whether a line (unwrapped) is written as a report: starts with a report key, names two, ticket or status among them. */
function meantAsReport(s: string): boolean {
  if (!/^(ticket|label|status|pr|summary|reason)=/i.test(s)) return false;
  const named = new Set<string>();
  for (const m of s.matchAll(/(?:^|[ \t])(ticket|label|status|pr|summary|reason)=/gi)) named.add(m[1].toLowerCase());
  return named.size >= 2 && (named.has('ticket') || named.has('status'));
}

/** One line as a report, a malformed report, or null (no report meant). */
export function readReportLine(line: string): ReportReading | null {
  const s = unwrap(line);
  if (!meantAsReport(s)) return null;
  const { pairs, repeated } = readPairs(s);
  const ticket = pairs.get('ticket') ?? '';
  const status = pairs.get('status') ?? '';
  if (/<[^>]*>/.test(ticket) || /<[^>]*>/.test(status)) return null; // a template, not a report
  const opt = (k: ReportKey) => {
    const v = pairs.get(k);
    return v === undefined || v.trim() === '' ? null : v;
  };
  const fields = { label: opt('label'), pr: opt('pr'), summary: opt('summary'), reason: opt('reason') };
  let problem: string | null = null;
  if (repeated.length > 0)
    problem = `${repeated.map((k) => `${k}=`).join(', ')} given more than once (which value counts is a guess)`;
  else if (ticket.trim() === '') problem = 'no ticket';
  else if (status === '') problem = 'no status';
  else if (!STATUSES.includes(status as ReportStatus))
    problem = `status "${status.slice(0, 40)}" is not done, blocked or handoff`;
  else if (fields.summary === null) problem = 'no summary';
  else if (fields.reason !== null && status !== 'blocked')
    problem = `reason=${fields.reason.slice(0, 40)} on status ${status} (a reason is only given on a blocked report)`;
  if (problem === null)
    return {
      ticket,
      label: fields.label,
      status: status as ReportStatus,
      pr: fields.pr,
      summary: fields.summary,
      reason: fields.reason,
    };
  return {
    malformed: true,
    raw: s.length > RAW_LIMIT ? `${s.slice(0, RAW_LIMIT - 1)}…` : s,
    problem,
    ticket: opt('ticket'),
    status: opt('status'),
    ...fields,
  };
}

/** One line as a proper report, or null. */
export function parseReportLine(line: string): CompletionReport | null {
  const r = readReportLine(line);
  return r && !isMalformed(r) ? r : null;
}

const ANY_REPORT_KEY = /(?:ticket|label|status|pr|summary|reason)=/i;

/** The newest line of a message text meant as a report (proper or malformed), outside code; or null. */
export function readReport(text: string | null | undefined): ReportReading | null {
  // Every line meant as a report names a report key: a text naming none is not split at all.
  if (!text || !ANY_REPORT_KEY.test(text)) return null;
  const lines = proseLines(text);
  for (let i = lines.length - 1; i >= 0; i--) {
    const reading = readReportLine(lines[i]);
    if (reading) return reading;
  }
  return null;
}

/** The report of a message text when its newest report line is a proper one, else null. */
export function findReport(text: string | null | undefined): CompletionReport | null {
  const r = readReport(text);
  return r && !isMalformed(r) ? r : null;
}

/** The report reading of a message: only assistant messages carry one (a user prompt may quote one). */
export function readReportOf(message: Pick<MessageSnapshot, 'role' | 'text'> | null | undefined): ReportReading | null {
  return message && message.role === 'assistant' ? readReport(message.text) : null;
}

/** The completion report of a message (a proper one), or null. */
export function reportOf(message: Pick<MessageSnapshot, 'role' | 'text'> | null | undefined): CompletionReport | null {
  const r = readReportOf(message);
  return r && !isMalformed(r) ? r : null;
}
