// wakeSession: optional abort-first (abort, read idle, only then send; refused while the session
// waits for a person: a pending permission or question); refuse when the session
// does not read idle and abort-first was not ordered; choose the explicit model; the send guard;
// send; then confirm (the session turns generating or a newer assistant message appears).
// Every wake prompt, whoever wrote it, carries the anti-re-hang clause and the completion-report
// protocol (prompt/wake-rules: appended when missing, with a notice); a fact-baseline document
// is refused when it lost one of its four parts.
import { heldTailProvider, probeMessage, tailProbe } from '../health/quota-wall';
import type { Escalation, MessageSnapshot, ModelRef } from '../model';
import type { ProviderScope } from '../health/provider-choice';
import { abortSession, type AbortOptions, type AbortResult } from './abort';
import { confirmStarted, type ConfirmedBy, type ConfirmOptions } from './confirm';
import { callOpts, clockOf, failureOf, readSession, type ActionContext, type ActionFailure } from './context';
import type { SendRefusal } from './guard';
import { basisOf, type DecisionBasis } from './reverify';
import { chooseAndSend, type PromptSource } from './send';
import { pendingRequestOf, waitingReason } from './waiting';
import { factBaselineDocumentProblem, guaranteeWakeRules } from '../prompt/wake-rules';
import { resolveAuthority, type AuthorityInput } from './authority';

export interface WakeRequest {
  sessionId: string;
  prompt: PromptSource;
  /** Explicit model (--model); otherwise chosen. */
  model?: ModelRef | null;
  /** Agent role (default "build"). */
  agent?: string;
  abortFirst?: boolean;
  /** Which providers the model may be chosen on (sessionOps.recovery.providers, --providers); absent: any. */
  providers?: ProviderScope | null;
  abort?: AbortOptions;
  confirm?: ConfirmOptions;
  /**
   * The samples the decision to wake rests on (the monitor's row, a persisted retry's); absent:
   * the wake's own read. After an ordered abort the basis is the read that confirmed idle.
   */
  basis?: DecisionBasis | null;
  /** Whom the completion-report protocol names when it has to be appended (the session's title and newest user message fill the rest). */
  authority?: Omit<AuthorityInput, 'sessionTitle' | 'newestUserText'>;
  /** The prompt is a fact-baseline document: refused unless it still holds its four parts. */
  factBaseline?: boolean;
}

/** `escalated`: the session's turn died on a balance failure (HTTP 402): a person tops up; nothing sent. */
export type WakeOutcome = 'confirmed' | 'not-confirmed' | 'refused' | 'escalated' | 'error';

export interface WakeResult {
  session: string;
  outcome: WakeOutcome;
  confirmed: boolean;
  confirmedBy: ConfirmedBy;
  model: ModelRef | null;
  /** Why this model (or why none). */
  modelBasis: string | null;
  aborted: boolean;
  abort: AbortResult | null;
  /** The prompt text (kept for the caller to show or retry), null when none was built. */
  prompt: string | null;
  refusal: SendRefusal | null;
  error: ActionFailure | null;
  message: string;
  /** What Session Ops appended to the prompt (the anti-re-hang clause, the completion-report protocol), or null. */
  notice: string | null;
  /** escalated: why a person must act (a balance failure), or null. */
  escalation: Escalation | null;
}

/**
 * A balance failure (HTTP 402 insufficient_quota) at the session's tail: a top-up by a person
 * cures it, not another provider (spec "Errors"), so no wake is sent, by any host; null otherwise.
 */
export function balanceEscalation(newest: MessageSnapshot | null): Escalation | null {
  const wall = probeMessage(newest);
  if (wall?.category !== 'balance') return null;
  const who = wall.provider ?? 'an unknown provider';
  return {
    reason: 'balance',
    message: `balance failure on ${who} (HTTP 402 insufficient_quota): a human must top up the account; switching provider is not the cure`,
    marks: [],
  };
}

/** What a confirmation rests on, as the wake's message says it. */
function confirmedByText(by: ConfirmedBy): string {
  return by === 'generating'
    ? 'the session read generating and moved between two reads'
    : 'a newer assistant message appeared';
}

export async function wakeSession(ctx: ActionContext, req: WakeRequest): Promise<WakeResult> {
  const id = req.sessionId;
  const base: WakeResult = {
    session: id,
    outcome: 'error',
    confirmed: false,
    confirmedBy: null,
    model: null,
    modelBasis: null,
    aborted: false,
    abort: null,
    prompt: typeof req.prompt === 'string' ? req.prompt : null,
    refusal: null,
    error: null,
    message: '',
    notice: null,
    escalation: null,
  };
  const refuse = (code: SendRefusal['code'], reason: string): WakeResult => ({
    ...base,
    outcome: 'refused',
    refusal: { code, reason, prompt: base.prompt ?? '', model: req.model ?? null },
    message: `refused, nothing sent: ${reason}`,
  });
  const fail = (error: ActionFailure, message: string): WakeResult => ({ ...base, outcome: 'error', error, message });
  const escalate = (escalation: Escalation): WakeResult => ({
    ...base,
    outcome: 'escalated',
    escalation,
    message: `escalated to a human: ${escalation.message}; nothing sent`,
  });
  try {
    const incomplete = req.factBaseline && typeof req.prompt === 'string' && factBaselineDocumentProblem(req.prompt);
    if (incomplete) return refuse('compose-failed', incomplete);
    if (req.abortFirst) {
      // A balance failure is never woken: found before the abort, nothing is sent at all.
      const before = balanceEscalation(await ctx.backend.newestMessage(ctx.directory, id, callOpts(ctx)));
      if (before) return escalate(before);
      const waiting = await pendingRequestOf(ctx, id);
      if (waiting) return refuse('waiting-for-person', waitingReason(id, waiting, 'abort-and-wake'));
      const aborted = await abortSession(ctx, id, { ...req.abort, basis: req.basis ?? undefined });
      base.abort = aborted;
      if (aborted.refusal) return refuse(aborted.refusal.code, aborted.refusal.reason);
      base.aborted = aborted.outcome !== 'error';
      if (!aborted.idle)
        return aborted.error
          ? fail(aborted.error, aborted.message)
          : { ...base, outcome: 'not-confirmed', message: `${aborted.message}; nothing sent` };
    }
    const [session, newest, listing] = await Promise.all([
      readSession(ctx, id),
      ctx.backend.newestMessage(ctx.directory, id, callOpts(ctx)),
      ctx.backend.listProviders(ctx.directory, callOpts(ctx)),
    ]);
    if (!session)
      return fail(
        { code: 'not-listed', message: `session ${id} is not listed in this directory` },
        `session ${id} is not listed in this directory; nothing sent`,
      );
    if (session.state !== 'idle') {
      return refuse(
        'not-idle',
        `session ${id} reads ${session.state}, not idle: add --abort-first (abort, read idle, then send), or wait until it is idle`,
      );
    }
    const balance = balanceEscalation(newest);
    if (balance) return escalate(balance);
    const now = clockOf(ctx).now();
    const wallProvider = heldTailProvider({ at: now, session, newest }, listing, now);
    const lapsed = tailProbe({ at: now, session, newest })?.provider ?? null;
    const report = resolveAuthority({
      ...req.authority,
      sessionTitle: session.title,
      newestUserText: newest && newest.role === 'user' ? newest.text : null,
    }).report;
    const withRules = (text: string): string => {
      if (text.trim() === '') return text; // the guard refuses an empty prompt
      const g = guaranteeWakeRules(text, report);
      base.notice = g.notice;
      return g.text;
    };
    const source = req.prompt;
    const prompt: PromptSource =
      typeof source === 'string'
        ? withRules(source)
        : async (facts) => {
            const composed = await source(facts);
            return composed.ok ? { ...composed, text: withRules(composed.text) } : composed;
          };
    const sent = await chooseAndSend(ctx, {
      sessionId: id,
      agent: req.agent ?? 'build',
      requested: req.model ?? null,
      providers: req.providers,
      prompt,
      session,
      newest,
      listing,
      wallProvider,
      avoid: lapsed,
      basis: (!req.abortFirst && req.basis) || basisOf(session, newest),
    });
    base.modelBasis = sent.choice.basis;
    base.prompt = sent.text;
    if (!sent.sent && sent.refusal)
      return {
        ...base,
        model: sent.refusal.model,
        outcome: 'refused',
        refusal: sent.refusal,
        message: `refused, nothing sent: ${sent.refusal.reason}`,
      };
    if (!sent.sent && sent.error)
      return {
        ...base,
        model: sent.model,
        outcome: 'error',
        error: sent.error,
        message: `the prompt was not delivered (${sent.error.message}); it is kept for a retry`,
      };
    if (!sent.sent) return base;
    base.model = sent.model;
    const confirmation = await confirmStarted(ctx, id, newest?.id ?? null, req.confirm);
    const on = `${sent.model.providerID}/${sent.model.modelID}`;
    if (confirmation.confirmed)
      return {
        ...base,
        outcome: 'confirmed',
        confirmed: true,
        confirmedBy: confirmation.by,
        message: `woken on ${on}, confirmed (${confirmedByText(confirmation.by)})`,
      };
    return {
      ...base,
      outcome: 'not-confirmed',
      message: `sent on ${on} (accepted with 204), not confirmed in time: the prompt is stored in session ${id} as its newest user message; it has not started`,
    };
  } catch (err) {
    const f = failureOf(err);
    return fail(f, `wake of ${id} failed: ${f.message}`);
  }
}
