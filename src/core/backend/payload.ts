// The prompt payload of POST /session/{id}/prompt_async: agent, an explicit model, text parts, and
// (stock opencode only: capabilities.promptVariant) the model's variant a route's effort maps to.
// The spec's payload defines agent, model and parts only: a variant is never sent to a backend whose
// dialect does not take it (the client refuses such a payload). The body is always produced by
// JSON.stringify from these fields, never by splicing text.
import type { ModelRef } from '../model';

export interface PromptPayload {
  agent: string;
  /** Every launch or wake names a model explicitly (a provider known to work). */
  model: ModelRef;
  parts: Array<{ type: 'text'; text: string }>;
  /** The model's variant (stock opencode's prompt_async takes it); absent: the model's default. */
  variant?: string;
}

export function textPrompt(agent: string, model: ModelRef, text: string, variant?: string | null): PromptPayload {
  return {
    agent,
    model: { providerID: model.providerID, modelID: model.modelID },
    parts: [{ type: 'text', text }],
    ...(variant ? { variant } : {}),
  };
}

/** The field of the payload a problem is in (`payload`: not an object at all). */
export type PayloadField = 'payload' | 'agent' | 'model' | 'parts' | 'variant';

/** Null when the payload is acceptable, otherwise why not. */
export function payloadProblem(p: unknown): string | null {
  return payloadFault(p)?.text ?? null;
}

/** Null when the payload is acceptable, otherwise the field at fault and why. */
export function payloadFault(p: unknown): { field: PayloadField; text: string } | null {
  const fault = (field: PayloadField, text: string) => ({ field, text });
  if (typeof p !== 'object' || p === null) return fault('payload', 'payload must be an object');
  const x = p as Partial<PromptPayload>;
  if (typeof x.agent !== 'string' || x.agent.trim() === '') return fault('agent', 'agent must be a non-empty string');
  if (typeof x.model !== 'object' || x.model === null)
    return fault('model', 'model {providerID, modelID} is required: every launch or wake names a model');
  if (
    typeof x.model.providerID !== 'string' ||
    x.model.providerID === '' ||
    typeof x.model.modelID !== 'string' ||
    x.model.modelID === ''
  ) {
    return fault('model', 'model.providerID and model.modelID must be non-empty strings');
  }
  if (!Array.isArray(x.parts) || x.parts.length === 0) return fault('parts', 'parts must be a non-empty array');
  for (const part of x.parts) {
    if (typeof part !== 'object' || part === null || part.type !== 'text' || typeof part.text !== 'string')
      return fault('parts', 'each part must be {type: "text", text: string}');
  }
  if (x.variant !== undefined && (typeof x.variant !== 'string' || x.variant.trim() === ''))
    return fault('variant', 'variant, when given, must be a non-empty string');
  return null;
}

/** The request body: JSON serialisation of exactly the payload's fields. */
export function payloadBody(p: PromptPayload): string {
  return JSON.stringify({
    agent: p.agent,
    model: { providerID: p.model.providerID, modelID: p.model.modelID },
    parts: p.parts.map((part) => ({ type: 'text', text: part.text })),
    ...(p.variant !== undefined ? { variant: p.variant } : {}),
  });
}
