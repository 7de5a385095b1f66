// Which sessions are in automatic mode's charge, and why one is not (the row's `automaticSkip`).
// Automatic mode (editor and daemon alike) acts only on a session in its charge; a person may
// still act on any session by hand. A session is out of its charge when it is
//   sub-agent     a sub-agent session (it has a parent): its state shows on the parent's row;
//   stuck         it needs a wake again after automatic.maxConsecutiveWakes automatic wakes that
//                 each ended idle without a completion report: a person decides (the count starts
//                 again when a report arrives or a person acts on the session);
//   too-old       its newest message is older than automatic.maxAgeHours;
//   age-unknown   its newest message's time was not read (nothing says it is recent);
//   not-ticketed  automatic.onlyTicketed is on and its task names no ticket: the durable record of
//                 its assignment (a dispatch or fact baseline Session Ops sent, with a ticket) or
//                 its first user message carrying a ticket reference (ticketReference below);
//   authority     its assignment names another orchestrator than the one this operator speaks
//                 for, or its claim could not be verified from the durable record (authority
//                 rules 1 and 2: the operator adds it, operator.ts, once it was read).
// The first that applies, in this order, is the reason. Pure; the streak memory below is what
// the operator persists.
import type { Action, EpochMs } from '../model';
import type { SessionRow } from '../monitor/row';
import type { ChargeSettings } from '../settings/operator-settings';
import { directorySessionKey, parseRowKey } from '../keys';
import { newestTimes, OPERATOR_STATE_KEEP_MS } from './memory-bounds';

export type AutomaticSkip = 'sub-agent' | 'stuck' | 'too-old' | 'age-unknown' | 'not-ticketed' | 'authority';
export const AUTOMATIC_SKIPS: readonly AutomaticSkip[] = [
  'sub-agent',
  'stuck',
  'too-old',
  'age-unknown',
  'not-ticketed',
  'authority',
];

/** Why automatic mode leaves a session alone: the reason and one line for the row. */
export interface OutOfCharge {
  reason: AutomaticSkip;
  text: string;
  /** stuck: the automatic wakes without a report. */
  wakes?: number;
}

/** What the operator knows of a session beyond its row. */
export interface ChargeFacts {
  now: EpochMs;
  /** Automatic wakes of the session since its last completion report or a person's action. */
  wakes: number;
  /** The ticket its task names (a dispatch Session Ops made), or null. */
  ticket: string | null;
}

/** The actions that send a wake prompt (what counts towards stuck). */
const WAKES: ReadonlySet<Action> = new Set<Action>(['wake', 'abort-and-wake', 'recover']);

export function isWakeAction(action: Action | string | null): boolean {
  return action !== null && WAKES.has(action as Action);
}

const HOUR = 3_600_000;

function age(ms: number): string {
  const hours = ms / HOUR;
  return hours >= 48 ? `${Math.floor(hours / 24)} d` : `${Math.floor(hours)} h`;
}

function hours(ms: number): string {
  return `${Math.round((ms / HOUR) * 100) / 100} h`;
}

/** Why the session is not in automatic mode's charge, or null when it is. */
export function outOfCharge(row: SessionRow, settings: ChargeSettings, facts: ChargeFacts): OutOfCharge | null {
  if (row.parentId)
    return {
      reason: 'sub-agent',
      text: `sub-agent of ${row.parentId}: automatic mode leaves it to its parent; act on it by hand`,
    };
  if (isWakeAction(row.action) && !row.report && facts.wakes >= settings.maxConsecutiveWakes)
    return {
      reason: 'stuck',
      text: `stuck: woken ${facts.wakes} times without a report; a person decides`,
      wakes: facts.wakes,
    };
  const newestAt = row.evidence.latest.newestAt ?? null;
  if (newestAt === null)
    return {
      reason: 'age-unknown',
      text: "the newest message's time is unknown: automatic mode leaves it alone",
    };
  if (facts.now - newestAt > settings.maxAgeMs)
    return {
      reason: 'too-old',
      text: `newest message ${age(facts.now - newestAt)} old (over automatic.maxAgeHours, ${hours(settings.maxAgeMs)})`,
    };
  if (settings.onlyTicketed && !facts.ticket)
    return { reason: 'not-ticketed', text: 'its task names no ticket (automatic.onlyTicketed)' };
  return null;
}

/**
 * A ticket reference, as automatic.onlyTicketed reads a worker's first user message (conservative):
 * a tracker key `PROJECT-123` (2 to 10 capital letters or digits, a letter first) or `#123`; not a
 * name of a standard that reads like one (UTF-8, ISO-8601, SHA-256, RFC-9110, CVE-..., GPT-4 ...).
 */
const TICKET_REFERENCE = /^(?:[A-Z][A-Z0-9]{1,9}-[1-9][0-9]{0,8}|#[1-9][0-9]{0,8})$/;
const NOT_TICKETS = new Set([
  'UTF',
  'UCS',
  'ISO',
  'SHA',
  'MD',
  'RFC',
  'CVE',
  'CWE',
  'GPT',
  'HTTP',
  'TLS',
  'SSL',
  'AES',
  'RSA',
  'IEEE',
  'ECMA',
  'PEP',
  'ES',
  'X',
]);

/** `ticket` when it is a ticket reference by that pattern, else null. */
export function ticketReference(ticket: string | null | undefined): string | null {
  if (!ticket || !TICKET_REFERENCE.test(ticket)) return null;
  return ticket.startsWith('#') || !NOT_TICKETS.has(ticket.slice(0, ticket.indexOf('-'))) ? ticket : null;
}

/** One session's automatic wakes without a report, and when the count last changed. */
export interface WakeStreak {
  count: number;
  changedAt: EpochMs;
}

/**
 * The key of a session's wake count: its directory and id, the same for every process that names
 * the session (the editor and the daemon by their backend configuration, the CLI by its --base-url).
 */
export function wakeKey(directory: string, sessionId: string): string {
  return directorySessionKey(directory, sessionId);
}

/** The wake key of a row key (null: not a row key). */
export function wakeKeyOfRow(rowKey: string): string | null {
  const parsed = parseRowKey(rowKey);
  return parsed ? wakeKey(parsed.directory, parsed.sessionId) : null;
}

/**
 * Per session, the automatic wakes since its last completion report or a person's action. A reset
 * is kept as a count of 0 with its time, so that merging with an older file never brings back the
 * old count. Entries unchanged for the keep time are forgotten (at most the newest 5,000 kept).
 */
export class WakeStreaks {
  private readonly streaks = new Map<string, WakeStreak>();

  constructor(private readonly now: () => EpochMs) {}

  count(key: string): number {
    return this.streaks.get(key)?.count ?? 0;
  }

  /** An automatic wake went out; the new count. */
  woke(key: string): number {
    const count = this.count(key) + 1;
    this.streaks.set(key, { count, changedAt: this.now() });
    return count;
  }

  /** A report arrived or a person acted: whether a count was reset. */
  reset(key: string): boolean {
    if (this.count(key) === 0) return false;
    this.streaks.set(key, { count: 0, changedAt: this.now() });
    return true;
  }

  /** Whether any session's count reached `max` (automatic mode then re-reads the state file for a person's reset). */
  anyAtLeast(max: number): boolean {
    for (const s of this.streaks.values()) if (s.count >= max) return true;
    return false;
  }

  /** Whether any session has a count above 0. */
  get counting(): boolean {
    for (const s of this.streaks.values()) if (s.count > 0) return true;
    return false;
  }

  /** The memory to persist (pruned). */
  memory(): Record<string, WakeStreak> {
    return pruneStreaks(Object.fromEntries(this.streaks), this.now());
  }

  /** Adds a persisted memory: per session the newest change wins. Whether a count changed. */
  remember(memory: Record<string, WakeStreak>): boolean {
    let changed = false;
    for (const [k, s] of Object.entries(memory)) {
      const have = this.streaks.get(k);
      if (!have || s.changedAt > have.changedAt) {
        changed ||= (have?.count ?? 0) !== s.count;
        this.streaks.set(k, { count: s.count, changedAt: s.changedAt });
      }
    }
    const kept = pruneStreaks(Object.fromEntries(this.streaks), this.now());
    this.streaks.clear();
    for (const [k, s] of Object.entries(kept)) this.streaks.set(k, s);
    return changed;
  }
}

/** The state-file entry saying a person acted on the session now (its count starts again). */
export function personActed(directory: string, sessionId: string, now: EpochMs): Record<string, WakeStreak> {
  return { [wakeKey(directory, sessionId)]: { count: 0, changedAt: now } };
}

/** Two memories merged (per session the newest change), pruned at `now`. */
export function mergeStreaks(
  a: Record<string, WakeStreak>,
  b: Record<string, WakeStreak>,
  now: EpochMs,
): Record<string, WakeStreak> {
  const out: Record<string, WakeStreak> = { ...a };
  for (const [k, s] of Object.entries(b)) if (!out[k] || s.changedAt >= out[k].changedAt) out[k] = s;
  return pruneStreaks(out, now);
}

function pruneStreaks(all: Record<string, WakeStreak>, now: EpochMs): Record<string, WakeStreak> {
  const kept = newestTimes(
    Object.entries(all).map(([k, s]): [string, EpochMs] => [k, s.changedAt]),
    now - OPERATOR_STATE_KEEP_MS,
  );
  return Object.fromEntries(kept.map(([k]) => [k, all[k]]));
}

/** A dispatch Session Ops made: the ticket its task names (null: none named), and when. */
export interface DispatchRecord {
  ticket: string | null;
  at: EpochMs;
}

/** The dispatches made, per session row key (persisted; per session the newest wins; pruned like the rest). */
export class DispatchRecords {
  private readonly records = new Map<string, DispatchRecord>();

  constructor(private readonly now: () => EpochMs) {}

  note(rowKey: string, ticket: string | null): void {
    this.records.set(rowKey, { ticket, at: this.now() });
  }

  ticket(rowKey: string): string | null {
    return this.records.get(rowKey)?.ticket ?? null;
  }

  memory(): Record<string, DispatchRecord> {
    return mergeDispatches({}, Object.fromEntries(this.records), this.now());
  }

  remember(memory: Record<string, DispatchRecord>): void {
    for (const [k, r] of Object.entries(mergeDispatches(Object.fromEntries(this.records), memory, this.now())))
      this.records.set(k, r);
  }
}

/** Two records merged (per session the newest dispatch), pruned at `now`. */
export function mergeDispatches(
  a: Record<string, DispatchRecord>,
  b: Record<string, DispatchRecord>,
  now: EpochMs,
): Record<string, DispatchRecord> {
  const all: Record<string, DispatchRecord> = { ...a };
  for (const [k, r] of Object.entries(b)) if (!all[k] || r.at >= all[k].at) all[k] = r;
  const kept = newestTimes(
    Object.entries(all).map(([k, r]): [string, EpochMs] => [k, r.at]),
    now - OPERATOR_STATE_KEEP_MS,
  );
  return Object.fromEntries(kept.map(([k]) => [k, all[k]]));
}
