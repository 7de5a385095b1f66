// Everything decided about one session from its samples (oldest first) and the provider listing:
// the verdict of the last pair, the quota wall, the completion report and the action.
import type {
  EpochMs,
  MessageSnapshot,
  ProviderListing,
  SessionAssessment,
  SessionSample,
  SessionSnapshot,
} from '../model';
import { isMalformed, readReportOf, type ReportReading } from '../report/parse';
import { chooseAction } from './action';
import type { ProviderScope } from './provider-choice';
import { detectQuotaWall } from './quota-wall';
import { judgeVerdict } from './verdict';

export interface AssessOptions {
  now: EpochMs;
  resetWithinReachMs?: number;
  /** Only tests lower it (the spec's minimum is 30 s). */
  minSpacingMs?: number;
  /** A rate-limit retry waiting at least this long is a quota wall (default 2 min). */
  retryWaitMs?: number;
  /** A running tool keeps a frozen session healthy this long at most (default 30 min). */
  toolCeilingMs?: number;
  /** How many samples of the session were taken in all (default: samples.length). */
  sampleCount?: number;
  /** Which providers recovery may choose (health/provider-choice ProviderScope); absent: any. */
  providers?: ProviderScope | null;
}

/**
 * The report reading of each message read (a message is never changed once read, and a sample read
 * again unchanged holds the same message object: health/SampleHistory): its text is parsed once.
 */
const readings = new WeakMap<MessageSnapshot, ReportReading | null>();
function reportReading(newest: MessageSnapshot | null): ReportReading | null {
  if (newest === null) return null;
  let reading = readings.get(newest);
  if (reading === undefined) {
    reading = readReportOf(newest);
    readings.set(newest, reading);
  }
  return reading;
}

export function assessSession(
  samples: SessionSample[],
  listing: ProviderListing,
  options: AssessOptions,
): SessionAssessment {
  if (samples.length === 0) throw new Error('assessSession needs at least one sample');
  const latest = samples[samples.length - 1];
  const previous = samples.length >= 2 ? samples[samples.length - 2] : undefined;
  const verdict = judgeVerdict(previous ?? latest, previous ? latest : undefined, {
    minSpacingMs: options.minSpacingMs,
    toolCeilingMs: options.toolCeilingMs,
    retryWaitMs: options.retryWaitMs,
  });
  const wall = detectQuotaWall(latest, verdict, listing, { retryWaitMs: options.retryWaitMs });
  const reading = reportReading(latest.newest);
  const report = reading && !isMalformed(reading) ? reading : null;
  const malformedReport = isMalformed(reading) ? reading : null;
  const decision = chooseAction({
    verdict,
    wall,
    report,
    malformedReport,
    newest: latest.newest,
    listing,
    now: options.now,
    resetWithinReachMs: options.resetWithinReachMs,
    providers: options.providers,
  });
  return {
    id: latest.session.id,
    title: latest.session.title,
    verdict: verdict.verdict,
    settled: verdict.verdict !== null,
    verdictBasis: verdict.basis,
    state: latest.session.state,
    samples: options.sampleCount ?? samples.length,
    quotaWall: wall,
    report,
    malformedReport,
    decision,
    waiting: latest.waiting ?? null,
    parentId: latest.session.parentId ?? null,
    engine: latest.session.engine ?? null,
    unreadable: null,
    cost: latest.session.cost ?? null,
    costPending: latest.session.costPending ?? false,
    costProvider: latest.newest?.providerID ?? null,
  };
}

/**
 * A listed session whose newest message could not be read (it vanished, or the read failed):
 * nothing is known, so the verdict is unknown with the reason, and nothing is done about it.
 */
export function unreadableAssessment(session: SessionSnapshot, reason: string, sampleCount = 0): SessionAssessment {
  const basis = `the newest message could not be read: ${reason}`;
  return {
    id: session.id,
    title: session.title,
    verdict: null,
    settled: false,
    verdictBasis: basis,
    state: session.state,
    samples: sampleCount,
    quotaWall: null,
    report: null,
    decision: {
      action: 'leave-alone',
      abortFirst: false,
      basis: `${basis}: no action on unknown data`,
      recoverOn: null,
      waitUntil: null,
      escalation: null,
    },
    unreadable: reason,
    parentId: session.parentId ?? null,
    engine: session.engine ?? null,
    cost: session.cost ?? null,
    costPending: session.costPending ?? false,
    costProvider: null,
  };
}
