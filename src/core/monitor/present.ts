// How a session row reads in the tree: icon and colour per badge, a one-line description, a
// plain-markdown tooltip with the verdict's evidence, and composable contextValue flags. Pure:
// the extension turns these strings into ThemeIcon / ThemeColor / MarkdownString.
import { costTooltipLine, rowCostText } from '../cost/present';
import { type Badge, type SampleEvidence, type SessionRow } from './row';

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
  'malformed-report': { icon: 'question', color: 'charts.red', label: 'malformed report: read it' },
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

/**
 * A relative time coarse enough that a row's text does not change every sampling round (30-60 s):
 * "<1m ago", then whole minutes up to 5, then 5-minute steps up to an hour, whole hours up to two
 * days, then days. A stalled row's text changes ~15 times in its first hour instead of every
 * round; the exact time is in the tooltip (tooltipMarkdown).
 */
export function agoCoarse(from: number, now: number): string {
  const m = Math.floor(Math.max(0, now - from) / 60_000);
  if (m < 1) return '<1m ago';
  if (m < 5) return `${m}m ago`;
  if (m < 60) return `${m - (m % 5)}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.floor(h / 24)}d ago`;
}

/** The future counterpart of agoCoarse: "in <1m", "in 3m", "in 25m" (5-minute steps), "in 2h 15m" (15-minute steps). */
export function untilCoarse(to: number, now: number): string {
  const ms = to - now;
  if (ms <= 0) return 'now';
  // Rounded up: a reset "in 4m" never happens before 4 minutes pass.
  const m = Math.ceil(ms / 60_000);
  if (m <= 1) return 'in <1m';
  if (m <= 5) return `in ${m}m`;
  if (m < 60) return `in ${Math.ceil(m / 5) * 5}m`;
  const q = Math.ceil(m / 15) * 15;
  const h = Math.floor(q / 60);
  if (h < 48) return `in ${h}h${q % 60 ? ` ${q % 60}m` : ''}`;
  return `in ${Math.floor(h / 24)}d ${h % 24}h`;
}

/** Local date and time to the second (the tooltip's exact times). */
export function localTimeExact(at: number): string {
  const d = new Date(at);
  return `${localTime(at)}:${String(d.getSeconds()).padStart(2, '0')}`;
}

export function localTime(at: number): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * "step 42 · moved <1m ago · local/m1 · resets 14:05 (in 2h 15m) · marked 10m ago". Relative
 * times are coarse (agoCoarse/untilCoarse) so that the text, which decides whether the tree
 * refreshes a row, does not change every round; the tooltip has them exact.
 */
export function describeRow(row: SessionRow, now: number, options: { showCost?: boolean } = {}): string {
  const parts: string[] = [];
  if (row.unreadable) parts.push(`unknown: ${row.unreadable}`);
  if (row.stepCount !== null) parts.push(`step ${row.stepCount}`);
  if (row.lastMovedAt !== null) parts.push(`moved ${agoCoarse(row.lastMovedAt, now)}`);
  if (row.model) parts.push(row.model);
  if (row.quotaWall) {
    parts.push(
      row.quotaWall.resetAt !== null
        ? `resets ${localTime(row.quotaWall.resetAt)} (${untilCoarse(row.quotaWall.resetAt, now)})`
        : row.quotaWall.category === 'balance'
          ? 'balance: needs top-up'
          : 'reset unknown',
    );
    if (row.quotaWall.markedAt != null) parts.push(`marked ${agoCoarse(row.quotaWall.markedAt, now)}`);
  }
  if (row.retrying) parts.push(row.retrying);
  if (row.report && !row.quotaWall) parts.push(`${row.report.ticket} ${row.report.status}`);
  if (row.malformedReport && !row.quotaWall) parts.push(`malformed report (${row.malformedReport.problem}): read it`);
  if (row.waiting) parts.push(oneLine(row.waiting.title, 80));
  if (row.todos && row.todos.total > 0) parts.push(`${row.todos.done}/${row.todos.total} todos`);
  if (row.pending && row.badge === 'unknown' && !row.unreadable) parts.push(row.pending);
  if (row.actedBy) parts.push(actedByText(row.actedBy));
  const cost = options.showCost === false ? '' : rowCostText(row);
  if (cost) parts.push(cost);
  return parts.join(' · ');
}

/** Who acted on an attached daemon's session last: "wake confirmed by alice". */
export function actedByText(a: NonNullable<SessionRow['actedBy']>): string {
  const by = a.kind === 'automatic' ? 'the daemon (automatic)' : oneLine(a.by, 60);
  return `${a.action} ${a.code} by ${by}`;
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
      for (const o of q.options.slice(0, 10))
        lines.push(
          `  - ${escapeMarkdown(oneLine(o.label, 80))}${o.description ? `: ${escapeMarkdown(oneLine(o.description, 160))}` : ''}`,
        );
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
/** What a session's tooltip shows beyond its row: what the operator says of it, and its sub-agents. */
export interface TooltipExtras {
  /** Why automatic mode leaves it alone (the operator's `automaticSkip`); null: in its charge, or automatic mode off. */
  automaticSkip?: { reason: string; text: string } | null;
  /** Its sub-agent sessions' rows (their state shows on this, their parent's, row). */
  subAgents?: readonly SessionRow[];
}

/** At most this many sub-agents are named in a parent's tooltip. */
const SUB_AGENTS_SHOWN = 10;

function subAgentLines(subAgents: readonly SessionRow[]): string[] {
  if (subAgents.length === 0) return [];
  const named = subAgents.slice(0, SUB_AGENTS_SHOWN).map((c) => {
    const title = c.title ? `${escapeMarkdown(oneLine(c.title, 80))} ` : '';
    const action = c.action ? ` · ${c.action}` : '';
    return `- ${title}\`${c.id.replace(/`/g, '')}\`: **${c.verdict ?? 'no verdict yet'}**${action}`;
  });
  const more = subAgents.length - named.length;
  return ['', `Sub-agents (${subAgents.length}):`, ...named, ...(more > 0 ? [`- and ${more} more`] : [])];
}

export function tooltipMarkdown(row: SessionRow, now: number, extras: TooltipExtras = {}): string {
  const look = badgeLook(row.badge);
  const lines = [`**${escapeMarkdown(row.title ?? row.id)}**  `, `\`${row.id.replace(/`/g, '')}\``, ''];
  lines.push(
    `Verdict: **${row.verdict ?? 'none yet'}** · badge: ${look.label}${row.action ? ` · action: **${row.action}**` : ''}`,
  );
  if (row.pending) lines.push('', `_${escapeMarkdown(row.pending)}_`);
  if (row.lastMovedAt !== null)
    lines.push('', `Last moved: ${localTimeExact(row.lastMovedAt)} (${ago(row.lastMovedAt, now)})`);
  lines.push('', 'Evidence:');
  if (row.evidence.earlier) lines.push(evidenceLine('earlier sample', row.evidence.earlier, now));
  lines.push(evidenceLine('latest sample', row.evidence.latest, now));
  if (row.quotaWall) {
    const q = row.quotaWall;
    const on = q.provider ? ` on **${escapeMarkdown(q.provider)}**` : '';
    const provider = q.provider ? `**${escapeMarkdown(q.provider)}**` : 'its provider';
    const markSays = q.category ? ` (the mark says ${q.category})` : '';
    const seen = q.observed === 'retry' ? 'seen as a long retry' : 'seen in a failed turn';
    const what =
      q.observed === 'provider-marked'
        ? `inferred: the session stopped moving while ${provider} is under a quota mark; no message showed a failure${markSays}`
        : `${q.category ?? 'category not named'}${on}, ${seen}`;
    const reason = q.reason ? ` (reason \`${q.reason.replace(/`/g, '')}\`)` : '';
    const reset = q.resetAt !== null ? `${localTime(q.resetAt)} (${until(q.resetAt, now)})` : 'unknown';
    const marked = q.markedAt != null ? `; marked ${ago(q.markedAt, now)}` : '';
    lines.push('', `Quota wall: ${what}${reason}; reset ${reset}${marked}`);
  }
  lines.push(...waitingLines(row));
  if (extras.automaticSkip)
    lines.push(
      '',
      `Automatic mode leaves it alone (${extras.automaticSkip.reason}): ${escapeMarkdown(extras.automaticSkip.text)}`,
    );
  lines.push(...subAgentLines(extras.subAgents ?? []));
  lines.push('', costTooltipLine(row));
  if (row.todos && row.todos.total > 0)
    lines.push(
      '',
      `Todos: ${row.todos.done}/${row.todos.total} done${row.todos.inProgress ? ` · now: ${escapeMarkdown(oneLine(row.todos.inProgress, 200))}` : ''}`,
    );
  if (row.actedBy)
    lines.push(
      '',
      `Last act on the daemon: ${escapeMarkdown(actedByText(row.actedBy))}, ${localTimeExact(row.actedBy.at)}`,
    );
  if (row.retrying) lines.push('', `The backend is ${escapeMarkdown(row.retrying)}: not a quota wall.`);
  if (row.engine) lines.push('', `Engine: ${row.engine === 'api' ? "`/api` (opencode 2's)" : 'the old routes'}`);
  if (row.failureText) lines.push('', `Failure: ${escapeMarkdown(row.failureText.slice(0, 500))}`);
  if (row.report) {
    const r = row.report;
    const pr = r.pr ? `, pr ${escapeMarkdown(r.pr)}` : '';
    const reason = r.reason ? `, reason ${escapeMarkdown(r.reason)}` : '';
    const summary = r.summary ? `  \n${escapeMarkdown(r.summary)}` : '';
    lines.push(
      '',
      `Completion report: ticket ${escapeMarkdown(r.ticket)}, status **${r.status}**${pr}${reason}${summary}`,
    );
  }
  if (row.malformedReport) {
    const m = row.malformedReport;
    lines.push(
      '',
      `Malformed completion report (${escapeMarkdown(m.problem)}): a person must read it; it is never woken over.  \n${escapeMarkdown(oneLine(m.raw, 500))}`,
    );
  }
  return lines.join('\n');
}
