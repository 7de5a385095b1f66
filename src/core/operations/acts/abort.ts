// Abort: POST abort on the session's running turn (refused as stale when it moved since the
// decision), then read it until idle, within the host's wait (the CLI's --wait) or the operator's.
import { abortSession, type AbortResult } from '../../actions';
import { abortOutcome } from '../result-outcome';
import type { AbortAct, Acted } from '../requests';
import type { ActRooms } from './rooms';

export function abortAct(rooms: ActRooms, req: AbortAct): Promise<Acted<AbortResult>> {
  const waitMs = req.waitMs ?? rooms.core.waits.abortMs;
  return rooms.runner.run(
    req.target,
    'abort',
    'aborting',
    req,
    (ctx) => abortSession(ctx, req.target.id, { waitMs }),
    abortOutcome,
  );
}
