// The recent samples of every session of one directory, and the one rule for which earlier sample
// a new one is compared with. A baseline must be at least the minimum spacing old (the spec's 30 s)
// and at most twice the configured spacing: after the views were hidden for an hour the next
// verdict waits for a fresh pair instead of comparing with an hour-old sample. Used by the CLI's
// sampling loop (collectSettledSamples) and the session monitor alike. Pure: no I/O, no clock.
// Thinned to what verdicts need, so memory per session stays bounded however often event nudges
// re-sample it: the newest sample; inside the baseline window [minSpacing, 2x spacing] only the
// newest (today's baseline) and one older; younger than minSpacing (tomorrow's baselines) at most
// one per quarter of the window (the oldest of each); nothing older than the window (the keep window, if longer).
import { equal } from '../equal';
import type { EpochMs, SessionSample } from '../model';
import { judgeVerdict, MIN_SPACING_MS, type VerdictOptions } from './verdict';

export interface SampleHistoryOptions {
  /** The configured spacing between samples (30-60 s; tests may lower it). */
  spacingMs: number;
  /** The shortest baseline age a verdict accepts (the spec's 30 s; only tests lower it). */
  minSpacingMs?: number;
  /** How long samples are kept as evidence ("last moved"); at least the baseline window (the default). */
  keepMs?: number;
  /** Passed to the verdict when asking whether a session is settled. */
  toolCeilingMs?: number;
  retryWaitMs?: number;
}

export class SampleHistory {
  private readonly bySession = new Map<string, SessionSample[]>();
  private readonly counts = new Map<string, number>();
  readonly minSpacingMs: number;
  /** The oldest a baseline may be: twice the configured spacing (never under the minimum), widened by a slow round. */
  maxBaselineAgeMs: number;
  private keepMs: number;
  private readonly baseBaselineAgeMs: number;
  private readonly stepMs: number;
  private readonly verdictOptions: VerdictOptions;

  constructor(options: SampleHistoryOptions) {
    this.minSpacingMs = options.minSpacingMs ?? MIN_SPACING_MS;
    this.maxBaselineAgeMs = Math.max(2 * options.spacingMs, this.minSpacingMs);
    this.baseBaselineAgeMs = this.maxBaselineAgeMs;
    this.keepMs = Math.max(options.keepMs ?? 0, this.maxBaselineAgeMs);
    // Younger samples are kept one per step (the oldest): a baseline found among them is at most
    // one step older than the best one, and still inside the window (a quarter of its width).
    this.stepMs = Math.min(this.minSpacingMs, this.maxBaselineAgeMs - this.minSpacingMs) / 4;
    this.verdictOptions = {
      minSpacingMs: this.minSpacingMs,
      toolCeilingMs: options.toolCeilingMs,
      retryWaitMs: options.retryWaitMs,
    };
  }

  /**
   * A round that took `roundMs` (a read ran to its deadline) spaces the next samples that much
   * further apart than the spacing: the baseline window (and what is kept) widens by it, so the
   * other sessions still settle on two samples.
   */
  widenForRound(roundMs: number): void {
    const age = this.baseBaselineAgeMs + Math.max(0, roundMs);
    if (age <= this.maxBaselineAgeMs) return;
    this.maxBaselineAgeMs = age;
    this.keepMs = Math.max(this.keepMs, age);
  }

  /**
   * Adds samples (any sessions); each session's list stays ordered by time. A sample's list entry
   * and newest message that equal those of the session's previous sample are replaced by the
   * previous objects (equal values, so nothing read from the sample changes): what a round reads
   * again unchanged is dropped young instead of being kept as a second copy.
   */
  add(...samples: SessionSample[]): void {
    for (const s of samples) {
      const id = s.session.id;
      const list = this.bySession.get(id);
      if (!list) {
        // Room for four samples (what thinning keeps at a regular spacing) from the start: pushing
        // to a one-element array would reserve seventeen.
        const room = [s, s, s, s];
        room.length = 1;
        this.bySession.set(id, room);
      } else {
        if (list.length > 0) shareUnchanged(list[list.length - 1], s);
        list.push(s);
        if (list.length > 1 && list[list.length - 2].at > s.at) list.sort((a, b) => a.at - b.at);
        this.thin(list);
      }
      this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
    }
  }

  /** The kept samples of a session, oldest first. */
  samples(sessionId: string): readonly SessionSample[] {
    return this.bySession.get(sessionId) ?? [];
  }

  latest(sessionId: string): SessionSample | null {
    const list = this.bySession.get(sessionId);
    return list && list.length > 0 ? list[list.length - 1] : null;
  }

  /** How many samples of the session were ever added (pruning does not lower it). */
  count(sessionId: string): number {
    return this.counts.get(sessionId) ?? 0;
  }

  /** The newest earlier sample between minSpacing and maxBaselineAge older than `latest`, or null. */
  baseline(latest: SessionSample): SessionSample | null {
    const list = this.bySession.get(latest.session.id) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const age = latest.at - list[i].at;
      if (list[i] === latest || age < this.minSpacingMs) continue;
      return age <= this.maxBaselineAgeMs ? list[i] : null;
    }
    return null;
  }

  /** What a verdict is judged on: [baseline, latest], or [latest] alone when no baseline fits. */
  pair(sessionId: string): SessionSample[] {
    const latest = this.latest(sessionId);
    if (!latest) return [];
    const base = this.baseline(latest);
    return base ? [base, latest] : [latest];
  }

  /** True when the session's latest sample and its baseline support a verdict. */
  settled(sessionId: string): boolean {
    const [a, b] = this.pair(sessionId);
    return b !== undefined && judgeVerdict(a, b, this.verdictOptions).verdict !== null;
  }

  /** Drops samples older than the keep window before `now` (each session keeps its latest). */
  prune(now: EpochMs): void {
    for (const [id, list] of this.bySession) {
      if (list.length <= 1 || list[0].at >= now - this.keepMs) continue;
      this.bySession.set(
        id,
        list.filter((s, i) => i === list.length - 1 || s.at >= now - this.keepMs),
      );
    }
  }

  /**
   * Thins a session's list (ordered oldest first) in place to what it needs, judged from its newest
   * sample: the newest; younger than minSpacing, the oldest per step; in the baseline window, the
   * newest (today's baseline) and one older (evidence of movement); older than the keep window, nothing.
   */
  private thin(list: SessionSample[]): void {
    const n = list.length;
    if (n <= 2) return;
    const newest = list[n - 1];
    // Kept samples are moved to the end, newest last: list[w..n-1]. Every index read (i, i - 1) is below w.
    let w = n - 1;
    let inWindow = 0;
    let beyond = 0;
    for (let i = n - 2; i >= 0; i--) {
      const s = list[i];
      const age = newest.at - s.at;
      if (age > this.keepMs) break;
      if (age < this.minSpacingMs) {
        // The oldest of its step: it becomes a baseline first, so a verdict is never delayed.
        const prev = list[i - 1];
        if (
          prev &&
          this.stepMs > 0 &&
          newest.at - prev.at < this.minSpacingMs &&
          Math.floor(prev.at / this.stepMs) === Math.floor(s.at / this.stepMs)
        )
          continue;
      } else if (age <= this.maxBaselineAgeMs) {
        if (++inWindow > 2) continue;
      } else if (++beyond > 1) {
        continue;
      }
      list[--w] = s;
    }
    if (w > 0) {
      list.copyWithin(0, w);
      list.length = n - w;
    }
  }

  /** Forgets every session not in `ids` (vanished sessions). */
  retain(ids: Iterable<string>): void {
    const keep = new Set(ids);
    for (const id of [...this.bySession.keys()]) if (!keep.has(id)) this.forget(id);
  }

  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
    this.counts.delete(sessionId);
  }

  sessionIds(): string[] {
    return [...this.bySession.keys()];
  }
}

/**
 * Makes `next` (a new sample of the session of `prev`) hold `prev`'s objects wherever they are
 * equal: its newest message, its list entry, or else the entry's id, title, progress and cost.
 */
function shareUnchanged(prev: SessionSample, next: SessionSample): void {
  if (next.newest !== null && prev.newest !== null && next.newest !== prev.newest && equal(next.newest, prev.newest))
    next.newest = prev.newest;
  const a = prev.session;
  const b = next.session;
  if (a === b) return;
  if (equal(a, b)) {
    next.session = a;
    return;
  }
  if (b.id === a.id) b.id = a.id;
  if (b.title === a.title) b.title = a.title;
  if (b.progress !== a.progress && equal(b.progress, a.progress)) b.progress = a.progress;
  if (b.cost !== a.cost && b.cost != null && equal(b.cost, a.cost)) b.cost = a.cost;
}
