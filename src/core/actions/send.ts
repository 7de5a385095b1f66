// The shared tail of wake, recovery and dispatch: choose the model, build the text, pass the send
// guard, then, holding the session's lock, re-read it and POST prompt_async only when nothing
// moved since the decision's samples (reverify.ts). Nothing is sent without a GuardedPrompt.
import { BackendError } from '../backend/errors';
import type { MessageSnapshot, ModelRef, ProviderListing, SessionSnapshot } from '../model';
import type { Composed } from './compose';
import { callOpts, failureOf, type ActionContext, type ActionFailure } from './context';
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
}

export type SendOutcome =
  | { sent: true; model: ModelRef; choice: ModelChoice; text: string }
  | { sent: false; refusal: SendRefusal; choice: ModelChoice; text: string | null; error: null }
  | { sent: false; refusal: null; choice: ModelChoice; text: string; model: ModelRef; error: ActionFailure };

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

export async function chooseAndSend(ctx: ActionContext, input: SendInput): Promise<SendOutcome> {
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
    });
    if (!composed.ok)
      return {
        sent: false,
        refusal: { code: composed.code ?? 'compose-failed', reason: composed.problem, prompt: '', model: choice.model },
        choice,
        text: null,
        error: null,
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
  });
  if (!guarded.ok) {
    const refusal = choice.model ? guarded.refusal : { ...guarded.refusal, reason: choice.basis };
    return { sent: false, refusal, choice, text: text === '' ? null : text, error: null };
  }
  let acted;
  try {
    acted = await actOnce(ctx, input.sessionId, input.basis, 'prompt', () =>
      ctx.backend.promptAsync(guarded.prompt, callOpts(ctx)),
    );
  } catch (err) {
    if (!(err instanceof BackendError)) throw err;
    return { sent: false, refusal: null, choice, text, model: guarded.prompt.model, error: failureOf(err) };
  }
  if (!acted.acted)
    return {
      sent: false,
      refusal: { code: acted.refusal.code, reason: acted.refusal.reason, prompt: text, model: guarded.prompt.model },
      choice,
      text,
      error: null,
    };
  return { sent: true, model: guarded.prompt.model, choice, text };
}
