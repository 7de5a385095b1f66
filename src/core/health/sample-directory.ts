// Sampling a directory once: the one step under the CLI's sample-until-settled loop (status,
// recover: ./sampling.ts) and the session monitor's rounds (src/core/monitor). It reads the list
// (with the status map where the dialect keeps state there) and the newest message (limit=1) of
// each session through BackendClient.sampleRound, with the output events counted since the last
// sample (`activity`, fed by the caller's event stream reader); adds the samples to the
// directory's SampleHistory; after a whole round forgets the sessions no longer listed; and, on a
// backend without quota objects, records the quota walls it saw in the mark book. With a message
// ledger, the cost of sessions whose messages carry it is summed after the liveness reads (and,
// where the list carries the totals, their messages counted from what the event stream announced).
import type { ActivityCounter } from '../backend/activity';
import type { BackendClient, SampleRound } from '../backend/client';
import type { MessageLedger } from '../cost/message-ledger';
import { recordWalls, type MarkRecorder } from './record-walls';
import type { SampleHistory } from './sample-history';

/** What sampling needs of a backend client: a real BackendClient, or the narrower one of an action. */
export type SamplingBackend = Pick<BackendClient, 'sampleRound'> &
  Partial<Pick<BackendClient, 'capabilities' | 'marks' | 'dialect' | 'transport' | 'messagePage'>>;

export interface SampleDirectoryOptions {
  /** Output events seen on the event stream since the last sample, per session. */
  activity?: ActivityCounter;
  /** Read only these sessions' newest messages (the list is read as always). */
  sessionIds?: Iterable<string>;
  signal?: AbortSignal;
  /** Where quota walls are recorded; default the client's own mark book. */
  marks?: MarkRecorder;
  /** Recording walls: a rate-limit retry waiting at least this long is a wall. */
  retryWaitMs?: number;
  /** Checked when the round is back: true drops it (its caller was replaced); nothing is recorded. */
  stale?: () => boolean;
  /** Sums the sessions' messages for cost after the liveness reads (bounded per round); kept across rounds. */
  ledger?: MessageLedger;
}

/** One sample of a directory, recorded in `history` (and the mark book); null when `stale` said so. */
export async function sampleDirectoryOnce(
  client: SamplingBackend,
  directory: string,
  history: SampleHistory,
  options: SampleDirectoryOptions = {},
): Promise<SampleRound | null> {
  const { activity, sessionIds, signal } = options;
  const round = await client.sampleRound(directory, {
    ...(activity ? { activity } : {}),
    ...(sessionIds ? { sessionIds } : {}),
    ...(signal ? { signal } : {}),
  });
  if (options.stale?.()) return null;
  if (options.ledger) {
    const cost = await options.ledger.update(
      client,
      directory,
      { samples: round.samples, listed: round.partial ? null : listedIds(round), announced: activity ?? null },
      { signal },
    );
    if (options.stale?.()) return null;
    round.warnings.push(...cost.warnings);
  }
  history.add(...round.samples);
  if (!round.partial) {
    const listed = listedIds(round);
    history.retain(listed);
    activity?.retain(listed);
  }
  const marks = options.marks ?? client.marks;
  if (client.capabilities?.quotaObjects === false && marks)
    recordWalls(marks, round.samples, { retryWaitMs: options.retryWaitMs });
  return round;
}

/** Every session the round's list named. */
export function listedIds(round: SampleRound): string[] {
  return round.listed ?? [...round.samples, ...round.unreadable].map((x) => x.session.id);
}
