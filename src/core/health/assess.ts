// Everything decided about one session from its samples (oldest first) and the provider listing:
// the verdict of the last pair, the quota wall, the completion report and the action.
import type { EpochMs, ProviderListing, SessionAssessment, SessionSample } from '../model';
import { findReport } from '../report/parse';
import { chooseAction } from './action';
import { detectQuotaWall } from './quota-wall';
import { judgeVerdict } from './verdict';

export interface AssessOptions {
  now: EpochMs;
  resetWithinReachMs?: number;
  /** Only tests lower it (the spec's minimum is 30 s). */
  minSpacingMs?: number;
}

export function assessSession(samples: SessionSample[], listing: ProviderListing, options: AssessOptions): SessionAssessment {
  if (samples.length === 0) throw new Error('assessSession needs at least one sample');
  const latest = samples[samples.length - 1];
  const previous = samples.length >= 2 ? samples[samples.length - 2] : undefined;
  const verdict = judgeVerdict(previous ?? latest, previous ? latest : undefined, { minSpacingMs: options.minSpacingMs });
  const wall = detectQuotaWall(latest, verdict, listing);
  const report = findReport(latest.newest?.text);
  const decision = chooseAction({ verdict, wall, report, newest: latest.newest, listing, now: options.now, resetWithinReachMs: options.resetWithinReachMs });
  return {
    id: latest.session.id,
    title: latest.session.title,
    verdict: verdict.verdict,
    settled: verdict.verdict !== null,
    verdictBasis: verdict.basis,
    state: latest.session.state,
    samples: samples.length,
    quotaWall: wall,
    report,
    decision,
    waiting: latest.waiting ?? null,
    parentId: latest.session.parentId ?? null,
  };
}

/** Groups the samples of several rounds by session id, oldest first, keeping list order. */
export function samplesBySession(rounds: Array<{ samples: SessionSample[] }>): Map<string, SessionSample[]> {
  const out = new Map<string, SessionSample[]>();
  for (const round of rounds) {
    for (const s of round.samples) {
      const list = out.get(s.session.id);
      if (list) list.push(s);
      else out.set(s.session.id, [s]);
    }
  }
  return out;
}
