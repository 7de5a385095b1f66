// Authority rule 1 on a fact baseline whoever wrote it (composed, a --prompt-file, an edited
// document): the orchestrator it speaks for is the one its completion-report block sends the
// reports to (else the flag, SESSION_OPS_ORCHESTRATOR or the host's), and it is compared with the
// worker's newest assignment and its durable record (assignment.ts). A fact baseline that was sent
// is recorded as the worker's assignment by that orchestrator.
import type { MessageSnapshot } from '../model';
import { isFactBaselineDocument } from '../prompt/wake-rules';
import { readAssigner, recordAssignment, type Assigner } from './assignment';
import { reportTargetIn, resolveAuthority, retaskRefusal, type AuthorityInput } from './authority';
import { callOpts, type ActionContext } from './executor-context';

export interface RetaskCheck {
  /** Why it may not be sent (authority rule 1), or null. */
  refusal: string | null;
  /** The orchestrator the fact baseline speaks for (null: it names none). */
  speaker: string | null;
  assigner: Assigner;
}

/**
 * The rule-1 check of a fact-baseline text for session `id`; `newest` is read when not given.
 * Null when the text is not a fact baseline (and `factBaseline` does not say it is one).
 */
export async function checkFactBaseline(
  ctx: ActionContext,
  id: string,
  text: string,
  input: Omit<AuthorityInput, 'sessionTitle' | 'newestUserText' | 'assigned'> = {},
  options: { factBaseline?: boolean; newest?: MessageSnapshot | null; assigner?: Assigner } = {},
): Promise<RetaskCheck | null> {
  if (!options.factBaseline && !isFactBaselineDocument(text)) return null;
  const newest =
    options.newest !== undefined ? options.newest : await ctx.backend.newestMessage(ctx.directory, id, callOpts(ctx));
  const assigner = options.assigner ?? (await readAssigner(ctx, id));
  const given = resolveAuthority({ ...input });
  const speaker = reportTargetIn(text) ?? given.orchestrator;
  const authority = resolveAuthority({
    ...input,
    orchestrator: speaker,
    newestUserText: newest && newest.role === 'user' ? newest.text : null,
    assigned: assigner,
  });
  return { refusal: retaskRefusal(authority, 'fact-baseline'), speaker, assigner };
}

/** After a fact baseline was sent: its orchestrator is recorded as the worker's assigner. */
export function recordFactBaseline(ctx: ActionContext, id: string, check: RetaskCheck): Promise<string | null> {
  return recordAssignment(ctx, id, 'fact-baseline', check.speaker, check.assigner.ticket, check.assigner);
}
