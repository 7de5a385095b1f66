// The Operator (src/core/operations/operator.ts) a one-shot action command (abort, wake, recover,
// dispatch) acts through: the path the editor and `session-ops watch` take (the session's action
// lock, the re-read before every POST under the machine-wide lock, the outcome as data, the log
// line), over the run's one client. The command names its session by id, so the operator has no
// monitor rows; it arms no retry (a wait-for-reset goes back to the caller as exit 4) and persists
// nothing but this: a person acted on a session automatic mode had woken, so its count of wakes
// without a report starts again (kept in the state directory's operator-state.json, which the editor and
// the daemon re-read while a session is stuck), and who assigned a worker (its dispatch records, a
// first user message read once). Each action is appended to the audit trail in the state directory
// (who: this host, kind cli), the file the daemon serves at /api/audit. Its log lines go to `io.operatorLog` (by default nowhere: the
// command prints its own messages, which are its contract).
import { hostname } from 'node:os';
import type { BackendClient } from '../core/backend/client';
import { AuditLog } from '../core/audit/audit-log';
import { auditEntry } from '../core/audit/audit-entry';
import { stateDir } from '../core/state/state-dir';
import { MIN_SPACING_MS } from '../core/health/verdict';
import { rowKey } from '../core/keys';
import type { ActionOutcome } from '../core/operations/action-outcome';
import { personActed, wakeKey } from '../core/operations/charge';
import { Operator, type ActionTarget } from '../core/operations/operator';
import { assignmentBook } from '../core/operations/assignments';
import { emptyOperatorState, operatorStateFor } from '../core/operations/state-store-operator';
import { operatorDefaults, type OperatorSettings } from '../core/settings/operator-settings';
import { clean, lockerFor, type ActionIo } from './action-io';
import type { BackendArgs } from './args';
import { EXIT } from './exit-codes';

export interface CommandAction {
  operator: Operator;
  /** The session the command names, as the operator's target. */
  target: ActionTarget;
}

/**
 * Runs `body` with an operator over `client` and the target `session` (title: its label in the
 * log line, else the id), and disposes the operator after. `settings`: the operator settings the
 * command's flags set (default: the model's defaults).
 */
export async function withOperator<T>(
  client: BackendClient,
  backend: BackendArgs,
  session: { id: string; title?: string | null },
  io: ActionIo,
  body: (action: CommandAction) => Promise<T>,
  settings: OperatorSettings = operatorDefaults(),
): Promise<T> {
  const operator = new Operator({
    monitor: {
      rows: () => [],
      row: () => undefined,
      client: async () => client,
      nudge: () => undefined,
      minSpacingMs: () => MIN_SPACING_MS,
      onDidChange: () => () => undefined,
    },
    settings,
    log: io.operatorLog,
    clock: io.clock,
    postLocker: lockerFor(io.env),
    state: null,
    // Who assigned each worker: the state directory's record, shared with the daemon and the editor.
    assignments: assignmentBook(operatorStateFor(io.env, io.clock.now)),
    armRetries: false,
  });
  const target: ActionTarget = {
    key: rowKey(backend.baseUrl, backend.directory, session.id),
    backendKey: backend.baseUrl,
    directory: backend.directory,
    id: session.id,
    title: session.title ?? null,
  };
  let acted = false;
  const audits: Array<Promise<string | null>> = [];
  const dir = stateDir(io.env);
  const audit = dir ? new AuditLog({ dir }) : null;
  const off = operator.onDidAct((o) => {
    acted ||= o.outcome !== 'busy';
    // The audit trail the daemon serves: who is this machine (a one-shot CLI action).
    if (audit && o.outcome !== 'busy')
      audits.push(
        audit.append(
          auditEntry({
            at: io.clock.now(),
            who: { kind: 'cli', name: hostname() },
            backend: backend.baseUrl,
            directory: backend.directory,
            outcome: o,
            row: null,
            prompt: o.prompt ?? null,
          }),
        ),
      );
  });
  try {
    return await body({ operator, target });
  } finally {
    off();
    operator.dispose();
    if (acted) await notePersonActed(io, target);
    for (const warning of await Promise.all(audits)) if (warning) io.operatorLog('warn', warning);
  }
}

/** Records in the state directory that a person acted on the session (never fails the command: a warning at most). */
async function notePersonActed(io: ActionIo, target: ActionTarget): Promise<void> {
  const file = operatorStateFor(io.env, io.clock.now);
  if (!file) return;
  // Only a count there is to reset: a session automatic mode never woke leaves the file as it is.
  const { state } = await file.load();
  if (!(state.wakes[wakeKey(target.directory, target.id)]?.count > 0)) return;
  const saved = await file.save({
    ...emptyOperatorState(),
    wakes: personActed(target.directory, target.id, io.clock.now()),
  });
  if (saved.warning) io.operatorLog('warn', `operator state: ${saved.warning}`);
}

/**
 * The action did not start because another action of this process held the session (outcome
 * `busy`): said on stderr, exit 3 (refused, nothing sent).
 */
export function notStarted(command: string, outcome: ActionOutcome, io: ActionIo): number {
  io.stderr(`session-ops ${command}: ${clean(outcome.message)}\n`);
  return EXIT.refused;
}
