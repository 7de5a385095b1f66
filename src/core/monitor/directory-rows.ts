// Turns one sample round of a directory into its rows: each sampled session assessed on its pair
// of samples (health/assessSession) and made a row (toRow), each unreadable one an unknown row with
// the reason; badge transitions reported; a whole round replaces the directory's rows, a partial
// one (named sessions) replaces only theirs. Touches only the directory's state and the runtime's
// per-session maps it is given.
import type { SampleRound } from '../backend';
import { assessSession, listedIds, unreadableAssessment, type AssessOptions, type SampleHistory } from '../health';
import { directorySessionKey } from '../keys';
import type { ProviderListing, SessionCost, SessionSample, TodoProgress } from '../model';
import { budgetLevel, type BudgetLevels } from '../cost/budget';
import { rollUpCosts } from '../cost/rollup';
import { orderByParent, type Badge, type SampleEvidence, type SessionRow } from './row';
import { equal } from '../equal';
import { sameRow } from './same-row';
import { toRow } from './to-row';
import type { DirectoryState, Transition, TransitionKind } from './types';

export interface DirectoryRowsContext {
  backendKey: string;
  listing: ProviderListing;
  assess: AssessOptions;
  /** The badge last shown per session (directory + id): transitions are changes of it. */
  badges: Map<string, Badge>;
  /** A budget per session in US dollars (0: none) and the levels told per session (directory + id). */
  budgetUsd: number;
  budgets: BudgetLevels;
  /** Todo progress per session (directory + id). */
  todos: Map<string, TodoProgress | null>;
  /** Reads the todo list of a session seen for the first time (null: the backend keeps none). */
  readTodos: ((sessionId: string) => void) | null;
  onTransition: (t: Transition) => void;
}

export interface DirectoryRowsUpdate {
  /** The set of sessions changed (rows added or gone). */
  setChanged: boolean;
  /** Rows whose content changed. */
  changedRows: SessionRow[];
  truncationChanged: boolean;
  /** A session came to a quota wall: the provider listing is worth reading again. */
  newWall: boolean;
  /** A partial round listed sessions added or gone: the directory needs a whole sample. */
  needsWholeSample: boolean;
}

/** The rows so far of a directory, by session id (the rows a round builds reuse their keys). */
export function rowsById(rows: readonly SessionRow[]): Map<string, SessionRow> {
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Builds the rows of the round's sampled sessions `from` (inclusive) to `to` (exclusive), each
 * assessed on its pair of samples, and appends them to `built`: the part of a round's model
 * building that a caller may split into slices (the rows of a round are the same however split).
 */
export function buildRows(
  round: SampleRound,
  history: SampleHistory,
  ctx: Pick<DirectoryRowsContext, 'backendKey' | 'listing' | 'assess'>,
  directory: string,
  before: Map<string, SessionRow>,
  from: number,
  to: number,
  built: SessionRow[],
): void {
  const { backendKey, listing } = ctx;
  const end = Math.min(to, round.samples.length);
  for (let i = from; i < end; i++) {
    const sample = round.samples[i];
    const baseline = history.baseline(sample);
    const assessment = assessSession(baseline ? [baseline, sample] : [sample], listing, ctx.assess);
    built.push(
      toRow({
        key: before.get(sample.session.id)?.key,
        backendKey,
        directory,
        assessment,
        baseline,
        latest: sample,
        history: history.samples(sample.session.id),
        listing,
      }),
    );
  }
}

/**
 * Turns the round into the directory's rows. `sampled`: the rows of the round's sampled sessions
 * already built (buildRows over all of them, in order); absent, they are built here.
 */
export function updateDirectoryRows(
  dirState: DirectoryState,
  round: SampleRound,
  history: SampleHistory,
  ctx: DirectoryRowsContext,
  sampled?: SessionRow[],
): DirectoryRowsUpdate {
  const { backendKey, listing } = ctx;
  const directory = dirState.directory;
  const seen = new Set<string>();
  const changedRows: SessionRow[] = [];
  const before = rowsById(dirState.rows);
  const rows: SessionRow[] = [];
  let newWall = false;
  let needsWholeSample = false;
  const built: SessionRow[] = sampled ?? [];
  if (!sampled) buildRows(round, history, ctx, directory, before, 0, round.samples.length, built);
  // A session whose newest message could not be read (vanished, or the read failed): unknown, with the reason.
  for (const u of round.unreadable) {
    const latest: SessionSample = { at: u.at, session: u.session, newest: null };
    built.push(
      toRow({
        backendKey,
        directory,
        assessment: unreadableAssessment(u.session, u.error.message),
        baseline: null,
        latest,
        history: [],
        listing,
      }),
    );
  }
  // Each row's cost with its sub-agents' (those of this round, else as last built) and its budget level.
  // Without a sub-agent among them each row's cost is its own.
  const hasParent = (r: SessionRow) => (r.parentId ?? null) !== null;
  let rolled: Map<string, SessionCost | null> | null = null;
  if (built.some(hasParent) || dirState.rows.some(hasParent)) {
    const latestRows = new Map(before);
    for (const r of built) latestRows.set(r.id, r);
    rolled = rollUpCosts(
      [...latestRows.values()].map((r) => ({
        id: r.id,
        parentId: r.parentId ?? null,
        cost: r.assessment?.cost ?? null,
        provider: null,
      })),
    );
  }
  for (const row of built) {
    row.cost = (rolled ? rolled.get(row.id) : row.assessment?.cost) ?? null;
    row.budgetLevel = budgetLevel(row.cost, ctx.budgetUsd);
  }
  for (const fresh of built) {
    const id = fresh.id;
    seen.add(id);
    const hkey = directorySessionKey(directory, id);
    if (ctx.readTodos && !ctx.todos.has(hkey)) ctx.readTodos(id);
    fresh.todos = ctx.todos.get(hkey) ?? null;
    const prev = before.get(id);
    const row = prev ? keptRow(prev, fresh) : fresh;
    if (row !== prev) changedRows.push(row);
    for (const level of ctx.budgets.reach(hkey, row.budgetLevel ?? 0))
      ctx.onTransition({ kind: level === 100 ? 'budget-100' : 'budget-80', row });
    const prevBadge = ctx.badges.get(hkey);
    if (prevBadge !== undefined && prevBadge !== row.badge) {
      const kind = transitionKind(row.badge);
      if (kind) ctx.onTransition({ kind, row });
    }
    if (row.quotaWall && (!prev || !prev.quotaWall)) newWall = true;
    ctx.badges.set(hkey, row.badge);
    rows.push(row);
  }
  let setChanged: boolean;
  let truncationChanged = false;
  if (round.partial) {
    // Named sessions only: the others keep their rows; a session added or gone since the last
    // whole sample needs one (queued after this sample).
    const byId = new Map(rows.map((r) => [r.id, r]));
    const listedList = listedIds(round);
    const listed = new Set(listedList);
    const kept = dirState.rows.filter((r) => listed.has(r.id) || byId.has(r.id)).map((r) => byId.get(r.id) ?? r);
    needsWholeSample = listedList.length !== before.size || listedList.some((id) => !before.has(id));
    dirState.partialErrors = [
      ...dirState.partialErrors.filter((e) => !seen.has(e.sessionId)),
      ...round.errors.map((e) => ({ sessionId: e.sessionId, message: e.error.message })),
    ];
    setChanged = kept.length !== before.size || kept.some((r) => !before.has(r.id));
    dirState.rows = orderByParent(kept);
  } else {
    dirState.partialErrors = round.errors.map((e) => ({ sessionId: e.sessionId, message: e.error.message }));
    const truncated = round.truncated ?? null;
    if (truncated?.listed !== dirState.truncated?.listed || truncated?.kept !== dirState.truncated?.kept)
      truncationChanged = true;
    dirState.truncated = truncated;
    for (const id of before.keys()) {
      if (seen.has(id)) continue;
      ctx.badges.delete(directorySessionKey(directory, id));
      ctx.budgets.forget(directorySessionKey(directory, id));
      ctx.todos.delete(directorySessionKey(directory, id));
    }
    setChanged = rows.length !== before.size || rows.some((r) => !before.has(r.id));
    dirState.rows = orderByParent(rows);
  }
  return { setChanged, changedRows, truncationChanged, newWall, needsWholeSample };
}

/**
 * The row a session keeps: its previous row when the new one shows nothing new (`sameRow`), with
 * its sample times and its assessment brought up to date in place, so that an unchanged session
 * leaves no new objects behind; else the new row, holding the previous assessment's decision and
 * the previous model name when they are equal.
 */
function keptRow(prev: SessionRow, row: SessionRow): SessionRow {
  const a = prev.assessment;
  const b = row.assessment;
  if (a && b && a !== b && equal(a.decision, b.decision)) b.decision = a.decision;
  if (!sameRow(prev, row)) {
    if (row.model === prev.model) row.model = prev.model;
    return row;
  }
  stampTimes(prev.evidence.latest, row.evidence.latest);
  if (prev.evidence.earlier && row.evidence.earlier) stampTimes(prev.evidence.earlier, row.evidence.earlier);
  if (!equal(a, b)) prev.assessment = b;
  return prev;
}

/** A kept sample's times brought up to the new read's (sameRow compares neither). */
function stampTimes(kept: SampleEvidence, read: SampleEvidence): void {
  kept.at = read.at;
  if (read.readFrom !== undefined || kept.readFrom !== undefined) kept.readFrom = read.readFrom ?? read.at;
}

/** The transition a new badge means (null: none worth telling). */
function transitionKind(badge: Badge): TransitionKind | null {
  if (badge === 'hung' || badge === 'waiting' || badge === 'quota-wall') return badge;
  return badge.startsWith('report-') ? 'report' : null;
}
