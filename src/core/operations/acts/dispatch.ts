// Dispatch a task (the pre-dispatch check runs first; the completion-report block is appended);
// the ticket the task names is recorded for automatic.onlyTicketed.
import { dispatchTask, type DispatchRequest, type DispatchResult } from '../../actions';
import { dispatchOutcome } from '../result-outcome';
import type { Acted, DispatchAct } from '../requests';
import type { ActRooms } from './rooms';

export function dispatchAct(rooms: ActRooms, req: DispatchAct): Promise<Acted<DispatchResult>> {
  const target = req.target;
  const request: Omit<DispatchRequest, 'sessionId'> = req.request ?? {
    task: req.task,
    model: req.model,
    authority: req.authority
      ? { ...req.authority, held: req.holdsAuthority ?? false }
      : rooms.authority.of(req.target, req.holdsAuthority ?? false),
    effort: req.effort ?? null,
  };
  return rooms.runner.run(
    target,
    'dispatch',
    'dispatching',
    {},
    (ctx) => dispatchTask(ctx, { sessionId: target.id, ...request }),
    (base, result) => {
      // The task the session now works on names the ticket of its completion-report block (or none).
      if (result.sent) {
        rooms.core.dispatches.note(target.key, request.authority.ticket);
        rooms.store.persist();
      }
      return dispatchOutcome(base, result, result.insteadModel);
    },
  );
}
