// Reads what an attached daemon answers (`GET /api/fleet`, `GET /api/providers`, an `/api/events`
// `row`; docs/daemon-api.md) into the shapes the views render for a directly sampled backend:
// SessionRow (badge by the one precedence of health/precedence, the same action gate as
// monitor/to-row) and ProviderListing. Defensive: a row without an id or a known state is left out
// and counted, never guessed. The daemon's evidence is its own (it sampled), so a row carries the
// state it read and no sample pair of this window. Pure; never imports 'vscode'.
import type { Headline } from '../health/precedence';
import { rowKey } from '../keys';
import type {
  Action,
  CompletionReport,
  EpochMs,
  FailureCategory,
  MalformedReport,
  ProviderListing,
  ProviderRecord,
  QuestionItem,
  SessionState,
  Verdict,
} from '../model';
import type { ActedBy, Badge, SessionRow, WaitingView } from '../monitor/row';
import { isObject, type DaemonApiError } from './client';

type Json = Record<string, unknown>;

const VERDICTS = new Set<Verdict>(['healthy', 'idle', 'hung', 'waiting']);
const HEADLINES = new Set<Headline>([
  'unreadable',
  'quota-wall',
  'malformed-report',
  'report',
  'healthy',
  'idle',
  'hung',
  'waiting',
  'pending',
]);

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The badge a row's headline reads as (as monitor/to-row's badgeOf). */
function badgeOfHeadline(head: Headline, report: CompletionReport | null): Badge {
  switch (head) {
    case 'unreadable':
    case 'pending':
      return 'unknown';
    case 'report':
      return report ? `report-${report.status}` : 'unknown';
    default:
      return head;
  }
}

function waitingOf(s: Json): WaitingView | null {
  const w = isObject(s.waiting) ? s.waiting : null;
  if (!w) return null;
  const kind = w.kind === 'permission' || w.kind === 'question' ? w.kind : null;
  const requestID = str(w.requestID);
  if (!kind || !requestID) return null;
  const d = isObject(s.waitingDetail) ? s.waitingDetail : null;
  const detail: WaitingView['detail'] =
    kind === 'permission'
      ? {
          kind: 'permission',
          tool: str(d?.tool) ?? '',
          patterns: Array.isArray(d?.patterns) ? d.patterns.filter((p): p is string => typeof p === 'string') : [],
          always: Array.isArray(d?.always) ? d.always.filter((p): p is string => typeof p === 'string') : [],
        }
      : {
          kind: 'question',
          questions: Array.isArray(d?.questions) ? (d.questions.filter(isObject) as unknown as QuestionItem[]) : [],
        };
  return { kind, title: str(w.title) ?? kind, requestID, detail };
}

function reportOf(v: unknown): { report: CompletionReport | null; malformed: MalformedReport | null } {
  if (!isObject(v)) return { report: null, malformed: null };
  if (v.malformed === true) return { report: null, malformed: v as unknown as MalformedReport };
  if (typeof v.ticket === 'string' && (v.status === 'done' || v.status === 'blocked' || v.status === 'handoff'))
    return { report: v as unknown as CompletionReport, malformed: null };
  return { report: null, malformed: null };
}

export interface FleetRowContext {
  /** The window's key of the backend (the daemon's key, then the daemon backend's key). */
  backendKey: string;
  directory: string;
  /** When the daemon sampled the directory last (its document's sampledAt), else now. */
  sampledAt: EpochMs;
  /** The directory's provider marks (for a wall's markedAt). */
  providers: readonly ProviderRecord[];
  actedBy?: ActedBy | null;
}

/** A fleet session as a SessionRow, or null when it is not a session row (no id, no known state). */
export function rowOfFleetSession(v: unknown, ctx: FleetRowContext): SessionRow | null {
  if (!isObject(v)) return null;
  const id = str(v.id);
  const state = v.state === 'generating' || v.state === 'idle' ? (v.state as SessionState) : null;
  if (!id || !state) return null;
  const head: Headline = HEADLINES.has(v.headline as Headline) ? (v.headline as Headline) : 'pending';
  const { report, malformed } = reportOf(v.report);
  const settled = v.settled === true;
  const verdict = head === 'pending' || !VERDICTS.has(v.verdict as Verdict) ? null : (v.verdict as Verdict);
  const unreadable = str(v.unreadable);
  const w = isObject(v.quotaWall) ? v.quotaWall : null;
  const provider = w ? str(w.provider) : null;
  const mark = provider ? ctx.providers.find((p) => p.id === provider)?.quota : null;
  const rawAction = str(v.action) as Action | null;
  const action = unreadable ? null : settled || report || malformed || w ? rawAction : null;
  const cost = isObject(v.cost) && num(v.cost.usd) !== null ? (v.cost as unknown as SessionRow['cost']) : null;
  return {
    key: rowKey(ctx.backendKey, ctx.directory, id),
    backendKey: ctx.backendKey,
    directory: ctx.directory,
    id,
    title: str(v.title),
    badge: badgeOfHeadline(head, report),
    verdict,
    action,
    pending: verdict === null ? (str(v.basis) ?? 'no verdict yet') : null,
    state,
    stepCount: num(v.stepCount),
    lastMovedAt: null,
    model: null,
    quotaWall: w
      ? {
          provider,
          reason: str(w.reason),
          category: (str(w.category) as FailureCategory | null) ?? null,
          resetAt: num(w.resetAt),
          markedAt: mark?.markedAt ?? null,
          observed: (str(w.observed) as NonNullable<SessionRow['quotaWall']>['observed']) ?? undefined,
        }
      : null,
    report,
    malformedReport: malformed,
    failureText: null,
    newestText: null,
    evidence: {
      earlier: null,
      latest: {
        at: ctx.sampledAt,
        state,
        stepCount: num(v.stepCount),
        lastStepAt: num(v.lastStepAt),
        newestId: str(v.newestId),
        newestRole: str(v.newestRole),
      },
    },
    waiting: verdict === 'waiting' ? waitingOf(v) : null,
    todos: null,
    parentId: str(v.parentId),
    engine: v.engine === 'api' || v.engine === 'legacy' ? v.engine : null,
    retrying: null,
    unreadable,
    cost,
    budgetLevel: v.overBudget === true ? 100 : 0,
    actedBy: ctx.actedBy ?? null,
  };
}

/** The provider records of a `/api/providers` backend or a fleet directory (`StatusProvider`s). */
export function providerRecords(list: unknown): ProviderRecord[] {
  if (!Array.isArray(list)) return [];
  const out: ProviderRecord[] = [];
  for (const p of list) {
    if (!isObject(p) || typeof p.id !== 'string') continue;
    const q = isObject(p.quota) ? p.quota : null;
    const markedAt = q ? num(q.markedAt) : null;
    out.push({
      id: p.id,
      name: str(p.name),
      connected: p.connected === true,
      quota:
        q && markedAt !== null
          ? {
              markedAt,
              resetAt: num(q.resetAt),
              category: (str(p.category) as FailureCategory | null) ?? null,
            }
          : null,
      models: Array.isArray(p.models) ? p.models.filter((m): m is string => typeof m === 'string') : [],
      ...(typeof p.defaultModel === 'string' ? { defaultModel: p.defaultModel } : {}),
      ...(isObject(p.variants) ? { variants: variantsOf(p.variants) } : {}),
    });
  }
  return out;
}

/** A provider's variant names per model (`/api/providers`); names only. */
function variantsOf(v: Record<string, unknown>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [model, names] of Object.entries(v))
    if (Array.isArray(names)) out[model] = names.filter((n): n is string => typeof n === 'string');
  return out;
}

export function providerListing(list: unknown): ProviderListing {
  const providers = providerRecords(list);
  return { providers, connected: providers.filter((p) => p.connected).map((p) => p.id) };
}

/** An audit entry (`outcome` event) as who acted, or null when it is not one. */
export function actedByOf(
  entry: unknown,
): { sessionId: string; backend: string; directory: string; acted: ActedBy } | null {
  if (!isObject(entry)) return null;
  const sessionId = str(entry.sessionId);
  const who = isObject(entry.who) ? entry.who : null;
  const outcome = isObject(entry.outcome) ? entry.outcome : null;
  const at = str(entry.at) ? Date.parse(entry.at as string) : NaN;
  if (!sessionId || !who || !outcome) return null;
  return {
    sessionId,
    backend: str(entry.backend) ?? '',
    directory: str(entry.directory) ?? '',
    acted: {
      by: str(who.name) ?? '?',
      kind: str(who.kind) ?? '?',
      action: str(entry.action) ?? '?',
      code: str(outcome.code) ?? '?',
      at: Number.isFinite(at) ? at : 0,
    },
  };
}

/** The reason a daemon cannot be read, in a person's words (never the token). */
export function reasonOf(err: DaemonApiError): string {
  switch (err.kind) {
    case 'unauthenticated':
      return err.message.startsWith('no token')
        ? err.message
        : 'the daemon does not know this token (401): run Session Ops: Set Daemon Token...';
    case 'forbidden':
      return 'the token is not allowed to read (403)';
    case 'rate-limited':
      return 'too many failed attempts from this address (429)';
    default:
      return err.message;
  }
}
