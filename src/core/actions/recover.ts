// recoverSession: the recovery procedure after a quota wall (spec), steps 1-5.
//  1. classify by two samples spacingMs apart (more, up to maxSamples, while they disagree);
//     abort (and read idle) only when the session reads generating and frozen, and never while it
//     waits for a person (a pending permission or question: refused, see waiting.ts);
//  2. inventory the surviving work (the prompt builder does it);
//  3. choose a connected provider without a quota mark, send the quota-wall wake prompt with an
//     explicit model on it (through the send guard);
//  4. no free provider: wait-for-reset when the earliest reset is within reach, else escalate
//     (balance failure, unknown or far reset) with every marked provider considered; nothing sent;
//  5. read the newest message until an assistant message newer than the prompt appears.
import { assessSession } from '../health/assess';
import { markedProviders, type ProviderScope } from '../health/provider-choice';
import { heldWallProvider } from '../health/quota-wall';
import { MIN_SPACING_MS } from '../health/verdict';
import type { EpochMs, ModelRef, ProviderListing, QuotaWall, SessionAssessment } from '../model';
import { collectSettledSamples, type SamplingBackend } from '../health/sampling';
import { abortSession, type AbortOptions, type AbortResult } from './abort';
import { confirmStarted, type ConfirmOptions } from './confirm';
import { callOpts, clockOf, failureOf, type ActionContext, type ActionFailure } from './executor-context';
import type { SendRefusal } from './guard';
import { basisOf } from './reverify';
import { readAssigner, type Assigner } from './assignment';
import {
  answeringModels,
  chooseAndSend,
  DELIVERED,
  prepareSend,
  sendPrepared,
  type Delivery,
  type PromptFacts,
  type SendOutcome,
} from './send';
import { afterAbortMessage, afterAbortText } from './wake';
import { queuedPromptOf, withQueuedPrompt, type QueuedPrompt } from '../prompt/queued';
import type { Composed } from './compose';
import { pendingRequestOf, waitingReason } from './waiting';

export interface RecoverRequest {
  sessionId: string;
  /** Builds the quota-wall wake prompt once the model is chosen. */
  prompt: (facts: PromptFacts & { wall: QuotaWall }) => Composed | Promise<Composed>;
  model?: ModelRef | null;
  agent?: string;
  /** Spacing of the two samples (default 45 s; the spec's minimum is 30 s). */
  spacingMs?: number;
  /** Only tests lower it. */
  minSpacingMs?: number;
  maxSamples?: number;
  resetWithinReachMs?: number;
  /** Which providers recovery may choose (sessionOps.recovery.providers, --providers); absent: any. */
  providers?: ProviderScope | null;
  abort?: AbortOptions;
  confirm?: ConfirmOptions;
}

/** The spacing of recovery's two samples when the request names none. */
export const RECOVERY_SPACING_MS = 45_000;

export type RecoverDecision = 'recovered' | 'wait-for-reset' | 'escalated' | 'refused';

export interface MarkConsidered {
  provider: string;
  markedAt: EpochMs;
  resetAt: EpochMs | null;
}

export interface RecoverResult {
  session: string;
  /** Null when a backend error stopped the procedure (see error). */
  decision: RecoverDecision | null;
  /** recovered: whether step 5 saw a newer assistant message in time. */
  confirmed: boolean;
  provider: string | null;
  model: ModelRef | null;
  waitUntil: EpochMs | null;
  marks: MarkConsidered[];
  aborted: boolean;
  abort: AbortResult | null;
  assessment: SessionAssessment | null;
  prompt: string | null;
  refusal: SendRefusal | null;
  error: ActionFailure | null;
  message: string;
  /** Whether the recovery prompt reached the backend ("unknown": POSTed, the answer never came). */
  sent: Delivery;
  /** A prompt queued before the abort (re-sent in the wake, or its text could not be read), or null. */
  queued: QueuedPrompt | null;
}

/** The marks a source shows (the listing, with the client's own marks merged in); none is invented. */
function marksConsidered(listing: ProviderListing): MarkConsidered[] {
  return markedProviders(listing);
}

/** The action's backend as the sampling loop sees it: a real client also brings its capabilities, mark book and event transport. */
function samplingBackendOf(backend: ActionContext['backend']): SamplingBackend {
  return backend as SamplingBackend;
}

export async function recoverSession(ctx: ActionContext, req: RecoverRequest): Promise<RecoverResult> {
  const id = req.sessionId;
  const clock = clockOf(ctx);
  const res: RecoverResult = {
    session: id,
    decision: null,
    confirmed: false,
    provider: null,
    model: null,
    waitUntil: null,
    marks: [],
    aborted: false,
    abort: null,
    assessment: null,
    prompt: null,
    refusal: null,
    error: null,
    message: '',
    sent: false,
    queued: null,
  };
  const refused = (code: SendRefusal['code'], reason: string): RecoverResult => ({
    ...res,
    decision: 'refused',
    refusal: { code, reason, prompt: res.prompt ?? '', model: res.model },
    message: `refused, nothing sent: ${reason}`,
  });
  try {
    // Step 1: two samples (more while they disagree), never one snapshot.
    const minSpacingMs = req.minSpacingMs ?? MIN_SPACING_MS;
    const spacingMs = Math.max(req.spacingMs ?? RECOVERY_SPACING_MS, minSpacingMs);
    const maxSamples = Math.max(2, req.maxSamples ?? 4);
    // The one sampling loop (collectSettledSamples, as `status`): samples spacingMs apart, the
    // event stream read between them where the backend has one (output still streaming is not
    // "frozen"), walls recorded in the client's mark book on a backend without quota objects.
    let missing: string | null = null;
    const settled = await collectSettledSamples(samplingBackendOf(ctx.backend), ctx.directory, {
      spacingMs,
      maxSamples,
      minSpacingMs,
      clock,
      sessionIds: [id],
      narrow: true,
      signal: ctx.signal,
      onRound: (round) => {
        if (round.samples.some((s) => s.session.id === id)) return false;
        missing = round.vanished.includes(id)
          ? 'vanished'
          : (round.errors.find((e) => e.sessionId === id)?.error.message ?? 'is not listed in this directory');
        return true;
      },
    });
    if (missing !== null)
      return {
        ...res,
        error: { code: 'not-listed', message: `session ${id} ${missing}` },
        message: `session ${id} ${missing}; nothing sent`,
      };
    const history = settled.history;
    const taken = history.count(id);
    const listing: ProviderListing | null =
      taken >= 2 ? await ctx.backend.listProviders(ctx.directory, callOpts(ctx)) : null;
    const assessment: SessionAssessment | null = listing
      ? assessSession(history.pair(id), listing, {
          now: clock.now(),
          resetWithinReachMs: req.resetWithinReachMs,
          minSpacingMs,
          providers: req.providers,
        })
      : null;
    const samples = history.samples(id);
    res.assessment = assessment;
    if (!assessment || !listing || !assessment.settled)
      return refused(
        'no-verdict',
        `no settled verdict after ${taken} samples (${assessment?.verdictBasis ?? 'no samples'}): sample again later; nothing is done on a guess`,
      );
    const latestSample = samples[samples.length - 1];
    if (assessment.verdict === 'waiting' && latestSample?.waiting)
      return refused('waiting-for-person', waitingReason(id, latestSample.waiting, 'recovery'));
    if (assessment.verdict === 'waiting')
      return refused('waiting-for-person', `session ${id} ${assessment.verdictBasis}: recovery does not abort it`);
    const wall = assessment.quotaWall;
    const decision = assessment.decision;
    res.marks = marksConsidered(listing);
    if (!wall)
      return refused(
        'not-at-wall',
        `not at a quota wall (verdict ${assessment.verdict}, action ${decision.action}): use wake`,
      );
    res.provider = wall.provider;
    if (decision.action === 'wait-for-reset')
      return {
        ...res,
        decision: 'wait-for-reset',
        waitUntil: decision.waitUntil,
        message: `${decision.basis}; nothing sent`,
      };
    if (decision.action === 'escalate') {
      return {
        ...res,
        decision: 'escalated',
        marks: decision.escalation?.marks ?? res.marks,
        message: `escalated to a human: ${decision.escalation?.message ?? decision.basis}; nothing sent`,
      };
    }
    if (decision.action !== 'recover')
      return refused(
        'not-at-wall',
        `the session is at a quota wall but its action is ${decision.action} (${decision.basis}); nothing sent`,
      );

    // Step 1 (cont.): abort only when generating and frozen. Everything the wake needs (a model on
    // an acceptable provider, the prompt composed and through the guard) is settled before it.
    const latest = samples[samples.length - 1];
    const abortFirst = latest.session.state === 'generating' && (decision.abortFirst || assessment.verdict === 'hung');
    const agent = req.agent ?? 'build';
    const recent = answeringModels(samples.map((s) => s.newest));
    // A prompt queued before the abort (the newest message of the last sample) is re-sent in the
    // wake, so the guard (and its size cap) sees the text that is sent.
    const queued = abortFirst ? queuedPromptOf(latest.newest) : null;
    res.queued = queued;
    // Who assigned the worker (its durable record, read once): a prompt naming no orchestrator
    // reports there, as every composer does (never a placeholder).
    let assigned: Assigner | null | undefined;
    const prompt = async (facts: PromptFacts): Promise<Composed> => {
      assigned ??= facts.assigned ?? (await readAssigner(ctx, id));
      const composed = await req.prompt({ ...facts, assigned, wall });
      return composed.ok ? { ...composed, text: withQueuedPrompt(composed.text, queued) } : composed;
    };
    let sent: SendOutcome;
    let beforeId: string | null;
    if (abortFirst) {
      // A request may have appeared since the last sample: read again right before aborting.
      const waiting = await pendingRequestOf(ctx, id);
      if (waiting) return refused('waiting-for-person', waitingReason(id, waiting, 'recovery'));
      const prepared = await prepareSend(ctx, {
        sessionId: id,
        agent,
        requested: req.model ?? null,
        prefer: decision.recoverOn,
        providers: req.providers,
        prompt,
        session: { ...latest.session, state: 'idle' },
        newest: latest.newest,
        listing,
        wallProvider: heldWallProvider(wall, listing, clock.now()),
        avoid: wall.provider,
        recent,
      });
      if (!prepared.ok) {
        res.prompt = prepared.text;
        return {
          ...res,
          decision: 'refused',
          model: prepared.refusal.model,
          refusal: prepared.refusal,
          message: `refused, nothing sent (nothing aborted): ${prepared.refusal.reason}`,
        };
      }
      res.prompt = prepared.prepared.text;
      const aborted = await abortSession(ctx, id, { ...req.abort, basis: basisOf(latest.session, latest.newest) });
      res.abort = aborted;
      if (aborted.refusal) return refused(aborted.refusal.code, aborted.refusal.reason);
      res.aborted = aborted.sent !== false;
      if (!aborted.idle)
        return {
          ...res,
          error: aborted.error ?? { code: 'timeout', message: aborted.message },
          message: afterAbortMessage(id, aborted),
        };
      const [newest, fresh] = await Promise.all([
        ctx.backend.newestMessage(ctx.directory, id, callOpts(ctx)),
        ctx.backend.listProviders(ctx.directory, callOpts(ctx)),
      ]);
      beforeId = newest?.id ?? null;
      const session = { ...latest.session, state: 'idle' as const };
      sent = await sendPrepared(
        ctx,
        prepared.prepared,
        fresh,
        heldWallProvider(wall, fresh, clock.now()),
        basisOf(session, newest),
      );
      if (!sent.sent && sent.refusal)
        // Not a refusal (exit 3 never follows a POST): the abort went out, the wake did not.
        return {
          ...res,
          refusal: sent.refusal,
          message: afterAbortText(id, sent.refusal.reason),
        };
    } else {
      // Steps 2-3: inventory (in the prompt builder), a free provider, the wake prompt.
      const [newest, fresh] = await Promise.all([
        ctx.backend.newestMessage(ctx.directory, id, callOpts(ctx)),
        ctx.backend.listProviders(ctx.directory, callOpts(ctx)),
      ]);
      beforeId = newest?.id ?? null;
      const session = { ...latest.session, state: 'idle' as const };
      sent = await chooseAndSend(ctx, {
        sessionId: id,
        agent,
        requested: req.model ?? null,
        prefer: decision.recoverOn,
        providers: req.providers,
        prompt,
        session,
        newest,
        listing: fresh,
        wallProvider: heldWallProvider(wall, fresh, clock.now()),
        avoid: wall.provider,
        recent,
        // The decision rests on the last sample.
        basis: basisOf(latest.session, latest.newest),
      });
      res.prompt = sent.text;
      if (!sent.sent && sent.refusal)
        return {
          ...res,
          decision: 'refused',
          model: sent.refusal.model,
          refusal: sent.refusal,
          message: `refused, nothing sent: ${sent.refusal.reason}`,
        };
    }
    res.sent = sent.sent;
    if (sent.sent !== true && sent.error)
      return {
        ...res,
        model: sent.model,
        error: sent.error,
        message:
          sent.sent === 'unknown'
            ? `the recovery prompt was sent on ${sent.model.providerID}/${sent.model.modelID} but its answer never came (${sent.error.message}): whether the backend has it is unknown; a retry first reads the newest message and does not send it again when it is there`
            : `the recovery prompt was not delivered (${sent.error.message}); it is kept for a retry`,
      };
    if (sent.sent !== true) return res;
    res.model = sent.model;
    res.provider = sent.model.providerID;
    // Step 5: an assistant message newer than the prompt.
    const confirmation = await confirmStarted(ctx, id, beforeId, {
      withinMs: 120_000,
      ...req.confirm,
      acceptGenerating: false,
    });
    const on = `${sent.model.providerID}/${sent.model.modelID}`;
    const how = DELIVERED[sent.deliveredBy];
    const queuedNote =
      res.queued?.text === null
        ? '; a prompt queued before the abort could not be read: a person must re-send it'
        : res.queued
          ? '; the prompt queued before the abort is re-sent in it'
          : '';
    return {
      ...res,
      decision: 'recovered',
      confirmed: confirmation.confirmed,
      message: confirmation.confirmed
        ? `recovered on ${on}: an assistant message answered the wake prompt; expect a completion report${queuedNote}`
        : `woken on ${on} (${how}), but no assistant message answered in time: the prompt is stored in session ${id} as its newest user message${queuedNote}`,
    };
  } catch (err) {
    const f = failureOf(err);
    const said = res.aborted ? afterAbortText(id, f.message) : `recovery of ${id} failed: ${f.message}`;
    return { ...res, error: f, message: said };
  }
}
