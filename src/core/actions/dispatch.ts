// dispatchTask: the pre-dispatch check (src/core/health/pre-dispatch.ts) on the intended model's
// provider; a refusal names the provider to use instead and a model on it. With `fallback` the
// task goes to that provider instead, once the same check passes for it. The sent text is the task followed by
// the completion-report block with the quota self-report clause appended unchanged. To an idle
// session only; through the send guard like every prompt. With a route's `effort`, the payload
// carries the variant it maps to in the variant table the provider listing shows for the model the
// task goes to (the fallback's, when it moved), only on a dialect whose payload takes a variant
// (capabilities.promptVariant: stock opencode; the spec's payload defines agent, model and parts
// only, so there the effort is not sent and the result says so).
import { preDispatchCheck } from '../health/pre-dispatch';
import { modelOn } from '../health/provider-choice';
import { recordOf } from '../health/provider-records';
import { heldTailProvider } from '../health/quota-wall';
import type { ModelRef, ProviderListing } from '../model';
import { variantFor } from '../../language/routing/resolve';
import { readAssigner, recordAssignment } from './assignment';
import { assignedBy, retaskRefusal, type Authority } from './authority';
import { composePrompt } from './compose';
import { callOpts, clockOf, failureOf, readSession, type ActionContext, type ActionFailure } from './executor-context';
import type { SendRefusal } from './guard';
import type { Inventory } from './inventory';
import { basisOf } from './reverify';
import { chooseAndSend, DELIVERED, lastModelOf, type Delivery } from './send';

export interface DispatchRequest {
  sessionId: string;
  task: string;
  model: ModelRef;
  agent?: string;
  authority: Authority;
  /** When the intended provider fails the check and another is named, dispatch there instead. */
  fallback?: boolean;
  /** The route's effort (dispatch by route): the payload carries the model's variant of that name. */
  effort?: string | null;
}

export type DispatchOutcome = 'sent' | 'refused' | 'error';

export interface DispatchResult {
  session: string;
  outcome: DispatchOutcome;
  /** Whether the task reached the backend ("unknown": POSTed, the answer never came). */
  sent: Delivery;
  model: ModelRef;
  /** The provider to dispatch on instead of the intended one (refused, or sent there with fallback), or null. */
  instead: string | null;
  /** A model on `instead` (the session's own when it ran there, else the provider's default or first). */
  insteadModel: ModelRef | null;
  /** The model's variant the payload carried (the route's effort mapped), or null. */
  variant: string | null;
  /** Why a route's effort was not sent as a variant (no variant table, none of its name, a dialect without it), or null. */
  variantNote: string | null;
  problems: string[];
  prompt: string | null;
  refusal: SendRefusal | null;
  error: ActionFailure | null;
  message: string;
}

const NO_INVENTORY: Inventory = { files: null, commits: null, source: null, note: 'not needed for a dispatch' };

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
    insteadModel: null,
    variant: null,
    variantNote: null,
    problems: [],
    prompt: composed.ok ? composed.text : null,
    refusal: null,
    error: null,
    message: '',
  };
  const refused = (
    code: SendRefusal['code'],
    reason: string,
    instead: string | null = null,
    insteadModel: ModelRef | null = null,
  ): DispatchResult => ({
    ...res,
    outcome: 'refused',
    instead,
    insteadModel,
    refusal: { code, reason, prompt: res.prompt ?? '', model: res.model },
    message: `refused, nothing sent: ${reason}`,
  });
  if (!composed.ok) return refused(composed.code ?? 'compose-failed', composed.problem);
  try {
    const [session, newest, listing] = await Promise.all([
      readSession(ctx, id),
      ctx.backend.newestMessage(ctx.directory, id, callOpts(ctx)),
      ctx.backend.listProviders(ctx.directory, callOpts(ctx)),
    ]);
    if (!session)
      return {
        ...res,
        error: { code: 'not-listed', message: `session ${id} is not listed in this directory` },
        message: `session ${id} is not listed in this directory; nothing sent`,
      };
    const intended = req.model.providerID;
    const check = preDispatchCheck(intended, listing);
    res.problems = check.problems;
    let model = req.model;
    if (!check.ok) {
      const instead = check.dispatchOn !== intended ? check.dispatchOn : null;
      const record = instead ? recordOf(listing, instead) : undefined;
      const last = lastModelOf(newest);
      const insteadModel = record ? modelOn(record, last?.providerID === instead ? last.modelID : null) : null;
      const failed = `pre-dispatch check failed for ${intended}: ${check.problems.join('; ')}`;
      if (!instead || !insteadModel || !req.fallback) {
        const insteadName = insteadModel ? `${insteadModel.providerID}/${insteadModel.modelID}` : `${instead}/MODEL`;
        const hint = instead ? `; dispatch on ${instead} instead (--fallback, or --model ${insteadName})` : '';
        return refused('pre-dispatch', `${failed}${hint}`, instead, insteadModel);
      }
      const second = preDispatchCheck(instead, listing);
      if (!second.ok)
        return refused(
          'pre-dispatch',
          `${failed}; the alternative ${instead} fails it too: ${second.problems.join('; ')}`,
          instead,
          insteadModel,
        );
      res.instead = instead;
      res.insteadModel = insteadModel;
      res.model = insteadModel;
      model = insteadModel;
    }
    // Authority rule 1 on the assignment read now (the caller may not have read it): the newest
    // message, and the durable record (the dispatch record, else the first user message).
    const assigner = await readAssigner(ctx, id);
    const retask = retaskRefusal(assignedBy(req.authority, newest, assigner), 'dispatch');
    if (retask) return refused('not-authority', retask);
    if (session.state !== 'idle')
      return refused(
        'not-idle',
        `session ${id} reads ${session.state}: dispatch to an idle session (abort it first with session-ops abort)`,
      );
    const effort = effortVariant(ctx, req.effort ?? null, model, listing);
    res.variantNote = effort.note;
    const now = clockOf(ctx).now();
    const wallProvider = heldTailProvider({ at: now, session, newest }, listing, now);
    const sent = await chooseAndSend(ctx, {
      sessionId: id,
      agent: req.agent ?? 'build',
      requested: model,
      prompt: composed.text,
      session,
      newest,
      listing,
      wallProvider,
      basis: basisOf(session, newest),
      variant: effort.variant,
    });
    if (!sent.sent && sent.refusal) return refused(sent.refusal.code, sent.refusal.reason, check.fallback);
    if (sent.sent !== true && sent.error)
      return {
        ...res,
        sent: sent.sent,
        error: sent.error,
        message:
          sent.sent === 'unknown'
            ? `the dispatch prompt was sent but its answer never came (${sent.error.message}): whether the backend has it is unknown; a retry first reads the newest message and does not send it again when it is there`
            : `the dispatch prompt was not delivered (${sent.error.message}); it is kept for a retry`,
      };
    if (sent.sent !== true) return res;
    const unrecorded = await recordAssignment(
      ctx,
      id,
      'dispatch',
      req.authority.orchestrator,
      req.authority.ticket,
      assigner,
    );
    if (unrecorded) res.problems = [...res.problems, unrecorded];
    const moved = model.providerID !== intended ? ` instead of ${intended} (${check.problems.join('; ')})` : '';
    const variant = effort.variant ? ` variant ${effort.variant}` : '';
    return {
      ...res,
      outcome: 'sent',
      sent: true,
      variant: effort.variant,
      message: `dispatched to ${id} on ${model.providerID}/${model.modelID}${variant}${moved} (${DELIVERED[sent.deliveredBy]})`,
    };
  } catch (err) {
    const f = failureOf(err);
    return { ...res, error: f, message: `dispatch to ${id} failed: ${f.message}` };
  }
}

/**
 * The variant a route's effort maps to on `model` (its variant table in the provider listing),
 * when the backend's payload takes one; otherwise null and a note saying why the effort is not sent.
 */
export function effortVariant(
  ctx: Pick<ActionContext, 'backend'>,
  effort: string | null,
  model: ModelRef,
  listing: ProviderListing,
): { variant: string | null; note: string | null } {
  if (effort === null) return { variant: null, note: null };
  const name = `${model.providerID}/${model.modelID}`;
  const table = recordOf(listing, model.providerID)?.variants?.[model.modelID] ?? null;
  const mapped = variantFor(effort, table);
  if (mapped.variant === null)
    return {
      variant: null,
      note:
        mapped.variantSource === 'no-such-variant'
          ? `effort ${effort} ignored: ${name}'s variants (${(table ?? []).join(', ')}) have none named ${effort}`
          : `effort ${effort} ignored: ${name} has no variant table`,
    };
  if (ctx.backend.capabilities?.promptVariant !== true)
    return {
      variant: null,
      note: `effort ${effort} (variant ${mapped.variant}) not sent: this backend's prompt payload defines no variant`,
    };
  return { variant: mapped.variant, note: null };
}
