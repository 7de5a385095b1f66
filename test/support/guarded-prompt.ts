// Tests that launch a session on a provider they know is connected and unmarked pass the real
// send guard with a listing that says so (promptAsync takes nothing else).
import { guardPrompt, type GuardedPrompt } from '../../src/core/actions/guard';
import type { ModelRef } from '../../src/core/model';

export function guardedPrompt(
  directory: string,
  sessionId: string,
  model: ModelRef,
  text: string,
  agent = 'build',
): GuardedPrompt {
  const listing = {
    providers: [{ id: model.providerID, name: null, connected: true, quota: null, models: [model.modelID] }],
    connected: [model.providerID],
  };
  const r = guardPrompt({ directory, sessionId, agent, model, text, listing, wallProvider: null });
  if (!r.ok) throw new Error(`test prompt refused: ${r.refusal.reason}`);
  return r.prompt;
}
