// How a session row reads in the tree: icon and colour per badge, a one-line description, a
// plain-markdown tooltip with the verdict's evidence, and composable contextValue flags. Pure:
// the extension turns these strings into ThemeIcon / ThemeColor / MarkdownString.
import { needsAttention, type Badge, type SampleEvidence, type SessionRow } from './row';

export interface BadgeLook {
  /** Codicon id. */
  icon: string;
  /** Theme colour id. */
  color: string;
  label: string;
}

const LOOKS: Record<Badge, BadgeLook> = {
  unknown: { icon: 'circle-large-outline', color: 'descriptionForeground', label: 'unknown (waiting for two samples)' },
  healthy: { icon: 'pass-filled', color: 'testing.iconPassed', label: 'healthy' },
  idle: { icon: 'debug-pause', color: 'charts.yellow', label: 'idle' },
  hung: { icon: 'error', color: 'testing.iconFailed', label: 'hung' },
  waiting: { icon: 'bell', color: 'charts.orange', label: 'waiting for you (permission or question)' },
  'quota-wall': { icon: 'circle-slash', color: 'charts.orange', label: 'quota wall' },
  'report-done': { icon: 'check-all', color: 'charts.blue', label: 'report: done' },
  'report-blocked': { icon: 'warning', color: 'charts.purple', label: 'report: blocked' },
  'report-handoff': { icon: 'arrow-swap', color: 'charts.blue', label: 'report: handoff' },
};

export function badgeLook(badge: Badge): BadgeLook {
  return LOOKS[badge];
}

export function ago(from: number, now: number): string {
  const s = Math.max(0, Math.round((now - from) / 1000));
  if (s < 60) return `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m ago`;
  return `${Math.floor(h / 24)}d ago`;
}

export function until(to: number, now: number): string {
  const s = Math.round((to - now) / 1000);
  if (s <= 0) return 'now';
  if (s < 60) return `in ${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `in ${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `in ${h}h ${m % 60}m`;
  return `in ${Math.floor(h / 24)}d ${h % 24}h`;
}

export function localTime(at: number): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** "step 42 · moved 12s ago · local/m1 · resets 14:05 (in 2h 3m) · marked 12m ago" */
export function describeRow(row: SessionRow, now: number): string {
  const parts: string[] = [];
  if (row.unreadable) parts.push(`unknown: ${row.unreadable}`);
  if (row.stepCount !== null) parts.push(`step ${row.stepCount}`);
  if (row.lastMovedAt !== null) parts.push(`moved ${ago(row.lastMovedAt, now)}`);
  if (row.model) parts.push(row.model);
  if (row.quotaWall) {
    parts.push(
      row.quotaWall.resetAt !== null
        ? `resets ${localTime(row.quotaWall.resetAt)} (${until(row.quotaWall.resetAt, now)})`
        : row.quotaWall.category === 'balance'
          ? 'balance: needs top-up'
          : 'reset unknown',
    );
    if (row.quotaWall.markedAt != null) parts.push(`marked ${ago(row.quotaWall.markedAt, now)}`);
  }
  if (row.retrying) parts.push(row.retrying);
  if (row.report && !row.quotaWall) parts.push(`${row.report.ticket} ${row.report.status}`);
  if (row.waiting) parts.push(oneLine(row.waiting.title, 80));
  if (row.todos && row.todos.total > 0) parts.push(`${row.todos.done}/${row.todos.total} todos`);
  if (row.pending && row.badge === 'unknown' && !row.unreadable) parts.push(row.pending);
  return parts.join(' · ');
}

/** Server text on one line, shortened (control characters become spaces). */
export function oneLine(text: string, max: number): string {
  const s = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** The tooltip lines of a waiting request: what is asked and how to answer. */
function waitingLines(row: SessionRow): string[] {
  const w = row.waiting;
  if (!w) return [];
  const lines = ['', `Waiting for you: **${escapeMarkdown(oneLine(w.title, 200))}**`];
  if (w.detail.kind === 'permission') {
    lines.push(`- tool \`${w.detail.tool.replace(/`/g, '')}\``);
    for (const p of w.detail.patterns.slice(0, 10)) lines.push(`- pattern ${escapeMarkdown(oneLine(p, 200))}`);
    lines.push('', '_Allow Once, Allow Always or Reject from the context menu._');
  } else {
    for (const q of w.detail.questions.slice(0, 5)) {
      lines.push(`- ${escapeMarkdown(oneLine(q.question, 300))}`);
      for (const o of q.options.slice(0, 10)) lines.push(`  - ${escapeMarkdown(oneLine(o.label, 80))}${o.description ? `: ${escapeMarkdown(oneLine(o.description, 160))}` : ''}`);
      if (q.custom) lines.push('  - _(or free text)_');
    }
    lines.push('', '_Answer... from the context menu._');
  }
  return lines;
}

/** Escapes text from the server so the tooltip renders it literally (no links, no HTML). */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, (c) => `\\${c}`).replace(/\r?\n/g, '  \n');
}

function evidenceLine(label: string, e: SampleEvidence, now: number): string {
  const bits = [
    `state **${e.state}**`,
    `steps ${e.stepCount ?? '–'}`,
    `newest ${e.newestId ? '`' + e.newestId.replace(/`/g, '') + '`' : '–'}${e.newestRole ? ` (${escapeMarkdown(e.newestRole)})` : ''}`,
  ];
  if (e.lastStepAt !== null) bits.push(`last step ${ago(e.lastStepAt, now)}`);
  return `- ${label} (${ago(e.at, now)}): ${bits.join(', ')}`;
}

/** Plain markdown (the extension must not mark it trusted). */
export function tooltipMarkdown(row: SessionRow, now: number): string {
  const look = badgeLook(row.badge);
  const lines = [`**${escapeMarkdown(row.title ?? row.id)}**  `, `\`${row.id.replace(/`/g, '')}\``, ''];
  lines.push(`Verdict: **${row.verdict ?? 'none yet'}** · badge: ${look.label}${row.action ? ` · action: **${row.action}**` : ''}`);
  if (row.pending) lines.push('', `_${escapeMarkdown(row.pending)}_`);
  lines.push('', 'Evidence:');
  if (row.evidence.earlier) lines.push(evidenceLine('earlier sample', row.evidence.earlier, now));
  lines.push(evidenceLine('latest sample', row.evidence.latest, now));
  if (row.quotaWall) {
    const q = row.quotaWall;
    lines.push(
      '',
      `Quota wall: ${q.category}${q.provider ? ` on **${escapeMarkdown(q.provider)}**` : ''}${q.reason ? ` (reason \`${q.reason.replace(/`/g, '')}\`)` : ''}; reset ${q.resetAt !== null ? `${localTime(q.resetAt)} (${until(q.resetAt, now)})` : 'unknown'}${q.markedAt != null ? `; marked ${ago(q.markedAt, now)}` : ''}`,
    );
  }
  lines.push(...waitingLines(row));
  if (row.todos && row.todos.total > 0) lines.push('', `Todos: ${row.todos.done}/${row.todos.total} done${row.todos.inProgress ? ` · now: ${escapeMarkdown(oneLine(row.todos.inProgress, 200))}` : ''}`);
  if (row.retrying) lines.push('', `The backend is ${escapeMarkdown(row.retrying)}: not a quota wall.`);
  if (row.failureText) lines.push('', `Failure: ${escapeMarkdown(row.failureText.slice(0, 500))}`);
  if (row.report) {
    const r = row.report;
    lines.push('', `Completion report: ticket ${escapeMarkdown(r.ticket)}, status **${r.status}**${r.pr ? `, pr ${escapeMarkdown(r.pr)}` : ''}${r.reason ? `, reason ${escapeMarkdown(r.reason)}` : ''}${r.summary ? `  \n${escapeMarkdown(r.summary)}` : ''}`);
  }
  return lines.join('\n');
}

/**
 * Composable flags for `viewItem` when-clauses (matched with regexes like /\bverdict-hung\b/):
 *   session · verdict-<healthy|idle|hung|waiting|unknown> · generating|idle-state · quota-wall · report ·
 *   action-<action> · attention · waiting-<permission|question>
 */
export function contextValue(row: SessionRow): string {
  const flags = ['session', `verdict-${row.verdict ?? 'unknown'}`, row.state === 'generating' ? 'generating' : 'idle-state'];
  if (row.quotaWall) flags.push('quota-wall');
  if (row.report) flags.push('report');
  if (row.action) flags.push(`action-${row.action}`);
  if (needsAttention(row)) flags.push('attention');
  if (row.waiting) flags.push(`waiting-${row.waiting.kind}`);
  return flags.join(' ');
}
