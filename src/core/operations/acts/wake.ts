// Wake, abort-and-wake and the send of a given text: one path (optional abort first, the send
// guard, confirmation). A row's wake composes the prompt its state calls for (the quota-wall prompt
// after a wall) on the model the core chooses; a host's request (the CLI) comes built whole; a sent
// text (a reviewed prompt, a fact baseline, a retry) goes on the model given. Whom the prompt speaks
// for is resolved once per act: the authority the host showed the person, else read here once.
import { wakeSession, type PromptFacts, type WakeRequest, type WakeResult } from '../../actions';
import type { DecisionBasis } from '../../actions/reverify';
import type { SessionRow } from '../../monitor/row';
import { authorityInput } from '../operator-authority';
import { wakeOutcome, type OutcomeBase } from '../result-outcome';
import type { ActionOutcome } from '../action-outcome';
import type { Acted, ActionOptions, ActionTarget, SendAct, WakeAct } from '../requests';
import { abortRefusal } from '../targets';
import type { ActRooms } from './rooms';

/** The samples an automatic decision rests on: the row's latest sample. */
export function rowBasis(row: SessionRow): DecisionBasis {
  const latest = row.evidence.latest;
  return { state: latest.state, newestId: latest.newestId, newestRole: latest.newestRole };
}

export function wakeAct(rooms: ActRooms, req: WakeAct): Promise<Acted<WakeResult>> {
  if (req.request) {
    const { request, promptOrigin } = req;
    const abortFirst = request.abortFirst ?? false;
    return wakeWith(rooms, req.target, req, 'waking', request, sentOutcome(promptOrigin, abortFirst));
  }
  const row = req.target;
  const abortFirst = req.abortFirst ?? false;
  const refusal = abortFirst ? abortRefusal(row) : null;
  if (refusal) return Promise.reject(new Error(refusal));
  const template = rooms.prompts.wakeTemplate(row);
  const authority = req.authority ?? rooms.authority.of(row);
  const waits = rooms.core.waits;
  const request: Omit<WakeRequest, 'sessionId'> = {
    prompt: (facts: PromptFacts) =>
      rooms.prompts.compose(row, template, facts.model, { authority, assigned: facts.assigned }),
    providers: [...rooms.core.settings['recovery.providers']],
    abortFirst,
    abort: { waitMs: waits.abortMs },
    confirm: { withinMs: waits.confirmMs },
    // An automatic wake acts on the row's samples: refused as stale when the session moved since.
    basis: req.automatic ? rowBasis(row) : null,
  };
  return wakeWith(rooms, row, req, 'waking', request, sentOutcome(template, abortFirst));
}

export function sendAct(rooms: ActRooms, req: SendAct): Promise<Acted<WakeResult>> {
  const row = req.target;
  const abortFirst = req.abortFirst ?? false;
  const promptOrigin = req.promptOrigin ?? 'custom';
  const holdsAuthority = req.holdsAuthority ?? false;
  const waits = rooms.core.waits;
  const given = req.authority
    ? authorityInput(req.authority, holdsAuthority)
    : { ...rooms.authority.given(row), holdsAuthority };
  const request: Omit<WakeRequest, 'sessionId'> = {
    prompt: req.text,
    model: req.model,
    authority: given,
    factBaseline: promptOrigin === 'fact-baseline',
    abortFirst,
    abort: { waitMs: waits.abortMs },
    confirm: { withinMs: waits.confirmMs },
  };
  return wakeWith(rooms, row, req, 'sending', request, (base, result) =>
    wakeOutcome(base, result, promptOrigin, {
      via: 'send',
      text: req.text,
      model: req.model,
      abortFirst,
      promptOrigin,
      ...(holdsAuthority ? { holdsAuthority } : {}),
    }),
  );
}

/** The one wake path: optional abort first, the send guard, confirm. */
function wakeWith(
  rooms: ActRooms,
  target: ActionTarget,
  options: ActionOptions,
  verb: 'waking' | 'sending',
  request: Omit<WakeRequest, 'sessionId'>,
  outcome: (base: OutcomeBase, result: WakeResult) => ActionOutcome,
): Promise<Acted<WakeResult>> {
  const abortFirst = request.abortFirst ?? false;
  return rooms.runner.run(
    target,
    abortFirst ? 'abort-and-wake' : 'wake',
    abortFirst ? `aborting, then ${verb}` : verb,
    options,
    (ctx) => wakeSession(ctx, { sessionId: target.id, ...request }),
    outcome,
  );
}

/** The outcome of a wake that sent its prompt: the retry it keeps resends the same text. */
function sentOutcome(origin: Parameters<typeof wakeOutcome>[2], abortFirst: boolean) {
  return (base: Parameters<typeof wakeOutcome>[0], result: Parameters<typeof wakeOutcome>[1]) =>
    wakeOutcome(base, result, origin, {
      via: 'send',
      text: result.prompt ?? '',
      model: result.model,
      abortFirst: abortFirst && !result.aborted,
      promptOrigin: 'custom',
    });
}
