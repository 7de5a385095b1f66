// wakeSession: read the session, its newest message and the providers once; refuse when it does
// not read idle and abort-first was not ordered, or (abort-first) while it waits for a person (a
// pending permission or question); choose the explicit model, compose the prompt and pass the send
// guard; only then, with abort-first, abort and read idle (nothing is aborted when the wake could
// not follow); send; then confirm (the session turns generating or a newer assistant message
// appears). A prompt queued before the abort (the newest message, a user message) is re-sent in
// the wake verbatim. A session at a quota wall is woken only with the quota-wall prompt.
// Every wake prompt, whoever wrote it, carries the anti-re-hang clause and the completion-report
// protocol (prompt/wake-rules: appended when missing, with a notice); a fact-baseline document
// is refused when it lost one of its four parts.
import { heldTailProvider, probeMessage, tailProbe } from '../health/quota-wall';
import type { Escalation, MessageSnapshot, ModelRef } from '../model';
import type { ProviderScope } from '../health/provider-choice';
import { abortSession, type AbortOptions, type AbortResult } from './abort';
import { confirmStarted, type ConfirmedBy, type ConfirmOptions } from './confirm';
import { callOpts, clockOf, failureOf, readSession, type ActionContext, type ActionFailure } from './executor-context';
import type { SendRefusal } from './guard';
import { basisOf, type DecisionBasis } from './reverify';
import { DELIVERED, prepareSend, sendPrepared, type Delivery, type PromptSource, type SendOutcome } from './send';
import { pendingRequestOf, waitingReason } from './waiting';
import { factBaselineDocumentProblem, guaranteeWakeRules, quotaWakeDocumentProblem } from '../prompt/wake-rules';
import { queuedPromptOf, withQueuedPrompt, type QueuedPrompt } from '../prompt/queued';
import { readAssigner } from './assignment';
import { resolveAuthority, type AuthorityInput } from './authority';
import { checkFactBaseline, recordFactBaseline, type RetaskCheck } from './retask';

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
  /** Whether the prompt reached the backend ("unknown": it was POSTed and the answer never came). */
  sent: Delivery;
  /** A prompt queued before the abort (re-sent in the wake, or its text could not be read), or null. */
  queued: QueuedPrompt | null;
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

/** An abort that did not end idle: what was sent said as it is (never "nothing sent" once the abort went out). */
export function afterAbortMessage(id: string, aborted: AbortResult): string {
  if (aborted.sent === false) return `${aborted.message}; nothing sent`;
  if (aborted.sent === 'unknown') return `${aborted.message}; the wake was not sent: a person must look at the session`;
  return afterAbortText(id, aborted.message);
}

/** The wake after an abort could not follow: said as what happened (the abort was sent), never "nothing sent". */
export function afterAbortText(id: string, why: string): string {
  return `aborted ${id}, but the wake did not follow: ${why}; the session is left down: a person must wake it`;
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
    sent: false,
    queued: null,
  };
  const refuse = (
    code: SendRefusal['code'],
    reason: string,
    model: ModelRef | null = req.model ?? null,
  ): WakeResult => ({
    ...base,
    outcome: 'refused',
    model,
    refusal: { code, reason, prompt: base.prompt ?? '', model },
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
    // Authority rule 1 on a fact baseline from a file or a document, before anything is sent or aborted.
    let retask: RetaskCheck | null =
      typeof req.prompt === 'string'
        ? await checkFactBaseline(ctx, id, req.prompt, req.authority, { factBaseline: req.factBaseline })
        : null;
    if (retask?.refusal) return refuse('not-authority', retask.refusal);
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
    if (!req.abortFirst && session.state !== 'idle') {
      return refuse(
        'not-idle',
        `session ${id} reads ${session.state}, not idle: add --abort-first (abort, read idle, then send), or wait until it is idle`,
      );
    }
    const balance = balanceEscalation(newest);
    if (balance) return escalate(balance);
    if (req.abortFirst) {
      const waiting = await pendingRequestOf(ctx, id);
      if (waiting) return refuse('waiting-for-person', waitingReason(id, waiting, 'abort-and-wake'));
    }
    const now = clockOf(ctx).now();
    const wall = tailProbe({ at: now, session, newest });
    const wallProvider = heldTailProvider({ at: now, session, newest }, listing, now);
    // Who assigned the worker (its durable record): a prompt naming no orchestrator reports there.
    const assigned = retask?.assigner ?? (await readAssigner(ctx, id));
    const report = resolveAuthority({
      ...req.authority,
      sessionTitle: session.title,
      newestUserText: newest && newest.role === 'user' ? newest.text : null,
      assigned,
    }).report;
    // A prompt queued before the abort (the newest message, read now) is re-sent in the wake, so
    // the guard (and its size cap) sees the text that is sent.
    const queued = req.abortFirst ? queuedPromptOf(newest) : null;
    base.queued = queued;
    const withRules = (text: string): string => {
      if (text.trim() === '') return text; // the guard refuses an empty prompt
      const g = guaranteeWakeRules(text, report);
      base.notice = g.notice;
      return withQueuedPrompt(g.text, queued);
    };
    const source = req.prompt;
    const prompt: PromptSource =
      typeof source === 'string'
        ? withRules(source)
        : async (facts) => {
            const composed = await source(facts);
            if (!composed.ok) return composed;
            retask = await checkFactBaseline(ctx, id, composed.text, req.authority, {
              factBaseline: req.factBaseline,
              newest,
              assigner: assigned,
            });
            if (retask?.refusal)
              return {
                ok: false,
                template: composed.template,
                problem: retask.refusal,
                code: 'not-authority' as const,
              };
            return { ...composed, text: withRules(composed.text) };
          };
    // Everything the wake needs is settled before any abort: the model, the prompt, the guard.
    const prepared = await prepareSend(ctx, {
      sessionId: id,
      agent: req.agent ?? 'build',
      requested: req.model ?? null,
      providers: req.providers,
      prompt,
      session,
      newest,
      listing,
      wallProvider,
      avoid: wall?.provider ?? null,
      assigned,
    });
    base.modelBasis = (prepared.ok ? prepared.prepared : prepared).choice.basis;
    if (!prepared.ok) {
      base.prompt = prepared.text;
      return {
        ...refuse(prepared.refusal.code, prepared.refusal.reason, prepared.refusal.model),
        refusal: prepared.refusal,
      };
    }
    const p = prepared.prepared;
    base.prompt = p.text;
    // A quota-walled session is always woken with the quota-wall prompt (its five parts).
    const notQuotaWake = wall ? quotaWakeDocumentProblem(p.text) : null;
    if (notQuotaWake)
      return refuse(
        'needs-quota-wake',
        `session ${id} is at a quota wall (${wall!.provider ?? 'provider unknown'}): it is woken only with the quota-wall prompt, and this one is not (${notQuotaWake}); recover it instead (session-ops recover ${id}; Recover on Another Provider in the editor), or compose the quota-wall prompt (--compose quota-wake)`,
        p.model,
      );
    let sent: SendOutcome;
    if (req.abortFirst) {
      const aborted = await abortSession(ctx, id, { ...req.abort, basis: req.basis ?? basisOf(session, newest) });
      base.abort = aborted;
      if (aborted.refusal) return refuse(aborted.refusal.code, aborted.refusal.reason, p.model);
      base.aborted = aborted.sent !== false;
      if (!aborted.idle) {
        const message = afterAbortMessage(id, aborted);
        return aborted.error
          ? fail(aborted.error, message)
          : { ...base, outcome: 'not-confirmed', model: null, message };
      }
      // Idle confirmed by a read: the providers and the newest message again, the guard again.
      const [after, fresh] = await Promise.all([
        ctx.backend.newestMessage(ctx.directory, id, callOpts(ctx)),
        ctx.backend.listProviders(ctx.directory, callOpts(ctx)),
      ]);
      const at = clockOf(ctx).now();
      const idle = { ...session, state: 'idle' as const };
      sent = await sendPrepared(
        ctx,
        p,
        fresh,
        heldTailProvider({ at, session: idle, newest: after }, fresh, at) ?? wallProvider,
        basisOf(idle, after),
      );
      if (!sent.sent && sent.refusal)
        // Not a refusal (exit 3 never follows a POST): the abort went out, the wake did not.
        return {
          ...base,
          outcome: 'not-confirmed',
          model: null,
          refusal: sent.refusal,
          message: afterAbortText(id, sent.refusal.reason),
        };
    } else {
      sent = await sendPrepared(ctx, p, listing, wallProvider, req.basis || basisOf(session, newest));
    }
    base.sent = sent.sent;
    if (!sent.sent && sent.refusal)
      return { ...refuse(sent.refusal.code, sent.refusal.reason, sent.refusal.model), refusal: sent.refusal };
    if (sent.sent !== true && sent.error)
      return {
        ...base,
        model: sent.model,
        outcome: 'error',
        error: sent.error,
        message:
          sent.sent === 'unknown'
            ? `the prompt was sent on ${sent.model.providerID}/${sent.model.modelID} but its answer never came (${sent.error.message}): whether the backend has it is unknown; a retry first reads the newest message and does not send it again when it is there`
            : `the prompt was not delivered (${sent.error.message}); it is kept for a retry`,
      };
    if (sent.sent !== true) return base;
    base.model = sent.model;
    if (retask) {
      const unrecorded = await recordFactBaseline(ctx, id, retask);
      if (unrecorded) base.notice = base.notice ? `${base.notice}; ${unrecorded}` : unrecorded;
    }
    const how = sent.deliveredBy === 'answer' ? '' : ` (${DELIVERED[sent.deliveredBy]})`;
    const queuedNote =
      base.queued?.text === null
        ? '; a prompt queued before the abort could not be read: a person must re-send it'
        : base.queued
          ? '; the prompt queued before the abort is re-sent in it'
          : '';
    const confirmation = await confirmStarted(ctx, id, newest?.id ?? null, req.confirm);
    const on = `${sent.model.providerID}/${sent.model.modelID}`;
    if (confirmation.confirmed)
      return {
        ...base,
        outcome: 'confirmed',
        confirmed: true,
        confirmedBy: confirmation.by,
        message: `woken on ${on}${how}, confirmed (${confirmedByText(confirmation.by)})${queuedNote}`,
      };
    return {
      ...base,
      outcome: 'not-confirmed',
      message: `sent on ${on}${how}, not confirmed in time: the prompt is stored in session ${id} as its newest user message; it has not started${queuedNote}`,
    };
  } catch (err) {
    const f = failureOf(err);
    const said = base.aborted ? afterAbortText(id, f.message) : `wake of ${id} failed: ${f.message}`;
    return fail(f, said);
  }
}
