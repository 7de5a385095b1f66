// The page's model of the fleet: what `/api/fleet` (or `/api/status`) answers, read defensively
// into backends > directories > rows, the attention list (waiting for you, escalated, stuck, hung,
// over budget) and the changes the event stream brings (`row`, `removed`). Pure: no DOM, unit-tested
// in Node. Every string here is shown with textContent, never as markup.
import type { StatusProvider, StatusSession } from '../core/health/status-document';
import type { QuestionItem } from '../core/model';
import { ATTENTION_ORDER, attentionOf, type AttentionReason } from '../core/watch/api/attention';

/** A pending permission or question of a row, with what the person answers it from. */
export interface PageRequest {
  kind: 'permission' | 'question';
  requestID: string;
  title: string;
  permission: { tool: string; patterns: string[]; always: string[] } | null;
  questions: QuestionItem[];
}

/** What `/api/fleet` adds to a row's waiting request: the permission's patterns or the questions. */
export type WaitingDetail =
  | { kind: 'permission'; tool: string; patterns: string[]; always: string[] }
  | { kind: 'question'; questions: QuestionItem[] };

/** One session's row: the `status --json` session, plus what `/api/fleet` adds. */
export type PageRow = StatusSession & {
  waitingDetail?: WaitingDetail | null;
  /** A scheduled retry (wait-for-reset): the reset it waits for, when it fires. */
  retry?: { at: number; firesAt: number } | null;
};

export interface PageDirectory {
  directory: string;
  rows: PageRow[];
  error: string | null;
}

export interface PageBackend {
  /** The backend key (its URL with a trailing slash): the deep link's and the act routes' `backend`. */
  key: string;
  name: string;
  dialect: string | null;
  error: string | null;
  directories: PageDirectory[];
  providers: StatusProvider[];
}

export interface PageFleet {
  backends: PageBackend[];
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** A row is usable when it has an id and a headline; anything else in it is read where shown. */
function asRow(v: unknown): PageRow | null {
  if (!isObj(v) || typeof v.id !== 'string') return null;
  return v as unknown as PageRow;
}

function keyOf(b: Json): string {
  const key = str(b.key) ?? str(b.baseUrl);
  if (key) return key.endsWith('/') ? key : `${key}/`;
  const doc = arr(b.documents).find(isObj);
  const base = doc ? str(doc.baseUrl) : null;
  return base ? `${base}/` : (str(b.name) ?? str(b.backend) ?? '?');
}

function directoryOf(d: unknown): PageDirectory | null {
  if (!isObj(d)) return null;
  const directory = str(d.directory);
  if (directory === null) return null;
  const rows = arr(d.rows ?? d.sessions)
    .map(asRow)
    .filter((r): r is PageRow => r !== null);
  const errors = arr(d.errors).filter(isObj);
  const error =
    str(d.error) ??
    (errors
      .filter((e) => e.sessionId === null)
      .map((e) => str(e.message))
      .find((m) => m) ||
      null);
  return { directory, rows, error };
}

/**
 * The fleet from `/api/fleet` ({backends: [...]}) or `/api/status` (an array of backends with a
 * `status --json` document per directory). Throws when the answer is neither.
 */
export function readFleet(answer: unknown): PageFleet {
  const list = Array.isArray(answer) ? answer : isObj(answer) ? answer.backends : undefined;
  if (!Array.isArray(list)) throw new Error('the fleet answer has no list of backends');
  const backends: PageBackend[] = [];
  for (const b of list) {
    if (!isObj(b)) continue;
    const dirs = arr(b.directories ?? b.documents)
      .map(directoryOf)
      .filter((d): d is PageDirectory => d !== null);
    const providers = arr(b.providers).length
      ? arr(b.providers)
      : (arr(b.documents)
          .filter(isObj)
          .map((d) => d.providers)
          .find(Array.isArray) ?? []);
    backends.push({
      key: keyOf(b),
      name: str(b.name) ?? str(b.backend) ?? keyOf(b),
      dialect:
        str(b.dialect) ??
        str(b.engine) ??
        (arr(b.documents)
          .filter(isObj)
          .map((d) => str(d.dialect))
          .find((x) => x) ||
          null),
      error: str(b.error),
      directories: dirs,
      providers: (providers as unknown[]).filter(isObj) as unknown as StatusProvider[],
    });
  }
  return { backends };
}

/** The providers of `/api/providers` merged over the fleet's (by backend key or name). */
export function withProviders(fleet: PageFleet, answer: unknown): PageFleet {
  const list = Array.isArray(answer) ? answer : isObj(answer) ? answer.backends : undefined;
  if (!Array.isArray(list)) return fleet;
  const byKey = new Map<string, StatusProvider[]>();
  for (const b of list) {
    if (!isObj(b) || !Array.isArray(b.providers)) continue;
    const providers = b.providers.filter(isObj) as unknown as StatusProvider[];
    byKey.set(keyOf(b), providers);
    const name = str(b.name);
    if (name) byKey.set(`name:${name}`, providers);
  }
  return {
    backends: fleet.backends.map((b) => ({
      ...b,
      providers: byKey.get(b.key) ?? byKey.get(`name:${b.name}`) ?? b.providers,
    })),
  };
}

// ------------------------------------------------------------------ attention

export { ATTENTION_ORDER, attentionOf, type AttentionReason } from '../core/watch/api/attention';

export const ATTENTION_LABEL: Readonly<Record<AttentionReason, string>> = {
  waiting: 'waiting for you',
  escalated: 'escalated',
  stuck: 'stuck',
  hung: 'hung',
  'over-budget': 'over budget',
};

export interface AttentionItem {
  backend: PageBackend;
  directory: string;
  row: PageRow;
  reasons: AttentionReason[];
}

/** Every row that needs a person, the most pressing reason first (stable within a reason). */
export function attentionList(fleet: PageFleet): AttentionItem[] {
  const items: AttentionItem[] = [];
  for (const backend of fleet.backends)
    for (const d of backend.directories)
      for (const row of d.rows) {
        const reasons = attentionOf(row);
        if (reasons.length) items.push({ backend, directory: d.directory, row, reasons });
      }
  const rank = (i: AttentionItem) => ATTENTION_ORDER.indexOf(i.reasons[0]);
  return items
    .map((item, n) => ({ item, n }))
    .sort((a, b) => rank(a.item) - rank(b.item) || a.n - b.n)
    .map((x) => x.item);
}

/** The pending request of a row (its `waiting`, with the detail `/api/fleet` adds), or none. */
export function requestsOf(row: PageRow): PageRequest[] {
  if (!row.waiting) return [];
  const d = row.waitingDetail;
  return [
    {
      kind: row.waiting.kind,
      requestID: row.waiting.requestID,
      title: row.waiting.title,
      permission: d?.kind === 'permission' ? { tool: d.tool, patterns: d.patterns, always: d.always } : null,
      questions: d?.kind === 'question' ? d.questions : [],
    },
  ];
}

// ------------------------------------------------------------------ events

/** Applies a `row` event ({backend, directory, row}); a row of a directory not shown adds it. */
export function applyRow(fleet: PageFleet, data: unknown): PageFleet {
  if (!isObj(data)) return fleet;
  const row = asRow(data.row);
  const directory = str(data.directory);
  const backendId = str(data.backend);
  if (!row || directory === null || backendId === null) return fleet;
  return {
    backends: fleet.backends.map((b) => {
      if (b.key !== backendId && b.name !== backendId && b.key !== `${backendId}/`) return b;
      const has = b.directories.some((d) => d.directory === directory);
      const directories = has
        ? b.directories.map((d) => {
            if (d.directory !== directory) return d;
            const i = d.rows.findIndex((r) => r.id === row.id);
            const rows = i < 0 ? [...d.rows, row] : d.rows.map((r, n) => (n === i ? row : r));
            return { ...d, rows };
          })
        : [...b.directories, { directory, rows: [row], error: null }];
      return { ...b, directories };
    }),
  };
}

/** Applies a `removed` event ({backend, directory, sessionId}). */
export function applyRemoved(fleet: PageFleet, data: unknown): PageFleet {
  if (!isObj(data)) return fleet;
  const id = str(data.sessionId) ?? str(data.id);
  const backendId = str(data.backend);
  if (id === null || backendId === null) return fleet;
  const directory = str(data.directory);
  return {
    backends: fleet.backends.map((b) =>
      b.key !== backendId && b.name !== backendId && b.key !== `${backendId}/`
        ? b
        : {
            ...b,
            directories: b.directories.map((d) =>
              directory !== null && d.directory !== directory ? d : { ...d, rows: d.rows.filter((r) => r.id !== id) },
            ),
          },
    ),
  };
}

/** The row of a session (and its backend and directory), or null. */
export function findRow(
  fleet: PageFleet,
  backendKey: string,
  sessionId: string,
): { backend: PageBackend; directory: string; row: PageRow } | null {
  for (const backend of fleet.backends) {
    if (backend.key !== backendKey && backend.name !== backendKey) continue;
    for (const d of backend.directories) {
      const row = d.rows.find((r) => r.id === sessionId);
      if (row) return { backend, directory: d.directory, row };
    }
  }
  return null;
}

// ------------------------------------------------------------------ text

/** "$1.23" (two decimals, four under a cent), or "" when not reported. */
export function costText(row: Pick<PageRow, 'cost' | 'costPending'>): string {
  if (!row.cost) return row.costPending ? 'cost pending' : '';
  const usd = row.cost.usd;
  return `$${usd > 0 && usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/** "in 5 min", "3 h ago" ... relative to `now`. */
export function relativeTime(at: number, now: number): string {
  const s = Math.round((at - now) / 1000);
  const abs = Math.abs(s);
  const unit =
    abs < 90
      ? `${abs} s`
      : abs < 5400
        ? `${Math.round(abs / 60)} min`
        : abs < 129600
          ? `${Math.round(abs / 3600)} h`
          : `${Math.round(abs / 86400)} d`;
  return s >= 0 ? `in ${unit}` : `${unit} ago`;
}
