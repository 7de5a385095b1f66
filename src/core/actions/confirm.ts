// After a 204 from prompt_async (not proof the prompt ran): read until the session turns
// generating (when accepted as proof) or a newer ASSISTANT message appears. The stored user
// message is not proof. Bounded by `withinMs`; reads the newest message with limit=1 only.
import type { MessageSnapshot } from '../model';
import { callOpts, clockOf, readSession, type ActionContext } from './context';

export interface ConfirmOptions {
  withinMs?: number;
  pollMs?: number;
  maxPollMs?: number;
  /** Accept the session reading generating as proof (a wake after a confirmed idle). Default true. */
  acceptGenerating?: boolean;
}

export type ConfirmedBy = 'generating' | 'assistant-message' | null;

export interface Confirmation {
  confirmed: boolean;
  by: ConfirmedBy;
  message: MessageSnapshot | null;
}

export async function confirmStarted(
  ctx: ActionContext,
  sessionId: string,
  beforeId: string | null,
  options: ConfirmOptions = {},
): Promise<Confirmation> {
  const clock = clockOf(ctx);
  const deadline = clock.now() + (options.withinMs ?? 60_000);
  const acceptGenerating = options.acceptGenerating ?? true;
  let pause = options.pollMs ?? 250;
  const maxPause = options.maxPollMs ?? 2_000;
  for (;;) {
    const [m, s] = await Promise.all([
      ctx.backend.newestMessage(ctx.directory, sessionId, callOpts(ctx)),
      acceptGenerating ? readSession(ctx, sessionId) : Promise.resolve(null),
    ]);
    if (m && m.role === 'assistant' && (beforeId === null || m.id > beforeId))
      return { confirmed: true, by: 'assistant-message', message: m };
    if (s && s.state === 'generating') return { confirmed: true, by: 'generating', message: null };
    const left = deadline - clock.now();
    if (left <= 0) return { confirmed: false, by: null, message: null };
    await clock.sleep(Math.min(pause, left), ctx.signal);
    pause = Math.min(maxPause, Math.round(pause * 1.5));
  }
}
