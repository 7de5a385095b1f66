// The brand of a prompt that passed the send guard. BackendClient.promptAsync takes nothing else:
// the brand is checked at compile time and the registry below at run time, so neither a cast nor a
// hand-built object gets past it. The guard (src/core/actions/guard.ts, guardPrompt) is the only
// caller of issueGuardedPrompt; the lint rule session-ops/guarded-prompt-issuer holds it so.
import type { ModelRef } from '../model';
import type { PromptPayload } from './payload';

declare const guarded: unique symbol;

/** A prompt that passed the guard, bound to its session and directory. Frozen. */
export interface GuardedPrompt {
  readonly directory: string;
  readonly sessionId: string;
  readonly payload: Readonly<PromptPayload>;
  readonly text: string;
  readonly model: Readonly<ModelRef>;
  readonly [guarded]: true;
}

const issued = new WeakSet<object>();

/** True only for objects produced by issueGuardedPrompt (through guardPrompt). */
export function isGuardedPrompt(value: unknown): value is GuardedPrompt {
  return typeof value === 'object' && value !== null && issued.has(value);
}

/** Freezes a checked prompt and registers it as guarded. Only the send guard calls this. */
export function issueGuardedPrompt(input: {
  directory: string;
  sessionId: string;
  payload: PromptPayload;
  text: string;
  model: ModelRef;
}): GuardedPrompt {
  const { payload, model } = input;
  const prompt = Object.freeze({
    directory: input.directory,
    sessionId: input.sessionId,
    payload: Object.freeze({
      ...payload,
      model: Object.freeze({ ...payload.model }),
      parts: Object.freeze(payload.parts.map((x) => Object.freeze({ ...x }))) as PromptPayload['parts'],
    }),
    text: input.text,
    model: Object.freeze({ providerID: model.providerID, modelID: model.modelID }),
  }) as GuardedPrompt;
  issued.add(prompt);
  return prompt;
}
