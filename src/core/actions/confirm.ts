// After a 204 from prompt_async (not proof the prompt ran): read until a newer ASSISTANT message
// appears, or (when accepted as proof) the session reads generating AND moved between two
// generating reads (stepCount grew, lastStepAt or the newest message id advanced). One generating
// read is no proof: a dead stream reads generating too. The stored user message is not proof.
// Bounded by `withinMs`; reads the newest message with limit=1 only.
import type { MessageSnapshot, SessionSnapshot } from '../model';
import { callOpts, clockOf, readSession, type ActionContext } from './executor-context';

export interface ConfirmOptions {
  withinMs?: number;
  pollMs?: number;
  maxPollMs?: number;
  /** Accept the session reading generating and moving across two reads as proof. Default true. */
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
  let previous: { session: SessionSnapshot; newestId: string | null } | null = null;
  for (;;) {
    const [m, s] = await Promise.all([
      ctx.backend.newestMessage(ctx.directory, sessionId, callOpts(ctx)),
      acceptGenerating ? readSession(ctx, sessionId) : Promise.resolve(null),
    ]);
    if (m && m.role === 'assistant' && (beforeId === null || m.id > beforeId))
      return { confirmed: true, by: 'assistant-message', message: m };
    if (s && s.state === 'generating') {
      if (previous && moved(previous, s, m?.id ?? null)) return { confirmed: true, by: 'generating', message: null };
      previous = { session: s, newestId: m?.id ?? null };
    } else previous = null;
    const left = deadline - clock.now();
    if (left <= 0) return { confirmed: false, by: null, message: null };
    await clock.sleep(Math.min(pause, left), ctx.signal);
    pause = Math.min(maxPause, Math.round(pause * 1.5));
  }
}

/** Between two generating reads: the step counter grew, the heartbeat advanced, or a newer message appeared. */
function moved(
  before: { session: SessionSnapshot; newestId: string | null },
  now: SessionSnapshot,
  newestId: string | null,
): boolean {
  const a = before.session.progress;
  const b = now.progress;
  if (a && b && (b.stepCount > a.stepCount || b.lastStepAt > a.lastStepAt)) return true;
  return newestId !== null && (before.newestId === null || newestId > before.newestId);
}
