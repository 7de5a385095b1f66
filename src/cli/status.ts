// `session-ops status`: two-sample health verdicts and the action per session. Read-only: only
// GET requests (session list, newest messages, provider listing), never a POST.
//   exit 0  both samples were taken (a session that vanished mid-round reads unknown, still 0)
//   exit 1  the backend, or a session's newest message, could not be read (message on stderr)
//   exit 2  usage error
//   exit 6  --budget-usd N: a session's cost (with its sub-agents') reached N
import { systemClock, type Clock } from '../core/clock';
import type { BackendClient } from '../core/backend/client';
import { plainHttpWarning } from '../core/config/backends';
import {
  backendArgs,
  BACKEND_OPTIONS,
  clientFor,
  ENVIRONMENT_HELP,
  numberOption,
  readingBackend,
  UsageError,
  type ParsedArgs,
} from './args';
import { defineCommand, runCommand, type CommandIo } from './command';
import { EXIT } from './exit-codes';
import { withMarkStore } from './mark-store';
import type { ProviderScope } from '../core/health/provider-choice';
import { providersArg } from './action-io';
import { MessageLedger } from '../core/cost/message-ledger';
import { assessSettled, collectSettledSamples } from '../core/health/sampling';
import { buildStatusDocument, type StatusDocument } from '../core/health/status-document';
import { MIN_SPACING_MS } from '../core/health/verdict';
import type { QuotaMarkBook } from '../core/backend/quota-marks';
import { COST_NOT_REPORTED, formatUsd } from '../core/cost/rollup';
import { flagDefault, settingFlag, settingsFromFlags, type SettingFlag } from './setting-flags';

const USAGE = `Usage: session-ops status --base-url URL --directory DIR [options]

Samples every session of DIR twice, SPACING seconds apart, and prints the health verdict
(healthy, idle, hung, or waiting: a pending permission or question needs a person), any quota wall, any completion report and the recommended action.
Read-only: it never aborts or prompts anything (GET requests only; on stock opencode it also
listens to the event stream between samples, so a session still streaming is not called hung).

Options:
  --base-url URL            backend base URL (opencode server or spec-compatible)
  --directory DIR           working directory whose sessions are listed
  --spacing SECONDS         seconds between samples (default ${flagDefault('--spacing')}; 30 to 60)
  --allow-short-spacing     accept a spacing under 30 s (for tests only)
  --max-samples N           sample again, up to N samples in all, while samples disagree (default 4)
  --reset-within-reach MIN  a provider reset this many minutes away is waited for (default ${flagDefault('--reset-within-reach')})
  --retry-wall-minutes MIN  a rate-limit retry whose next attempt is this far away is a quota
                            wall; a shorter one is the backend retrying (default ${flagDefault('--retry-wall-minutes')})
  --tool-ceiling-minutes MIN  a tool running this long with nothing else moving is hung (default ${flagDefault('--tool-ceiling-minutes')})
  --mark-max-age-minutes MIN  a remembered quota mark without a reset time ends after this (default ${flagDefault('--mark-max-age-minutes')})
  --timeout SECONDS         per-request timeout (default 15)
  --providers A,B           providers a recovery may choose (default: any connected one); an empty
                            value ("") means the configured ones, without the built-in opencode
  --budget-usd N            mark the sessions whose cost (with their sub-agents') reached N US
                            dollars ("overBudget": true) and exit 6 when any did
  --json                    print the JSON document instead of a table

Example:
  session-ops status --base-url http://127.0.0.1:4096 --directory "$PWD" --json

Cost: per session the US dollars and tokens the backend reports (stock opencode: its own totals,
with its sub-agents' added), in all and per provider; "not reported by this backend" (null in
the JSON) when the backend shows none. "messages" is the number of assistant messages counted:
where messages carry their own figures (stock opencode) each session's transcript is read once,
in pages (limit and before, each under the body cap), then only what is newer when it moved,
never on the liveness read and at most 64 pages (10 s) per sample; a backend whose list has no
totals gets usd and tokens from that sum too. A session not summed yet reads "counting"
("costPending": true, and its cost, or its "messages", null), never 0.

Exit codes: 0 both samples were taken, 1 the backend or a session's newest message could not be
read, 2 usage, 6 a session reached --budget-usd.
${ENVIRONMENT_HELP}`;

export interface StatusIo extends CommandIo {
  env: Record<string, string | undefined>;
  /** The one clock (src/core/clock.ts): the time read and the waits between samples. */
  clock: Clock;
}

interface StatusOptions {
  baseUrl: string;
  directory: string;
  spacingMs: number;
  allowShort: boolean;
  maxSamples: number;
  reachMs: number;
  retryWaitMs: number;
  toolCeilingMs: number;
  markMaxAgeMs: number;
  timeoutMs: number;
  json: boolean;
  providers: ProviderScope | null;
  /** --budget-usd; null: none. */
  budgetUsd: number | null;
}

const FLAGS = ['--allow-short-spacing', '--json'];
const SETTING_OPTIONS: SettingFlag[] = [
  '--spacing',
  '--reset-within-reach',
  '--retry-wall-minutes',
  '--tool-ceiling-minutes',
  '--mark-max-age-minutes',
];
const OPTIONS = [...BACKEND_OPTIONS, ...SETTING_OPTIONS, '--max-samples', '--timeout', '--providers', '--budget-usd'];

function statusOptions(parsed: ParsedArgs): StatusOptions {
  const { baseUrl, directory } = backendArgs(parsed);
  const number = (flag: string, fallback: number, min: number) => numberOption(parsed, flag, fallback, min);
  const flags = parsed.flags;
  const settings = settingsFromFlags(parsed, SETTING_OPTIONS);
  const allowShort = flags.has('--allow-short-spacing');
  if (settings.spacingMs < MIN_SPACING_MS && !allowShort) {
    throw new UsageError(
      `--spacing ${settingFlag(parsed, '--spacing')} is under 30 s: two samples closer than 30 s cannot tell ` +
        "a hung session from a busy one (the spec's minimum); --allow-short-spacing exists for tests",
    );
  }
  return {
    baseUrl,
    directory,
    spacingMs: settings.spacingMs,
    allowShort,
    maxSamples: Math.floor(number('--max-samples', 4, 2)),
    reachMs: settings.resetWithinReachMs,
    retryWaitMs: settings.retryWaitMs,
    toolCeilingMs: settings.toolCeilingMs,
    markMaxAgeMs: settings.markMaxAgeMs,
    timeoutMs: Math.round(number('--timeout', 15, 0.1) * 1000),
    json: flags.has('--json'),
    providers: providersArg(parsed),
    budgetUsd: budgetArg(parsed),
  };
}

function budgetArg(parsed: ParsedArgs): number | null {
  if (!parsed.values.has('--budget-usd')) return null;
  const usd = numberOption(parsed, '--budget-usd', 0, 0);
  if (usd <= 0) throw new UsageError('--budget-usd must be a number of US dollars above 0');
  return usd;
}

const defaultIo = (): StatusIo => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  clock: systemClock,
});

export const statusCommand = defineCommand<StatusOptions, StatusIo>({
  name: 'status',
  usage: USAGE,
  args: { flags: FLAGS, options: OPTIONS },
  io: defaultIo,
  options: statusOptions,
  async run(args, io) {
    // Said once per run, on stderr, never in the JSON document.
    const plain = plainHttpWarning(args.baseUrl);
    if (plain) io.stderr(`session-ops status: warning: ${plain}\n`);
    return withMarkStore('status', args.baseUrl, io, io.clock.now, { maxAgeMs: args.markMaxAgeMs }, (marks) =>
      statusWith(args, io, marks),
    );
  },
});

export const runStatus = (argv: string[], io: Partial<StatusIo> = {}) => runCommand(statusCommand, argv, io);

async function statusWith(args: StatusOptions, io: StatusIo, marks: QuotaMarkBook): Promise<number> {
  const client = clientFor(args, io.env, { timeoutMs: args.timeoutMs, clock: io.clock, marks });
  return readingBackend('status', client, io, async () => {
    const doc = await collect(client, args, io);
    io.stdout(args.json ? `${JSON.stringify(doc)}\n` : renderTable(doc, io.clock.now()));
    for (const e of doc.errors) io.stderr(`session-ops status: ${e.message}\n`);
    // A session that vanished between the list and its message read is no read failure.
    if (doc.errors.some((e) => e.kind !== 'not-found')) return EXIT.failed;
    return doc.sessions.some((s) => s.overBudget) ? EXIT.overBudget : EXIT.done;
  });
}

async function collect(client: BackendClient, args: StatusOptions, io: StatusIo): Promise<StatusDocument> {
  const minSpacingMs = args.allowShort ? 0 : MIN_SPACING_MS;
  const settled = await collectSettledSamples(client, args.directory, {
    spacingMs: args.spacingMs,
    maxSamples: args.maxSamples,
    clock: io.clock,
    minSpacingMs,
    retryWaitMs: args.retryWaitMs,
    toolCeilingMs: args.toolCeilingMs,
    ledger: new MessageLedger(),
  });
  const listing = await client.listProviders(args.directory);
  const now = io.clock.now();
  const assessments = assessSettled(settled, listing, {
    now,
    resetWithinReachMs: args.reachMs,
    minSpacingMs,
    retryWaitMs: args.retryWaitMs,
    toolCeilingMs: args.toolCeilingMs,
    providers: args.providers,
  });
  const errors = settled.latest.unreadable.map((u) => ({
    sessionId: u.session.id,
    kind: u.error.code,
    message: u.error.message,
  }));
  return buildStatusDocument({
    assessments,
    listing,
    baseUrl: client.baseUrl,
    directory: args.directory,
    dialect: settled.dialect,
    sampledAt: settled.sampledAt,
    errors,
    warnings: settled.warnings,
    now,
    budgetUsd: args.budgetUsd,
  });
}

// ---- the readable table ------------------------------------------------------------------

/** "Cost      $0.0123 (local $0.0100, backup $0.0023)", or why there is none; how many are still counting. */
function costLine(doc: StatusDocument): string {
  const counting = doc.sessions.filter((s) => s.costPending).length;
  const pending = counting > 0 ? `${counting} session${counting === 1 ? '' : 's'} still counting` : '';
  if (!doc.cost) return `Cost      ${pending || (doc.sessions.length > 0 ? COST_NOT_REPORTED : '-')}`;
  const parts = Object.entries(doc.cost.byProvider).map(([p, usd]) => `${clean(p, 30)} ${formatUsd(usd)}`);
  const budget = doc.budgetUsd !== null ? `; budget ${formatUsd(doc.budgetUsd)} per session` : '';
  return `Cost      ${formatUsd(doc.cost.usd)}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}${budget}${pending ? `; ${pending}` : ''}`;
}

/** Server-supplied text never reaches the terminal with control characters (escape sequences). */
function clean(text: string, max = 60): string {
  const s = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function time(at: number | null): string {
  return at === null ? 'unknown' : new Date(at).toISOString().replace('.000Z', 'Z');
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows
    .map((r) =>
      r
        .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export function renderTable(doc: StatusDocument, now: number): string {
  const out: string[] = [];
  out.push(`Backend   ${doc.baseUrl} (${doc.dialect ?? 'dialect unknown: no sessions'})`);
  out.push(`Directory ${clean(doc.directory, 200)}`);
  const gaps = doc.sampledAt.slice(1).map((t, i) => `${Math.round((t - doc.sampledAt[i]) / 1000)} s`);
  out.push(`Samples   ${doc.sampledAt.length} (${gaps.join(', ')} apart), at ${time(now)}`);
  out.push('');
  if (doc.sessions.length === 0) out.push('No sessions.');
  else {
    // The WAITING FOR column appears when a session waits for a person (permission or question).
    const anyWaiting = doc.sessions.some((s) => s.waiting);
    const rows = [
      ['SESSION', 'TITLE', 'VERDICT', 'ACTION', ...(anyWaiting ? ['WAITING FOR'] : []), 'QUOTA WALL', 'REPORT', 'COST'],
    ];
    for (const s of doc.sessions) {
      const w = s.quotaWall;
      const wall = w
        ? `${w.category ?? 'inferred (provider marked)'} on ${clean(w.provider ?? '?', 20)}` +
          (w.resetAt ? `, reset ${time(w.resetAt)}` : '')
        : '-';
      const report = !s.report
        ? '-'
        : 'malformed' in s.report
          ? `malformed: read it (${clean(s.report.problem, 40)})`
          : `${s.report.status} ${clean(s.report.ticket, 20)}${s.report.pr ? ` pr=${clean(s.report.pr, 20)}` : ''}`;
      const abortFirst = s.abortFirst && s.action !== 'abort-and-wake' ? ' (abort first)' : '';
      const action = `${s.action}${abortFirst}${s.recoverOn ? ` on ${clean(s.recoverOn, 20)}` : ''}`;
      const waiting = s.waiting ? clean(s.waiting.title, 50) : '-';
      rows.push([
        clean(s.parentId ? `└ ${s.id}` : s.id, 42),
        clean(s.title ?? '', 30),
        `${s.verdict}${s.settled || s.unreadable ? '' : '?'}`,
        action,
        ...(anyWaiting ? [waiting] : []),
        wall,
        report,
        s.cost ? `${formatUsd(s.cost.usd)}${s.overBudget ? ' OVER BUDGET' : ''}` : s.costPending ? 'counting' : '-',
      ]);
    }
    out.push(table(rows));
    out.push('');
    for (const s of doc.sessions)
      out.push(`  ${clean(s.id, 40)}: ${clean(s.basis, 200)}; ${clean(s.actionBasis, 200)}`);
    if (doc.sessions.some((s) => !s.settled && !s.unreadable))
      out.push('  (? = the samples never agreed: no action until they do)');
  }
  out.push('');
  if (doc.providers.length === 0) out.push('No connected or marked provider.');
  else {
    const rows = [['PROVIDER', 'CONNECTED', 'QUOTA']];
    for (const p of doc.providers) {
      const age = p.quota ? ` (${Math.round((p.quota.ageMs ?? now - p.quota.markedAt) / 60_000)} min ago)` : '';
      rows.push([
        clean(p.id, 40),
        p.connected ? 'yes' : 'no',
        p.quota
          ? `marked ${time(p.quota.markedAt)}${age}${p.category ? ` ${p.category}` : ''}, reset ${time(p.quota.resetAt)}`
          : '-',
      ]);
    }
    out.push(table(rows));
  }
  out.push(costLine(doc));
  const marked = doc.providers.some((p) => p.quota);
  out.push(`All providers free at: ${marked ? time(doc.allFreeAt) : 'now (none is marked)'}`);
  for (const w of doc.warnings) out.push(`warning: ${clean(w, 200)}`);
  return `${out.join('\n')}\n`;
}
