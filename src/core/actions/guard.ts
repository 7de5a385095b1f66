// The send guard, below every caller: a prompt is sent only when it is not empty and not above the
// size cap (prompt.maxKiB), carries no unfilled placeholder (PROMPT_PLACEHOLDERS), with an explicit model whose provider is connected, unmarked (no quota
// object, no client-side mark) and not the provider of the session's quota wall. `guardPrompt` is the only producer of a GuardedPrompt
// (the brand lives in src/core/backend/guarded-prompt.ts, where BackendClient.promptAsync checks it).
import type { ModelRef, ProviderListing, ProviderRecord } from '../model';
import { issueGuardedPrompt, type GuardedPrompt } from '../backend/guarded-prompt';
import { payloadFault, textPrompt } from '../backend/payload';
import { DEFAULT_MONITOR_SETTINGS } from '../settings/operator-settings';
import { sizeText, utf8Length } from '../utf8';
import { quotaOf, recordOf } from '../health/provider-records';
import { ORCHESTRATOR_PLACEHOLDER, TICKET_PLACEHOLDER } from './authority';

/**
 * The placeholders a composed document may show for a person to fill (the editor's prompt
 * documents): never sent. The report line's format slots (`status=<done|blocked|handoff>`,
 * `summary=<one line>`) are the worker's to fill and are not among them.
 */
export const PROMPT_PLACEHOLDERS: readonly string[] = [ORCHESTRATOR_PLACEHOLDER, TICKET_PLACEHOLDER];

/** What each placeholder stands for, in a refusal. */
const PLACEHOLDER_FILL: Record<string, string> = {
  [ORCHESTRATOR_PLACEHOLDER]: 'the orchestrator session id (CLI: --orchestrator or SESSION_OPS_ORCHESTRATOR)',
  [TICKET_PLACEHOLDER]: 'the ticket reference (CLI: --ticket)',
};

/** The placeholders still in `text`, in PROMPT_PLACEHOLDERS order. */
export function unfilledPlaceholders(text: string): string[] {
  return PROMPT_PLACEHOLDERS.filter((p) => text.includes(p));
}

export { isGuardedPrompt, type GuardedPrompt } from '../backend/guarded-prompt';

export type SendRefusalCode =
  | 'no-model'
  | 'empty-prompt'
  /** The prompt's UTF-8 size is above the cap (prompt.maxKiB). */
  | 'prompt-too-large'
  | 'compose-failed'
  | 'not-idle'
  | 'not-at-wall'
  | 'no-verdict'
  | 'pre-dispatch'
  | 'invalid-payload'
  | 'provider-not-connected'
  | 'provider-marked'
  | 'provider-is-wall'
  | 'model-unknown'
  | 'waiting-for-person'
  /** The session moved since the samples the decision rests on (src/core/actions/reverify.ts). */
  | 'stale'
  /** Another actor held the session's lock past the bounded wait. */
  | 'busy'
  /** A fact baseline or a re-tasking by a session that does not hold the orchestrating authority. */
  | 'not-authority'
  /** A session at a quota wall is woken only with the quota-wall prompt (spec Endpoints rule 5). */
  | 'needs-quota-wake'
  /** The prompt still carries a placeholder a person was to fill (PROMPT_PLACEHOLDERS). */
  | 'unfilled-placeholder';

/** Why a prompt was not sent; `prompt` and `model` are kept for the caller to show or retry. */
export interface SendRefusal {
  code: SendRefusalCode;
  /** Readable, says which flag or choice fixes it. */
  reason: string;
  prompt: string;
  model: ModelRef | null;
}

export interface GuardInput {
  directory: string;
  sessionId: string;
  agent: string;
  /** The explicit model (null: none could be determined; refused). */
  model: ModelRef | null;
  text: string;
  /** A fresh provider listing (with client-side marks merged in). */
  listing: ProviderListing;
  /** Provider of the session's quota wall, if it is at one. */
  wallProvider: string | null;
  /** The largest prompt sent, in bytes of UTF-8 (prompt.maxKiB; absent: its default). */
  maxPromptBytes?: number;
  /** The model's variant for the payload (a route's effort); it must be in the model's listed variant table. */
  variant?: string | null;
}

export type GuardResult = { ok: true; prompt: GuardedPrompt } | { ok: false; refusal: SendRefusal };

export function guardPrompt(input: GuardInput): GuardResult {
  const refuse = (code: SendRefusalCode, reason: string): GuardResult => ({
    ok: false,
    refusal: { code, reason, prompt: input.text, model: input.model },
  });
  const model = input.model;
  if (!model || model.providerID === '' || model.modelID === '') {
    return refuse(
      'no-model',
      'no explicit model could be determined: name one with --model PROVIDER/MODEL (a connected provider without a quota mark)',
    );
  }
  if (input.text.trim() === '')
    return refuse('empty-prompt', 'the prompt is empty: give a non-empty --prompt-file or a --compose kind');
  const unfilled = unfilledPlaceholders(input.text);
  if (unfilled.length > 0)
    return refuse(
      'unfilled-placeholder',
      `the prompt still carries ${unfilled.join(' and ')}: fill ${unfilled.map((p) => PLACEHOLDER_FILL[p]).join(' and ')} in the prompt before sending; nothing was sent`,
    );
  const maxBytes = input.maxPromptBytes ?? DEFAULT_MONITOR_SETTINGS.maxPromptBytes;
  const bytes = utf8Length(input.text);
  if (bytes > maxBytes)
    return refuse(
      'prompt-too-large',
      `the prompt is ${sizeText(bytes)} (${bytes} bytes), above the cap of ${sizeText(maxBytes)} (setting prompt.maxKiB): shorten it, or raise the cap (CLI --max-prompt-kib)`,
    );
  const p = model.providerID;
  const name = `${p}/${model.modelID}`;
  if (input.wallProvider !== null && p === input.wallProvider) {
    return refuse(
      'provider-is-wall',
      `${name}: ${p} is the provider of this session's quota wall; choose another provider with --model`,
    );
  }
  if (!input.listing.connected.includes(p)) {
    const free = input.listing.connected.filter((id) => !quotaOf(input.listing, id) && id !== input.wallProvider);
    return refuse(
      'provider-not-connected',
      `${name}: provider ${p} is not connected; choose a connected one with --model${freeList(free)}`,
    );
  }
  // Every record of the id: a provider listed twice is marked if any of them carries quota.
  const record = recordOf(input.listing, p);
  if (record?.quota) {
    const reset =
      record.quota.resetAt !== null ? `until ${new Date(record.quota.resetAt).toISOString()}` : 'reset unknown';
    return refuse(
      'provider-marked',
      `${name}: provider ${p} has a quota mark (${reset}); choose another provider with --model`,
    );
  }
  if (!modelListed(record, model.modelID)) {
    const models = record?.models ?? [];
    const shown = models.slice(0, 30).join(', ') + (models.length > 30 ? `, ... (${models.length} in all)` : '');
    return refuse(
      'model-unknown',
      `${name}: provider ${p} does not list ${model.modelID}; its models: ${shown}; choose one with --model`,
    );
  }
  const variant = input.variant ?? null;
  if (variant !== null && !(record?.variants?.[model.modelID] ?? []).includes(variant))
    return refuse(
      'invalid-payload',
      `${name}: the provider listing shows no variant "${variant}" for this model: a variant is sent only from the model's variant table`,
    );
  const payload = textPrompt(input.agent, model, input.text, variant);
  const fault = payloadFault(payload);
  if (fault)
    return refuse(
      'invalid-payload',
      `the prompt payload is invalid: ${fault.text}${fault.field === 'agent' ? ' (set --agent NAME)' : ''}`,
    );
  const prompt = issueGuardedPrompt({
    directory: input.directory,
    sessionId: input.sessionId,
    payload,
    text: input.text,
    model,
  });
  return { ok: true, prompt };
}

/** A model is known to work on a provider whose listing names its models only when it is named there. */
export function modelListed(record: ProviderRecord | undefined, modelID: string): boolean {
  return !record || record.models.length === 0 || record.models.includes(modelID);
}

/** " (free: a, b)" naming the providers free to choose, or nothing. */
function freeList(free: readonly string[]): string {
  return free.length ? ` (free: ${free.join(', ')})` : '';
}
