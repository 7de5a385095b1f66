// dispatchTask: the pre-dispatch check (src/core/health/pre-dispatch.ts) on the intended model's
// provider; a refusal names the provider to use instead. The sent text is the task followed by
// the completion-report block with the quota self-report clause appended unchanged. To an idle
// session only; through the send guard like every prompt.
import { preDispatchCheck } from '../health/pre-dispatch';
import { tailProbe } from '../health/quota-wall';
import type { ModelRef } from '../model';
import type { Authority } from './authority';
import { composePrompt } from './compose';
import { callOpts, clockOf, failureOf, readSession, type ActionContext, type ActionFailure } from './context';
import type { SendRefusal } from './guard';
import type { Inventory } from './inventory';
import { basisOf } from './reverify';
import { chooseAndSend } from './send';

export interface DispatchRequest {
  sessionId: string;
  task: string;
  model: ModelRef;
  agent?: string;
  authority: Authority;
}

export type DispatchOutcome = 'sent' | 'refused' | 'error';

export interface DispatchResult {
  session: string;
  outcome: DispatchOutcome;
  sent: boolean;
  model: ModelRef;
  /** The provider to dispatch on instead (a refusal of the intended one), or null. */
  instead: string | null;
  problems: string[];
  prompt: string | null;
  refusal: SendRefusal | null;
  error: ActionFailure | null;
  message: string;
}

const NO_INVENTORY: Inventory = { files: null, commits: [], source: null, note: 'not needed for a dispatch' };

export async function dispatchTask(ctx: ActionContext, req: DispatchRequest): Promise<DispatchResult> {
  const id = req.sessionId;
  const composed = composePrompt('dispatch', {
    now: clockOf(ctx).now(),
    authority: req.authority,
    inventory: NO_INVENTORY,
    task: req.task,
  });
  const res: DispatchResult = {
    session: id,
    outcome: 'error',
    sent: false,
    model: req.model,
    instead: null,
    problems: [],
    prompt: composed.ok ? composed.text : null,
    refusal: null,
    error: null,
    message: '',
  };
  const refused = (code: SendRefusal['code'], reason: string, instead: string | null = null): DispatchResult => ({
    ...res,
    outcome: 'refused',
    instead,
    refusal: { code, reason, prompt: res.prompt ?? '', model: req.model },
    message: `refused, nothing sent: ${reason}`,
  });
  if (!composed.ok) return refused('compose-failed', composed.problem);
  try {
    const [session, newest, listing] = await Promise.all([
      readSession(ctx, id),
      ctx.backend.newestMessage(ctx.directory, id, callOpts(ctx)),
      ctx.backend.listProviders(ctx.directory, callOpts(ctx)),
    ]);
    if (!session)
      return {
        ...res,
        error: { kind: 'not-listed', message: `session ${id} is not listed in this directory` },
        message: `session ${id} is not listed in this directory; nothing sent`,
      };
    const check = preDispatchCheck(req.model.providerID, listing);
    res.problems = check.problems;
    if (!check.ok) {
      const instead = check.dispatchOn !== req.model.providerID ? check.dispatchOn : null;
      const hint = instead ? `; dispatch on ${instead} instead (--model ${instead}/MODEL)` : '';
      return refused(
        'pre-dispatch',
        `pre-dispatch check failed for ${req.model.providerID}: ${check.problems.join('; ')}${hint}`,
        instead,
      );
    }
    if (session.state !== 'idle')
      return refused(
        'not-idle',
        `session ${id} reads ${session.state}: dispatch to an idle session (abort it first with session-ops abort)`,
      );
    const wallProvider = tailProbe({ at: clockOf(ctx).now(), session, newest })?.provider ?? null;
    const sent = await chooseAndSend(ctx, {
      sessionId: id,
      agent: req.agent ?? 'build',
      requested: req.model,
      prompt: composed.text,
      session,
      newest,
      listing,
      wallProvider,
      basis: basisOf(session, newest),
    });
    if (!sent.sent && sent.refusal) return refused(sent.refusal.code, sent.refusal.reason, check.fallback);
    if (!sent.sent && sent.error)
      return {
        ...res,
        error: sent.error,
        message: `the dispatch prompt was not delivered (${sent.error.message}); it is kept for a retry`,
      };
    return {
      ...res,
      outcome: 'sent',
      sent: true,
      message: `dispatched to ${id} on ${req.model.providerID}/${req.model.modelID} (accepted with 204)`,
    };
  } catch (err) {
    const f = failureOf(err);
    return { ...res, error: f, message: `dispatch to ${id} failed: ${f.message}` };
  }
}
