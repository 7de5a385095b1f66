// Recover after a quota wall (spec: recovery procedure): two samples, abort when still generating,
// the quota-wall prompt on a provider acceptable now; no provider free and a reset within reach:
// a retry scheduled after the reset. A pending scheduled retry of the session is cancelled first.
import {
  recoverSession,
  RECOVERY_SPACING_MS,
  type Authority,
  type PromptFacts,
  type RecoverRequest,
  type RecoverResult,
} from '../../actions';
import { MIN_SPACING_MS } from '../../health/verdict';
import type { SessionRow } from '../../monitor/row';
import { monitorSettings } from '../../settings/operator-settings';
import { recoverOutcome } from '../result-outcome';
import type { Acted, RecoverAct } from '../requests';
import type { ActRooms } from './rooms';

export function recoverAct(rooms: ActRooms, req: RecoverAct): Promise<Acted<RecoverResult>> {
  const target = req.target;
  const request = req.request ?? rowRequest(rooms, req.target, req.authority ?? rooms.authority.of(req.target));
  rooms.retries.cancel(target.key, false);
  const spacing = `${(request.spacingMs ?? RECOVERY_SPACING_MS) / 1000} s`;
  return rooms.runner.run(
    target,
    'recover',
    `recovering: two samples ${spacing} apart`,
    req,
    (ctx) => recoverSession(ctx, { sessionId: target.id, ...request }),
    (base, result) => recoverOutcome(base, result, rooms.core.now(), (at) => rooms.retries.schedule(target, at)),
  );
}

/** A row's recovery: the quota-wall prompt composed for it, the settings' providers, spacing and waits. */
function rowRequest(rooms: ActRooms, row: SessionRow, authority: Authority): Omit<RecoverRequest, 'sessionId'> {
  const settings = monitorSettings(rooms.core.settings);
  const minSpacingMs = rooms.core.monitor.minSpacingMs();
  const waits = rooms.core.waits;
  return {
    prompt: (facts: PromptFacts) => rooms.prompts.compose(row, 'quota-wake', facts.model, { authority }),
    providers: [...rooms.core.settings['recovery.providers']],
    spacingMs: minSpacingMs < MIN_SPACING_MS ? minSpacingMs : settings.spacingMs,
    minSpacingMs,
    resetWithinReachMs: settings.resetWithinReachMs,
    abort: { waitMs: waits.abortMs },
    confirm: { withinMs: waits.confirmMs },
  };
}
