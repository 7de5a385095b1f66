// The shared tail of wake, recovery and dispatch: choose the model, build the text, pass the send
// guard, then, holding the session's lock, re-read it and POST prompt_async only when nothing
// moved since the decision's samples (reverify.ts). Nothing is sent without a GuardedPrompt.
import { BackendError } from '../backend/errors';
import type { MessageSnapshot, ModelRef, ProviderListing, SessionSnapshot } from '../model';
import type { Assigner } from './assignment';
import type { Composed } from './compose';
import { callOpts, failureOf, type ActionContext, type ActionFailure } from './executor-context';
import { guardPrompt, type SendRefusal } from './guard';
import { chooseModel, type ModelChoice } from './model-choice';
import { actOnce, type DecisionBasis } from './reverify';
import type { ProviderScope } from '../health/provider-choice';

/** What a prompt builder knows when it runs (after the model was chosen). */
export interface PromptFacts {
  model: ModelRef;
  session: SessionSnapshot;
  newest: MessageSnapshot | null;
  wallProvider: string | null;
  /** Who assigned the worker (its durable record), when the caller read it. */
  assigned?: Assigner | null;
}

/** The prompt text, or a builder that composes it once the model is known. */
export type PromptSource = string | ((facts: PromptFacts) => Composed | Promise<Composed>);

export interface SendInput {
  sessionId: string;
  agent: string;
  requested: ModelRef | null;
  prefer?: string | null;
  /** Which providers may be chosen (sessionOps.recovery.providers, --providers); absent: any. */
  providers?: ProviderScope | null;
  prompt: PromptSource;
  session: SessionSnapshot;
  newest: MessageSnapshot | null;
  listing: ProviderListing;
  /** The provider the session's quota wall rules out now (null: none, or its wall is over). */
  wallProvider: string | null;
  /** A provider tried only after every other (the provider of a wall that is over). */
  avoid?: string | null;
  /** Models seen answering recently, newest first (the model choice prefers them on their provider). */
  recent?: readonly ModelRef[];
  /** The samples the decision to send rests on; the send is refused as stale when the session moved since. */
  basis: DecisionBasis;
  /** Who assigned the worker (its durable record), handed to a prompt builder. */
  assigned?: Assigner | null;
  /** The model's variant for the payload (dispatch by route: the effort's variant); absent: none. */
  variant?: string | null;
}

/**
 * Whether a prompt reached the backend: true (answered 204, or a read shows it stored), false (a
 * refusal, nothing POSTed, or the backend answered with an error), "unknown" (the POST was made
 * but its answer never came: a timeout, a reset connection; a read has not shown it stored yet).
 */
export type Delivery = true | false | 'unknown';

/**
 * How a sent prompt is known to be there: `answer` the 204; `read` the answer never came but the
 * next read of the newest message showed it stored; `already` the newest user message already held
 * this very text (a retry after an answer that never came), so it was not sent again.
 */
export type DeliveredBy = 'answer' | 'read' | 'already';

/** How a result says each way of knowing the prompt is there. */
export const DELIVERED: Record<DeliveredBy, string> = {
  answer: 'accepted with 204',
  read: 'its answer never came, but a read showed it stored',
  already: 'the backend already had this prompt as its newest user message: not sent again',
};

export type SendOutcome =
  | { sent: true; model: ModelRef; choice: ModelChoice; text: string; deliveredBy: DeliveredBy }
  | { sent: false; refusal: SendRefusal; choice: ModelChoice; text: string | null; error: null }
  | {
      sent: false | 'unknown';
      refusal: null;
      choice: ModelChoice;
      text: string;
      model: ModelRef;
      error: ActionFailure;
    };

/** A prompt chosen, composed and through the guard, not yet sent (what a wake after an abort needs, settled first). */
export interface PreparedSend {
  sessionId: string;
  agent: string;
  model: ModelRef;
  choice: ModelChoice;
  text: string;
  /** The model's variant the payload carries (null: none). */
  variant?: string | null;
}

export type PrepareOutcome =
  { ok: true; prepared: PreparedSend } | { ok: false; refusal: SendRefusal; choice: ModelChoice; text: string | null };

/** BackendError codes that mean the request may have been written and its answer never came. */
const ANSWER_LOST = new Set(['timeout', 'network', 'aborted']);

/** A failed POST: "unknown" when its answer never came, false when the backend answered (or nothing was written). */
export function deliveryOfFailure(err: BackendError): false | 'unknown' {
  return ANSWER_LOST.has(err.code) ? 'unknown' : false;
}

/**
 * A prompt's text as compared with a stored one: whitespace runs as one space, and the ISO times a
 * composed prompt states ("woken at ...") as one token, so the same prompt composed again by a
 * retrying caller compares equal to the one the backend already has.
 */
function comparable(text: string): string {
  return text
    .replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?Z\b/g, '<time>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The newest message is a user message holding this prompt (times aside): the backend already has it. */
export function holdsPrompt(newest: MessageSnapshot | null, text: string): boolean {
  return !!newest && newest.role === 'user' && comparable(newest.text) === comparable(text);
}

/** Models of the completed, failure-free assistant messages among `messages`, newest first. */
export function answeringModels(messages: ReadonlyArray<MessageSnapshot | null>): ModelRef[] {
  const out: ModelRef[] = [];
  for (const m of [...messages].reverse()) {
    if (!m || m.role !== 'assistant' || m.failure || m.completedAt === null) continue;
    const ref = lastModelOf(m);
    if (ref) out.push(ref);
  }
  return out;
}

export function lastModelOf(newest: MessageSnapshot | null): ModelRef | null {
  return newest?.providerID && newest.modelID ? { providerID: newest.providerID, modelID: newest.modelID } : null;
}

/**
 * Chooses the model, composes the text and passes the send guard, sending nothing: a wake that an
 * abort must precede settles all of it first (nothing is aborted when the wake could not follow).
 */
export async function prepareSend(ctx: ActionContext, input: Omit<SendInput, 'basis'>): Promise<PrepareOutcome> {
  const choice = chooseModel({
    requested: input.requested,
    last: lastModelOf(input.newest),
    listing: input.listing,
    wallProvider: input.wallProvider,
    prefer: input.prefer,
    providers: input.providers,
    avoid: input.avoid,
    recent: input.recent,
  });
  let text: string;
  if (typeof input.prompt === 'string') text = input.prompt;
  else if (!choice.model) text = '';
  else {
    const composed = await input.prompt({
      model: choice.model,
      session: input.session,
      newest: input.newest,
      wallProvider: input.wallProvider,
      assigned: input.assigned,
    });
    if (!composed.ok)
      return {
        ok: false,
        refusal: { code: composed.code ?? 'compose-failed', reason: composed.problem, prompt: '', model: choice.model },
        choice,
        text: null,
      };
    text = composed.text;
  }
  const guarded = guardPrompt({
    directory: ctx.directory,
    sessionId: input.sessionId,
    agent: input.agent,
    model: choice.model,
    text,
    listing: input.listing,
    wallProvider: input.wallProvider,
    maxPromptBytes: ctx.maxPromptBytes,
    variant: input.variant ?? null,
  });
  if (!guarded.ok) {
    const refusal = choice.model ? guarded.refusal : { ...guarded.refusal, reason: choice.basis };
    return { ok: false, refusal, choice, text: text === '' ? null : text };
  }
  return {
    ok: true,
    prepared: {
      sessionId: input.sessionId,
      agent: input.agent,
      model: guarded.prompt.model,
      choice,
      text,
      variant: input.variant ?? null,
    },
  };
}

/**
 * Sends a prepared prompt: the guard again on `listing` (read now), then, holding the session's
 * lock, the re-read, and the POST only when nothing moved since `basis` and the newest message is
 * not already this prompt. A POST whose answer never came is settled by the next read of the
 * newest message: stored (sent), else "unknown" (never called not delivered).
 */
export async function sendPrepared(
  ctx: ActionContext,
  p: PreparedSend,
  listing: ProviderListing,
  wallProvider: string | null,
  basis: DecisionBasis,
): Promise<SendOutcome> {
  const { choice, text } = p;
  const guarded = guardPrompt({
    directory: ctx.directory,
    sessionId: p.sessionId,
    agent: p.agent,
    model: p.model,
    text,
    listing,
    wallProvider,
    maxPromptBytes: ctx.maxPromptBytes,
    variant: p.variant ?? null,
  });
  if (!guarded.ok) return { sent: false, refusal: guarded.refusal, choice, text, error: null };
  const model = guarded.prompt.model;
  let acted;
  try {
    acted = await actOnce(ctx, p.sessionId, basis, 'prompt', async (fresh): Promise<DeliveredBy> => {
      // A retry after an answer that never came: the backend already has it; never sent twice.
      if (holdsPrompt(fresh.newest, text)) return 'already';
      await ctx.backend.promptAsync(guarded.prompt, callOpts(ctx));
      return 'answer';
    });
  } catch (err) {
    if (!(err instanceof BackendError)) throw err;
    const sent = deliveryOfFailure(err);
    if (sent === 'unknown' && (await storedSince(ctx, p.sessionId, basis, text)))
      return { sent: true, model, choice, text, deliveredBy: 'read' };
    return { sent, refusal: null, choice, text, model, error: failureOf(err) };
  }
  if (!acted.acted)
    return {
      sent: false,
      refusal: { code: acted.refusal.code, reason: acted.refusal.reason, prompt: text, model },
      choice,
      text,
      error: null,
    };
  return { sent: true, model, choice, text, deliveredBy: acted.value };
}

/** The next read of the newest message (limit=1) after an answer that never came: whether it is the prompt. */
async function storedSince(
  ctx: ActionContext,
  sessionId: string,
  basis: DecisionBasis,
  text: string,
): Promise<boolean> {
  try {
    const newest = await ctx.backend.newestMessage(ctx.directory, sessionId, { timeoutMs: ctx.timeoutMs });
    return newest !== null && newest.id !== basis.newestId && holdsPrompt(newest, text);
  } catch {
    return false; // still unknown
  }
}

export async function chooseAndSend(ctx: ActionContext, input: SendInput): Promise<SendOutcome> {
  const prepared = await prepareSend(ctx, input);
  if (!prepared.ok)
    return { sent: false, refusal: prepared.refusal, choice: prepared.choice, text: prepared.text, error: null };
  return sendPrepared(ctx, prepared.prepared, input.listing, input.wallProvider, input.basis);
}
