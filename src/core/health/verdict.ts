// Health verdict from two samples of one session, 30-60 s apart (spec "States and transitions"):
//
//   healthy  state generating in both, and progress.stepCount growing or newest message id advancing
//   idle     state idle in both, progress absent or stale
//   hung     state generating in both, and stepCount, lastStepAt and newest message id all frozen
//   waiting  the later sample holds a pending permission or question (stock opencode): a person
//            must answer; it is never hung, whatever else froze
//
//   1. A single snapshot is never a basis for a verdict that aborts: the state field is unreliable
//      both ways (a hung session can read generating, a healthy one can momentarily read idle with
//      an empty message tail). One sample gives no verdict; samples that disagree on state, or an
//      idle session that moved between samples, mean: sample again, never guess.
//   2. Liveness uses the newest message only (limit=1): done by the client.
//   3. Absent progress means no signal: fall back to deltas of the newest message id.
//
// Between the table's rows: a generating session whose heartbeat (lastStepAt) advanced while
// stepCount and the id stood still is not hung (hung needs all three frozen); it is called
// healthy. On stock opencode two more live signals count: a tool call the server reports as
// running, and output the event stream showed between the samples (text streamed into a part is
// not persisted until the part ends). They only ever prevent "hung"; their absence proves nothing.
// A running tool keeps a session healthy up to a ceiling (default 30 min): past it, with nothing
// else moving, the verdict is hung ("all three frozen"), unless the tool waits for a person
// (permission, question), which is never subject to the ceiling. A retry status (stock opencode
// retrying a failed model call) is the backend working: healthy, "retrying (attempt n, next in s)".
import type { SessionSample, VerdictResult } from '../model';
import { retryWall } from './quota-wall';
import { DEFAULT_MONITOR_SETTINGS } from '../settings/operator-settings';

/** The spec's minimum spacing between the two samples. */
export const MIN_SPACING_MS = 30_000;

export interface VerdictOptions {
  /** Minimum spacing accepted; default 30 s. Only tests lower it. */
  minSpacingMs?: number;
  /** A running tool keeps a frozen session healthy this long at most (setting toolCeilingMinutes). */
  toolCeilingMs?: number;
  /** A rate-limit retry waiting at least this long is a quota wall, not the backend working. */
  retryWaitMs?: number;
}

/** "47 min" from a minute on, "40 s" below. */
function duration(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}

/** "retrying (attempt 2, next in 5 s)" for a retry status read at `at`. */
export function retryText(retry: NonNullable<SessionSample['session']['retry']>, at: number): string {
  const next = retry.next === null ? 'next unknown' : `next in ${Math.max(0, Math.round((retry.next - at) / 1000))} s`;
  return `retrying (attempt ${retry.attempt}, ${next})`;
}

function result(verdict: VerdictResult['verdict'], basis: string, frozen = false): VerdictResult {
  return { verdict, resample: verdict === null, basis, frozen };
}

/** Why the sample waits for a person, or null when it does not (as far as the backend says). */
export function waitingBasis(sample: SessionSample): string | null {
  const w = sample.waiting;
  if (w) return `waits for a person: a pending ${w.kind} (${w.title}); answer it, never abort it`;
  return null;
}

/** What moved between the two samples: growth and advances only, and what cannot be compared. */
export interface Movement {
  /** The newest message id advanced (ids increase in creation order), or a first message appeared. */
  idAdvanced: boolean;
  /** Both samples carry progress and stepCount grew. */
  stepsGrew: boolean;
  /** Both samples carry progress and lastStepAt advanced. */
  heartbeat: boolean;
  /** Why the two samples cannot be compared (an id or a counter went backwards), or null. */
  incomparable: string | null;
  /** Progress in only one of the samples (counters restart with the backend instance): no signal. */
  progressInOne: boolean;
  /** Anything at all differs (used for idle: any change means sample again). */
  changed: boolean;
  /** The event stream showed output for the session between the samples (stock opencode). */
  streamed: boolean;
}

export function movement(a: SessionSample, b: SessionSample): Movement {
  const pa = a.session.progress;
  const pb = b.session.progress;
  const idA = a.newest?.id ?? null;
  const idB = b.newest?.id ?? null;
  const both = pa !== null && pb !== null;
  let incomparable: string | null = null;
  if (idA !== null && idB === null) incomparable = `the newest message (${idA}) is gone in the later sample`;
  else if (idA !== null && idB !== null && idB < idA)
    incomparable = `the newest message id went backwards (${idA} -> ${idB})`;
  else if (both && pb.stepCount < pa.stepCount)
    incomparable = `stepCount dropped (${pa.stepCount} -> ${pb.stepCount}): the backend restarted`;
  else if (both && pb.stepCount === pa.stepCount && pb.lastStepAt < pa.lastStepAt)
    incomparable = 'the lastStepAt heartbeat went backwards';
  const progressInOne = (pa === null) !== (pb === null);
  const streamed = typeof a.activity === 'number' && typeof b.activity === 'number' && b.activity !== a.activity;
  return {
    idAdvanced: idB !== null && (idA === null || idB > idA),
    stepsGrew: both && pb.stepCount > pa.stepCount,
    heartbeat: both && pb.lastStepAt > pa.lastStepAt,
    incomparable,
    progressInOne,
    changed:
      idA !== idB ||
      progressInOne ||
      (both && (pa.stepCount !== pb.stepCount || pa.lastStepAt !== pb.lastStepAt)) ||
      streamed,
    streamed,
  };
}

/**
 * Judges two samples of the same session (`first` taken before `second`). Without a second
 * sample there is no verdict: one snapshot is never a basis.
 */
export function judgeVerdict(
  first: SessionSample,
  second?: SessionSample,
  options: VerdictOptions = {},
): VerdictResult {
  if (!second)
    return result(
      null,
      'one sample only: a single snapshot is never a basis for a verdict; take a second sample 30-60 s later',
    );
  if (first.session.id !== second.session.id)
    throw new Error(`samples of different sessions: ${first.session.id} and ${second.session.id}`);
  const minSpacing = options.minSpacingMs ?? MIN_SPACING_MS;
  const spacing = second.at - first.at;
  if (spacing < minSpacing) {
    return result(
      null,
      `samples only ${Math.round(spacing / 1000)} s apart (at least ${Math.round(minSpacing / 1000)} s needed): sample again`,
    );
  }

  // A session whose server holds a pending permission or question waits for a person: it reads
  // busy with a frozen newest message, but it is not hung (and must never be aborted).
  const waiting = waitingBasis(second);
  if (waiting) return result('waiting', waiting);

  const sa = first.session.state;
  const sb = second.session.state;
  if (sa !== sb) return result(null, `the samples disagree on state (${sa}, then ${sb}): sample again`);

  const mv = movement(first, second);
  const noProgress = first.session.progress === null && second.session.progress === null;

  if (sb === 'idle') {
    if (mv.changed) {
      const what = first.newest?.id !== second.newest?.id ? 'the newest message changed' : 'progress moved';
      return result(
        null,
        `idle in both samples but ${what} in between (a turn ran, or the idle reading is momentary): sample again`,
      );
    }
    return result(
      'idle',
      noProgress
        ? 'idle in both samples, no progress signal, newest message unchanged'
        : 'idle in both samples, progress stale, newest message unchanged',
    );
  }

  // generating in both: healthy needs growth or an advance; what went backwards cannot be compared.
  if (mv.incomparable)
    return result(null, `generating; ${mv.incomparable}: the samples cannot be compared; sample again`);
  if (mv.idAdvanced)
    return result(
      'healthy',
      `generating; the newest message id advanced (${first.newest?.id ?? 'none'} -> ${second.newest?.id})`,
    );
  if (mv.stepsGrew)
    return result(
      'healthy',
      `generating; stepCount grew (${first.session.progress?.stepCount} -> ${second.session.progress?.stepCount})`,
    );
  if (mv.heartbeat)
    return result(
      'healthy',
      'generating; only the lastStepAt heartbeat advanced (stepCount and newest id frozen: a long tool call can do that, so not hung)',
    );
  if (mv.streamed)
    return result(
      'healthy',
      `generating; the event stream showed ${(second.activity ?? 0) - (first.activity ?? 0)} output events between the samples (streamed text is stored only when its part ends)`,
    );
  const tool = second.newest?.runningTool;
  if (tool) {
    if (tool.waitingFor)
      return result(
        'healthy',
        `generating; tool \`${tool.name}\` waits for a person's ${tool.waitingFor} (never subject to the tool ceiling)`,
      );
    const ceiling = options.toolCeilingMs ?? DEFAULT_MONITOR_SETTINGS.toolCeilingMs;
    const runFor = tool.since !== null ? second.at - tool.since : null;
    if (runFor !== null && runFor > ceiling) {
      return result(
        'hung',
        `tool \`${tool.name}\` running for ${duration(runFor)}, nothing else moved (ceiling ${duration(ceiling)})`,
        true,
      );
    }
    return result(
      'healthy',
      `generating; the backend reports tool "${tool.name}" running${tool.since !== null ? ` since ${new Date(tool.since).toISOString()}` : ''}`,
    );
  }
  // A retry that is a quota wall (long wait, usage limit named) is a retry spin: frozen, below.
  if (second.session.retry && !retryWall(second, { retryWaitMs: options.retryWaitMs }))
    return result('healthy', `generating; the backend is ${retryText(second.session.retry, second.at)}`);
  if (mv.progressInOne)
    return result(
      null,
      'generating; progress in only one sample (no signal) and the newest message id frozen: the samples cannot be compared; sample again',
    );
  return result(
    'hung',
    noProgress
      ? 'generating in both samples with no progress signal and the newest message id frozen: the generation stream is dead'
      : 'generating in both samples with stepCount, lastStepAt and the newest message id all frozen: the generation stream is dead',
    true,
  );
}
