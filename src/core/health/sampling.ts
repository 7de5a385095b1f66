// "Sample until settled": the loop of the CLI's status and of recovery (the recover action, from
// the CLI and the editor). It samples a directory (./sample-directory.ts, the step the session
// monitor's rounds take too), waits `spacingMs`, samples again, and goes on (up to `maxSamples`
// samples in all) while a session of interest has no settled verdict. On a backend with an event
// stream (capabilities.events) it reads the stream between samples (read-only), so a session
// whose output is still streaming is not called hung; on a backend without quota objects
// (capabilities.quotaObjects false) the walls it sees go into the client's mark book. The caller
// owns the client and closes it.
import { systemClock, type Clock, type TimerHandle } from '../clock';
import type { SampleRound } from '../backend/client';
import { ActivityCounter } from '../backend/activity';
import { readEventStream } from '../backend/events';
import type { Dialect, EpochMs, ProviderListing, SessionAssessment } from '../model';
import { assessSession, unreadableAssessment, type AssessOptions } from './assess';
import type { MessageLedger } from '../cost/message-ledger';
import { sampleDirectoryOnce, type SamplingBackend } from './sample-directory';
import { SampleHistory } from './sample-history';

export type { SamplingBackend } from './sample-directory';

export interface SettledSamplesOptions {
  /** Time between two samples (the spec: 30-60 s). */
  spacingMs: number;
  /** Samples in all, at most (at least 2). Default 4. */
  maxSamples?: number;
  /** The one clock (src/core/clock.ts): it times each round and waits between samples (with `signal`). */
  clock: Clock;
  /** Only these sessions need a settled verdict (default: every listed session). */
  sessionIds?: readonly string[];
  /** With sessionIds: read only those sessions' newest messages each round (the list is still read). */
  narrow?: boolean;
  /** Called after each round; true stops sampling at once (e.g. the session of interest is gone). */
  onRound?: (round: SampleRound) => boolean | void;
  /** Shortest baseline age a verdict accepts (the spec's 30 s; only tests lower it). */
  minSpacingMs?: number;
  /** Recording walls: a rate-limit retry waiting at least this long is a wall (default 2 min). */
  retryWaitMs?: number;
  toolCeilingMs?: number;
  /** Read the event stream between samples when the backend has one. Default true. */
  events?: boolean;
  /** Sums the sessions' messages for cost where the backend reports it per message (status). */
  ledger?: MessageLedger;
  signal?: AbortSignal;
}

export interface SettledSamples {
  /** Every sample taken, per session; `history.pair(id)` is what a verdict is judged on. */
  history: SampleHistory;
  /** The last round: its samples, and the sessions whose newest message could not be read. */
  latest: SampleRound;
  /** When each round started. */
  sampledAt: EpochMs[];
  dialect: Dialect | null;
  warnings: string[];
}

/** Samples `directory` until every session of interest has a settled verdict (or maxSamples). */
export async function collectSettledSamples(
  client: SamplingBackend,
  directory: string,
  options: SettledSamplesOptions,
): Promise<SettledSamples> {
  const maxSamples = Math.max(2, options.maxSamples ?? 4);
  const history = new SampleHistory({
    spacingMs: options.spacingMs,
    minSpacingMs: options.minSpacingMs,
    toolCeilingMs: options.toolCeilingMs,
    retryWaitMs: options.retryWaitMs,
  });
  const activity = new ActivityCounter();
  const stopEvents = new AbortController();
  const onAbort = () => stopEvents.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let reader: Promise<unknown> | null = null;
  const rounds: SampleRound[] = [];
  const now = options.clock.now;
  const sample = async (): Promise<SampleRound> => {
    const narrow = options.narrow && options.sessionIds ? new Set(options.sessionIds) : undefined;
    const started = now();
    const round = (await sampleDirectoryOnce(client, directory, history, {
      activity,
      sessionIds: narrow,
      signal: options.signal,
      retryWaitMs: options.retryWaitMs,
      ledger: options.ledger,
    }))!;
    // One read held to its deadline does not push the next samples out of the baseline window.
    history.widenForRound(now() - started);
    rounds.push(round);
    return round;
  };
  const result = (latest: SampleRound): SettledSamples => ({
    history,
    latest,
    sampledAt: rounds.map((r) => r.at),
    dialect: client.dialect ?? null,
    warnings: [...new Set(rounds.flatMap((r) => r.warnings))],
  });
  try {
    let latest = await sample();
    if (options.onRound?.(latest) === true) return result(latest);
    if (options.events !== false && client.capabilities?.events && client.transport)
      reader = (await openEvents(client.transport, directory, activity, stopEvents.signal)).reader;
    for (;;) {
      await options.clock.sleep(options.spacingMs, options.signal);
      latest = await sample();
      if (options.onRound?.(latest) === true) break;
      if (rounds.length >= maxSamples) break;
      // Sample again while a session has no settled verdict (states disagree, it moved while
      // idle, or it appeared after the first sample): never guess.
      const wanted = options.sessionIds ? new Set(options.sessionIds) : null;
      const unsettled = latest.samples.some(
        (s) => (!wanted || wanted.has(s.session.id)) && !history.settled(s.session.id),
      );
      if (!unsettled) break;
    }
    return result(latest);
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stopEvents.abort();
    await reader;
  }
}

/** Starts the event stream reader and waits (up to 2 s) until it is open or has given up. */
async function openEvents(
  transport: NonNullable<SamplingBackend['transport']>,
  directory: string,
  activity: ActivityCounter,
  signal: AbortSignal,
): Promise<{ reader: Promise<unknown> }> {
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  const reader = readEventStream(transport, {
    directory,
    signal,
    onEvent: (e) => activity.onEvent(e),
    onState: (state) => {
      if (state !== 'connecting') settle();
    },
    minBackoffMs: 500,
  }).catch(() => 'stopped' as const);
  // Wall time for I/O (the stream's first answer), on the system clock.
  let timer: TimerHandle | undefined;
  await Promise.race([settled, new Promise<void>((r) => (timer = systemClock.setTimeout(r, 2_000)))]);
  systemClock.clearTimeout(timer);
  return { reader };
}

/**
 * The assessment of every session of the last round: the verdict of its pair of samples, or
 * unknown with the reason when its newest message could not be read. List order is kept.
 */
export function assessSettled(
  settled: Pick<SettledSamples, 'history' | 'latest'>,
  listing: ProviderListing,
  options: AssessOptions,
): SessionAssessment[] {
  const { history, latest } = settled;
  const out: SessionAssessment[] = latest.samples.map((s) =>
    assessSession(history.pair(s.session.id), listing, { ...options, sampleCount: history.count(s.session.id) }),
  );
  for (const u of latest.unreadable)
    out.push(unreadableAssessment(u.session, u.error.message, history.count(u.session.id)));
  return out;
}
