// Formats a completion report as its one line. Order: ticket, label, status, pr, reason, summary.
// Refused (reportProblem): no ticket, no summary, a reason with a status other than blocked (the
// quota self-report is a blocked report): the lines the parser reads as malformed reports.
// A value is quoted (JSON string) when it is empty or holds whitespace, quotes or "="; the summary
// is folded onto one line first. parseReportLine(formatReport(r)) returns r.
import type { CompletionReport } from '../model';

export function quoteValue(value: string): string {
  return value === '' || /[\s"=\\]/.test(value) ? JSON.stringify(value) : value;
}

export function oneLine(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Why a report may not be sent as it is, or null. */
export function reportProblem(r: CompletionReport): string | null {
  if (oneLine(r.ticket) === '') return 'a completion report needs a ticket';
  if (oneLine(r.summary ?? '') === '') return 'a completion report needs a summary (one line)';
  const reason = oneLine(r.reason ?? '');
  if (reason !== '' && r.status !== 'blocked')
    return `reason=${reason.slice(0, 40)} needs status=blocked (not ${r.status}): a reason is only given on a blocked report`;
  return null;
}

export function formatReport(r: CompletionReport): string {
  const problem = reportProblem(r);
  if (problem) throw new Error(problem);
  const parts = [`ticket=${quoteValue(oneLine(r.ticket))}`];
  if (r.label) parts.push(`label=${quoteValue(oneLine(r.label))}`);
  parts.push(`status=${r.status}`);
  if (r.pr) parts.push(`pr=${quoteValue(oneLine(r.pr))}`);
  if (r.reason && oneLine(r.reason) !== '') parts.push(`reason=${quoteValue(oneLine(r.reason))}`);
  if (r.summary) parts.push(`summary=${quoteValue(oneLine(r.summary))}`);
  return parts.join(' ');
}

/** A blocked report for a quota wall: status=blocked reason=quota-exhausted. */
export function quotaBlockedReport(
  ticket: string,
  summary: string,
  extra: { label?: string | null; pr?: string | null } = {},
): CompletionReport {
  return {
    ticket,
    label: extra.label ?? null,
    status: 'blocked',
    pr: extra.pr ?? null,
    summary,
    reason: 'quota-exhausted',
  };
}
