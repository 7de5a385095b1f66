// Reads the session list and the running map of the `/api` engine (1.18.33, `GET /doc`):
// GET /api/session answers `{data: [SessionV2Info], cursor}`: {id, parentID?, title, time
// {created, updated}, location {directory}, cost, tokens, model?, agent?}; the engine leaves `cost`
// and `tokens` at 0 (only its messages carry them), so they are not read. GET /api/session/active
// answers `{data: {<id>: {type: "running"}}}` (every directory; `{}` when nothing runs).
import type { ModelRef } from '../../model';
import { isValidSessionId } from '../id-checks';
import type { RawSessionList, StatusEntry } from './sessions';
import { arr, isObj, looseStr, obj, str, type Obj } from './shape';

export interface ApiSessionList extends RawSessionList {
  /** The cursor of the next page, when the page was full and the engine names one. */
  next: string | null;
}

/**
 * A page of GET /api/session in the old list's raw shape ({id, title, time, parentID}). Sessions of
 * another directory than `directory` are left out (a server that ignored the filter), with a warning.
 */
export function readApiSessionList(json: unknown, directory: string): ApiSessionList {
  const body = obj(json, 'session list');
  const data = arr(body.data, 'session list data');
  const cursor = isObj(body.cursor) ? body.cursor : {};
  const sessions: Obj[] = [];
  const warnings: string[] = [];
  let foreign = 0;
  data.forEach((entry, i) => {
    const s = obj(entry, `session ${i}`);
    const id = str(s.id, `session ${i} id`);
    if (!isValidSessionId(id)) {
      warnings.push(`session ${JSON.stringify(id.slice(0, 80))} skipped: its id is not a safe path segment`);
      return;
    }
    const location = isObj(s.location) ? s.location : null;
    if (location && typeof location.directory === 'string' && location.directory !== directory) {
      foreign++;
      return;
    }
    sessions.push({ id, title: looseStr(s.title), time: s.time, parentID: s.parentID });
  });
  if (foreign > 0)
    warnings.push(`${foreign} sessions of other directories left out (the server did not filter by directory)`);
  return { sessions, warnings, next: looseStr(cursor.next) };
}

/** GET /api/session/active: every running session reads generating (any type a newer engine adds too). */
export function readActiveMap(json: unknown): Map<string, StatusEntry> {
  const data = obj(obj(json, 'active sessions').data, 'active sessions data');
  const out = new Map<string, StatusEntry>();
  for (const id of Object.keys(data)) {
    obj(data[id], `active entry of ${id}`);
    out.set(id, { state: 'generating', retry: null });
  }
  return out;
}

/** A session's own model on the `/api` engine, with its variant (null: none named, or the engine's "default"). */
export interface ApiSessionModel extends ModelRef {
  variant: string | null;
}

/**
 * GET /api/session/{id}: the session's own model (set by a model switch) and its variant, null when
 * it has no model. A switch without a variant reads back as variant "default" (1.18.33): no variant.
 */
export function readSessionModel(json: unknown): ApiSessionModel | null {
  const s = obj(obj(json, 'session').data, 'session data');
  const model = isObj(s.model) ? s.model : null;
  const providerID = model ? looseStr(model.providerID) : null;
  const modelID = model ? looseStr(model.id) : null;
  const variant = model ? looseStr(model.variant) : null;
  return providerID && modelID
    ? { providerID, modelID, variant: variant === null || variant === '' || variant === 'default' ? null : variant }
    : null;
}
