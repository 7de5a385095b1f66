// The action per session (spec tables "Health verdicts", "Errors", "Recovery procedure"):
//
//   leave-alone      healthy, or no settled verdict yet (never act on a guess)
//   answer           waiting: a pending permission or question needs a person (never aborted)
//   read-report      idle (or hung) and the newest message holds a malformed completion report:
//                    a person reads it; never woken over, never aborted
//   harvest          idle (or hung) and the newest message carries a completion report
//   wake             idle with an unfinished task (no report, no quota wall)
//   abort-and-wake  hung: the generation stream is dead; abort, confirm idle, re-wake
//   recover          quota wall and a connected provider with no quota object other than the
//                    failed one exists (abort first while the session still reads generating)
//   wait-for-reset   quota wall, no free provider, and the earliest known reset still ahead of
//                    the marked connected providers (the wall's own provider among them: it is
//                    acceptable again once its reset has passed and its mark is gone) is within reach
//   escalate         balance failure (top-up, not time, cures it), or reset unknown, already passed
//                    with the mark still there (never a wait for a past time) or out of reach
import type {
  ActionDecision,
  CompletionReport,
  EpochMs,
  MalformedReport,
  MessageSnapshot,
  ProviderListing,
  QuotaWall,
  VerdictResult,
} from '../model';
import { headline } from './precedence';
import {
  chooseRecoveryProvider,
  earliestConnectedReset,
  inScope,
  markedProviders,
  type ProviderScope,
} from './provider-choice';
import { distinctRecords } from './provider-records';
import { wallHolds } from './quota-wall';
import { DEFAULT_MONITOR_SETTINGS } from '../settings/operator-settings';

export interface ActionInput {
  verdict: VerdictResult;
  wall: QuotaWall | null;
  report: CompletionReport | null;
  malformedReport?: MalformedReport | null;
  newest: MessageSnapshot | null;
  listing: ProviderListing;
  now: EpochMs;
  resetWithinReachMs?: number;
  /** Which providers recovery may choose (see ProviderScope); absent: any connected one. */
  providers?: ProviderScope | null;
}

function decide(action: ActionDecision['action'], basis: string, extra: Partial<ActionDecision> = {}): ActionDecision {
  return { action, abortFirst: false, basis, recoverOn: null, waitUntil: null, escalation: null, ...extra };
}

/** Leave alone a session without a verdict yet; the same basis gives the same decision (one object, never mutated). */
let pending: ActionDecision | null = null;
let pendingOn = '';
function leaveAlonePending(verdictBasis: string): ActionDecision {
  if (pending === null || pendingOn !== verdictBasis) {
    pending = decide('leave-alone', `no verdict yet (${verdictBasis})`);
    pendingOn = verdictBasis;
  }
  return pending;
}

/** The listing as the decision sees it: one record per id, the failed provider marked even if not yet listed so. */
function withWallMark(listing: ProviderListing, wall: QuotaWall, now: EpochMs): ProviderListing {
  const records = distinctRecords(listing);
  const distinct = records === listing.providers ? listing : { ...listing, providers: [...records] };
  if (wall.provider === null) return distinct;
  const known = records.find((p) => p.id === wall.provider);
  if (known?.quota) return distinct;
  const mark = { markedAt: now, resetAt: wall.resetAt, category: wall.category };
  if (known)
    return {
      ...distinct,
      providers: records.map((p) => (p.id === wall.provider ? { ...p, quota: mark } : p)),
    };
  return {
    ...distinct,
    providers: [
      ...records,
      { id: wall.provider, name: null, connected: listing.connected.includes(wall.provider), quota: mark, models: [] },
    ],
  };
}

export function chooseAction(input: ActionInput): ActionDecision {
  const { verdict, wall, report, newest, now } = input;
  const reach = input.resetWithinReachMs ?? DEFAULT_MONITOR_SETTINGS.resetWithinReachMs;
  if (verdict.verdict === null) return leaveAlonePending(verdict.basis);
  if (verdict.verdict === 'healthy') return decide('leave-alone', 'healthy: leave alone');
  if (verdict.verdict === 'waiting')
    return decide(
      'answer',
      `${verdict.basis}: a person must answer (never abort-and-wake: that would throw the request away)`,
    );

  // One precedence (health/precedence): quota wall, then report, then the verdict.
  const head = headline({ verdict: verdict.verdict, quotaWall: wall, report, malformedReport: input.malformedReport });
  if (head === 'quota-wall' && wall) {
    // While the wall holds, its provider counts as marked even if the listing does not say so
    // (for the choice only: an escalation reports the marks a source shows).
    const held = wallHolds(wall, input.listing, now);
    const listing = held ? withWallMark(input.listing, wall, now) : input.listing;
    const shownMarks = markedProviders(input.listing);
    const abortFirst = wall.abortFirst || verdict.verdict === 'hung';
    const who = wall.provider ?? 'an unknown provider';
    const kind = wall.category ? `${wall.category} wall` : 'quota wall (inferred: frozen on a marked provider)';
    if (wall.category === 'balance') {
      return decide(
        'escalate',
        `balance failure on ${who} (HTTP 402 insufficient_quota): a human must top up; switching provider is not the cure`,
        {
          abortFirst,
          escalation: {
            reason: 'balance',
            message: `balance failure on ${who}: top up the account`,
            marks: shownMarks,
          },
        },
      );
    }
    // Another free provider first; the wall's own provider only once its wall is over.
    const free =
      chooseRecoveryProvider(listing, wall.provider, input.providers) ??
      (held ? null : chooseRecoveryProvider(listing, null, input.providers));
    if (free) {
      return decide(
        'recover',
        `${kind} on ${who}; ${free.id} is connected and has no quota object: re-wake there${abortFirst ? ' after aborting (still generating)' : ''}`,
        {
          abortFirst,
          recoverOn: free.id,
        },
      );
    }
    // Only a provider the guard will accept then. The wall's own provider is acceptable again
    // once its mark is gone and its reset has passed (wallHolds): its reset is the later of the
    // one the failure gave and its mark's, unknown when its mark's is. A reset at or before now
    // is never waited for (earliestConnectedReset): the mark outlived it, when it ends is unknown.
    const ownReset = wall.ownResetAt ?? null;
    const earliest = earliestConnectedReset(
      listing,
      input.providers,
      (p) => {
        if (p.id !== wall.provider) return undefined;
        const markReset = p.quota?.resetAt ?? null;
        if (markReset === null) return null;
        return ownReset === null ? markReset : Math.max(ownReset, markReset);
      },
      now,
    );
    if (earliest === null) {
      const passed = markedProviders(listing).filter(
        (m) => m.resetAt !== null && m.resetAt <= now && inScope(m.provider, input.providers),
      );
      const why =
        passed.length > 0
          ? `no connected provider is free; the reset of ${passed.map((m) => `${m.provider} (${new Date(m.resetAt!).toISOString()})`).join(', ')} has passed but its quota mark remains, so when it ends is unknown; no other marked provider has a reset ahead`
          : 'no connected provider is free and no marked provider has a known reset ahead';
      return decide('escalate', `${kind} on ${who}; ${why}`, {
        abortFirst,
        escalation: { reason: 'reset-unknown', message: why, marks: shownMarks },
      });
    }
    if (earliest - now <= reach) {
      return decide(
        'wait-for-reset',
        `${kind} on ${who}; no connected provider is free; the earliest reset (${new Date(earliest).toISOString()}) is within reach: leave the worker down and retry then`,
        {
          abortFirst,
          waitUntil: earliest,
        },
      );
    }
    return decide(
      'escalate',
      `${kind} on ${who}; no connected provider is free; the earliest reset (${new Date(earliest).toISOString()}) is out of reach`,
      {
        abortFirst,
        escalation: {
          reason: 'reset-out-of-reach',
          message: `the earliest reset is ${new Date(earliest).toISOString()}`,
          marks: shownMarks,
        },
      },
    );
  }

  if (head === 'malformed-report' && input.malformedReport)
    return decide(
      'read-report',
      `the newest message holds a line meant as a completion report that does not parse (${input.malformedReport.problem}): a person must read it; it is never woken over`,
    );
  if (head === 'report' && report)
    return decide('harvest', `completion report present (status=${report.status}): harvest it`);
  if (verdict.verdict === 'hung')
    return decide(
      'abort-and-wake',
      'hung: abort, confirm idle, then re-wake (queued prompts of a dead stream never fire)',
      { abortFirst: true },
    );
  if (!newest) return decide('leave-alone', 'idle with no message at all: nothing to wake');
  const why =
    newest.role !== 'assistant'
      ? 'the newest message is an unanswered prompt'
      : newest.failure
        ? `the turn ended on a failure that is not a quota wall (${newest.failure.text.slice(0, 80)})`
        : 'the task is unfinished (no completion report)';
  return decide('wake', `idle: ${why}: send a wake prompt`);
}
