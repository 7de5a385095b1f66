// Reads the session list of either dialect. Spec: each session carries `state` (generating |
// idle) and an optional `progress`. Stock opencode 1.18: no state field; the state comes from
// GET /session/status, a map in which idle sessions are simply absent and busy/retry mean
// generating. Which of the two a list is, is the detector's (../dialects/detect.ts).
import type { EpochMs, RetryStatus, SessionSnapshot, SessionState } from '../../model';
import { isValidSessionId } from '../id-checks';
import { readCost } from './cost';
import { arr, isObj, looseNum, looseStr, num, obj, ShapeError, str, type Obj } from './shape';

export interface RawSessionList {
  sessions: Obj[];
  /** Entries left out (unsafe ids), as readable lines. */
  warnings: string[];
}

export function readSessionList(json: unknown): RawSessionList {
  const list = arr(json, 'session list');
  const sessions: Obj[] = [];
  const warnings: string[] = [];
  list.forEach((entry, i) => {
    const s = obj(entry, `session ${i}`);
    const id = str(s.id, `session ${i} id`);
    if (!isValidSessionId(id)) {
      warnings.push(`session ${JSON.stringify(id.slice(0, 80))} skipped: its id is not a safe path segment`);
      return;
    }
    sessions.push(s);
  });
  return { sessions, warnings };
}

function title(s: Obj): string | null {
  return typeof s.title === 'string' ? s.title : null;
}

function updatedAt(s: Obj): number | null {
  const time = s.time;
  return (isObj(time) ? looseNum(time.updated) : null) ?? looseNum(s.updatedAt);
}

/** Spec dialect: state and progress from the session object. */
export function specSession(s: Obj): SessionSnapshot {
  const state = s.state;
  if (state !== 'generating' && state !== 'idle')
    throw new ShapeError(`session ${String(s.id)} has state ${JSON.stringify(state)} (expected generating or idle)`);
  let progress: SessionSnapshot['progress'] = null;
  if (s.progress !== undefined && s.progress !== null) {
    const p = obj(s.progress, `session ${String(s.id)} progress`);
    progress = {
      stepCount: num(p.stepCount, 'progress.stepCount'),
      lastStepAt: num(p.lastStepAt, 'progress.lastStepAt'),
    };
  }
  // The state as a constant of this module, not the parsed string: one string for every session.
  return {
    id: s.id as string,
    title: title(s),
    state: state === 'idle' ? 'idle' : 'generating',
    retry: null,
    progress,
    updatedAt: updatedAt(s),
    // The spec shows no parent field ("other session fields: not shown"); a compatible backend that
    // names one the way stock opencode does is read alike: automatic mode never acts on a sub-agent.
    parentId: parentOf(s),
  };
}

/** A sub-agent session's parent (`parentID`, stock opencode's name), when it is a valid session id. */
function parentOf(s: Obj): string | null {
  return typeof s.parentID === 'string' && isValidSessionId(s.parentID) ? s.parentID : null;
}

export interface StatusEntry {
  state: SessionState;
  retry: RetryStatus | null;
}

/** GET /session/status: {[id]: {type: busy} | {type: retry, attempt, message, next} | {type: idle}}. */
export function readStatusMap(json: unknown): Map<string, StatusEntry> {
  const map = obj(json, 'session status map');
  const out = new Map<string, StatusEntry>();
  for (const id of Object.keys(map)) {
    const entry = obj(map[id], `status of ${id}`);
    const type = str(entry.type, `status type of ${id}`);
    if (type === 'idle') out.set(id, { state: 'idle', retry: null });
    else if (type === 'retry')
      out.set(id, {
        state: 'generating',
        retry: {
          attempt: looseNum(entry.attempt) ?? 0,
          message: looseStr(entry.message) ?? '',
          next: looseNum(entry.next) as EpochMs | null,
        },
      });
    // busy, and any status a newer server may add, means the server is doing something.
    else out.set(id, { state: 'generating', retry: null });
  }
  return out;
}

/** Stock opencode: state from the status map (absent = idle); progress is derived later; the session's own cost and tokens. */
export function opencodeSession(s: Obj, status: ReadonlyMap<string, StatusEntry>): SessionSnapshot {
  const st = status.get(s.id as string);
  const parent = parentOf(s);
  return {
    id: s.id as string,
    title: title(s),
    state: st?.state ?? 'idle',
    retry: st?.retry ?? null,
    progress: null,
    updatedAt: updatedAt(s),
    parentId: parent,
    cost: readCost(s),
  };
}
