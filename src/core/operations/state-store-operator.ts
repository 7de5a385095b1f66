// What the operator plans and remembers, kept across a reload or a restart in the state directory
// (`operator-state.json`): scheduled retries, automatic mode's memory (the verdicts it acted on,
// its actions per session in the last hour, its wakes per session since the last report), the
// dispatches made (with the ticket each named), the completion reports a person has seen, and who
// assigned each worker (authority rules 1 and 2: Session Ops' dispatch records and the
// orchestrator a worker's first user message names, read once).
// Every entry carries when it changed, so two writers merge entry by entry: a retry's newest
// change (scheduled, cancelled or done) wins, memories are united. Old entries are pruned.
import path from 'node:path';
import type { AssignmentRecord } from '../actions/assignment';
import type { EpochMs } from '../model';
import { mergeDispatches, mergeStreaks, type DispatchRecord, type WakeStreak } from './charge';
import { newestTimes, OPERATOR_STATE_KEEP_MS } from './memory-bounds';
import { stateDir } from '../state/state-dir';
import { assignmentKey } from '../actions/assignment';
import { JsonStateFile, type StateCodec } from './state-store';

export const OPERATOR_STATE_FILE = 'operator-state.json';

export interface PersistedRetry {
  /** The session's row key. */
  key: string;
  sessionId: string;
  /** The reset the retry waits for. */
  at: EpochMs;
  state: 'scheduled' | 'cancelled' | 'done';
  /** When this entry last changed (the newest change wins a merge). */
  changedAt: EpochMs;
}

export interface OperatorState {
  version: 1;
  retries: Record<string, PersistedRetry>;
  /** Verdict keys automatic mode acted on, and when. */
  acted: Record<string, EpochMs>;
  /** Row key: times of automatic actions (the last hour only). */
  history: Record<string, EpochMs[]>;
  /** Report keys a person has seen, and when. */
  seen: Record<string, EpochMs>;
  /** Row key: automatic wakes since the session's last completion report or a person's action. */
  wakes: Record<string, WakeStreak>;
  /** Row key: the dispatch Session Ops made to the session (the ticket it named). */
  dispatched: Record<string, DispatchRecord>;
  /** Who assigned each worker (key: assignmentKey(directory, session id)). */
  assignments: Record<string, AssignmentRecord>;
}

const HOUR = 3_600_000;

export function emptyOperatorState(): OperatorState {
  return { version: 1, retries: {}, acted: {}, history: {}, seen: {}, wakes: {}, dispatched: {}, assignments: {} };
}

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function times(v: unknown): Record<string, EpochMs> {
  const out: Record<string, EpochMs> = {};
  if (isObject(v)) for (const [k, t] of Object.entries(v)) if (isTime(t)) out[k] = t;
  return out;
}

/** The state in a parsed file; malformed entries are dropped, anything not an operator state throws. */
export function parseOperatorState(json: unknown): OperatorState {
  if (!isObject(json) || json.version !== 1) throw new Error('not an operator state (version 1)');
  const state = emptyOperatorState();
  if (isObject(json.retries))
    for (const [key, r] of Object.entries(json.retries)) {
      if (!isObject(r) || r.key !== key || typeof r.sessionId !== 'string' || !isTime(r.at) || !isTime(r.changedAt))
        continue;
      if (r.state !== 'scheduled' && r.state !== 'cancelled' && r.state !== 'done') continue;
      state.retries[key] = { key, sessionId: r.sessionId, at: r.at, state: r.state, changedAt: r.changedAt };
    }
  if (isObject(json.assignments))
    for (const [key, a] of Object.entries(json.assignments)) {
      const entry = assignmentOf(a);
      if (entry && key === assignmentKey(entry.directory, entry.sessionId)) state.assignments[key] = entry;
    }
  state.acted = times(json.acted);
  state.seen = times(json.seen);
  if (isObject(json.wakes))
    for (const [k, w] of Object.entries(json.wakes))
      if (isObject(w) && Number.isSafeInteger(w.count) && (w.count as number) >= 0 && isTime(w.changedAt))
        state.wakes[k] = { count: w.count as number, changedAt: w.changedAt };
  if (isObject(json.dispatched))
    for (const [k, d] of Object.entries(json.dispatched))
      if (isObject(d) && (d.ticket === null || typeof d.ticket === 'string') && isTime(d.at))
        state.dispatched[k] = { ticket: d.ticket, at: d.at };
  if (isObject(json.history))
    for (const [k, list] of Object.entries(json.history))
      if (Array.isArray(list)) state.history[k] = list.filter(isTime);
  return state;
}

const SOURCES: readonly AssignmentRecord['source'][] = ['dispatch', 'fact-baseline', 'first-message'];
const optText = (v: unknown): v is string | null => v === null || (typeof v === 'string' && v.length <= 200);

function assignmentOf(a: unknown): AssignmentRecord | null {
  if (!isObject(a) || typeof a.directory !== 'string' || typeof a.sessionId !== 'string' || !isTime(a.at)) return null;
  if (!optText(a.orchestrator) || !optText(a.ticket) || !SOURCES.includes(a.source as AssignmentRecord['source']))
    return null;
  return {
    directory: a.directory,
    sessionId: a.sessionId,
    orchestrator: a.orchestrator,
    ticket: a.ticket,
    source: a.source as AssignmentRecord['source'],
    at: a.at,
  };
}

/** Which of two records of one worker stands: a dispatch or fact baseline outranks a first message; then the newer. */
export function newerAssignment(a: AssignmentRecord | undefined, b: AssignmentRecord): AssignmentRecord {
  if (!a) return b;
  const rank = (r: AssignmentRecord) => (r.source === 'first-message' ? 0 : 1);
  if (rank(a) !== rank(b)) return rank(a) > rank(b) ? a : b;
  return b.at >= a.at ? b : a;
}

function newest(entries: Record<string, EpochMs>, since: EpochMs): Record<string, EpochMs> {
  return Object.fromEntries(newestTimes(Object.entries(entries), since));
}

/** Both writers' entries: per retry the newest change, memories united; old entries pruned at `now`. */
export function mergeOperatorState(disk: OperatorState, mine: OperatorState, now: EpochMs): OperatorState {
  const since = now - OPERATOR_STATE_KEEP_MS;
  const retries: Record<string, PersistedRetry> = {};
  for (const r of [...Object.values(disk.retries), ...Object.values(mine.retries)]) {
    const have = retries[r.key];
    if (!have || r.changedAt >= have.changedAt) retries[r.key] = r;
  }
  for (const [k, r] of Object.entries(retries)) if (r.state !== 'scheduled' && r.changedAt < since) delete retries[k];
  const history: Record<string, EpochMs[]> = {};
  for (const k of new Set([...Object.keys(disk.history), ...Object.keys(mine.history)])) {
    const list = [...new Set([...(disk.history[k] ?? []), ...(mine.history[k] ?? [])])]
      .filter((t) => now - t < HOUR)
      .sort((a, b) => a - b);
    if (list.length) history[k] = list;
  }
  const unite = (a: Record<string, EpochMs>, b: Record<string, EpochMs>) => {
    const out = { ...a };
    for (const [k, t] of Object.entries(b)) out[k] = Math.max(out[k] ?? 0, t);
    return newest(out, since);
  };
  const assignments: Record<string, AssignmentRecord> = {};
  for (const [k, a] of [...Object.entries(disk.assignments), ...Object.entries(mine.assignments)])
    assignments[k] = newerAssignment(assignments[k], a);
  const kept = newestTimes(
    Object.entries(assignments).map(([k, a]) => [k, a.at] as [string, EpochMs]),
    since,
  );
  return {
    version: 1,
    retries,
    acted: unite(disk.acted, mine.acted),
    history,
    seen: unite(disk.seen, mine.seen),
    wakes: mergeStreaks(disk.wakes, mine.wakes, now),
    dispatched: mergeDispatches(disk.dispatched, mine.dispatched, now),
    assignments: Object.fromEntries(kept.map(([k]) => [k, assignments[k]])),
  };
}

export function operatorStateCodec(now: () => EpochMs): StateCodec<OperatorState> {
  return {
    empty: emptyOperatorState,
    parse: parseOperatorState,
    merge: (disk, mine) => mergeOperatorState(disk, mine, now()),
  };
}

/** The operator's state file in a state directory. */
export function operatorStateFile(stateDirectory: string, now: () => EpochMs): JsonStateFile<OperatorState> {
  return new JsonStateFile(path.join(stateDirectory, OPERATOR_STATE_FILE), operatorStateCodec(now));
}

/**
 * The operator's state file of a process environment (SESSION_OPS_STATE_DIR, XDG_STATE_HOME,
 * HOME: the same directory as the CLI and the daemon), or null when none can be resolved.
 */
export function operatorStateFor(
  env: Record<string, string | undefined>,
  now: () => EpochMs,
): JsonStateFile<OperatorState> | null {
  const dir = stateDir(env);
  return dir ? operatorStateFile(dir, now) : null;
}
