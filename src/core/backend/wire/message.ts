// Reads the newest message (GET /session/{id}/message?limit=1) of either dialect into the one
// MessageSnapshot. Spec: failures are text parts with metadata.error / reason / provider and
// finish "error". Stock opencode 1.18: failures are `info.error = {name, data}` with no finish;
// finish is normalized to "error" then. Only the fields the decisions rely on are checked.
import type { MessageFailure, MessageSnapshot } from '../../model';
import { classifyFailure, reasonForCategory } from '../../failure-category';
import { arr, isObj, looseNum, looseStr, obj, optStr, ShapeError, str, type Obj } from './shape';
import { resetFromHeaders, resetFromText } from './reset';

/** The raw newest element of a message list, or null when the session has no message. */
export function newestRawMessage(json: unknown): Obj | null {
  const list = arr(json, 'message list');
  if (list.length === 0) return null;
  let newest = obj(list[0], 'message 0');
  // A server that ignores limit=1 returns the transcript; ids increase in creation order.
  for (let i = 1; i < list.length; i++) {
    const m = obj(list[i], `message ${i}`);
    const id = isObj(m.info) ? m.info.id : undefined;
    const best = isObj(newest.info) ? newest.info.id : undefined;
    if (typeof id === 'string' && typeof best === 'string' && id > best) newest = m;
  }
  return newest;
}

/** The raw oldest element with role user of a whole message list (the transcript), or null. */
export function firstRawUserMessage(json: unknown): Obj | null {
  const list = arr(json, 'message list');
  let first: Obj | null = null;
  let firstId: string | null = null;
  for (let i = 0; i < list.length; i++) {
    const m = obj(list[i], `message ${i}`);
    const info = obj(m.info, `message ${i} info`);
    if (info.role !== 'user') continue;
    const id = str(info.id, `message ${i} info.id`);
    if (firstId === null || id < firstId) [first, firstId] = [m, id];
  }
  return first;
}

const NO_PARTS: readonly Obj[] = Object.freeze([]);

/** The message's parts, each checked to be an object with a string type (the array itself, not a copy). */
export function rawParts(message: Obj): readonly Obj[] {
  if (message.parts === undefined || message.parts === null) return NO_PARTS;
  const parts = arr(message.parts, 'message parts');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (!isObj(part)) throw new ShapeError(`part ${i} is not an object`);
    if (typeof part.type !== 'string') throw new ShapeError(`part ${i} type is not a string`);
  }
  return parts as Obj[];
}

export function toMessageSnapshot(message: Obj): MessageSnapshot {
  const info = obj(message.info, 'message info');
  const id = str(info.id, 'message info.id');
  const role = str(info.role, 'message info.role');
  let finish = optStr(info.finish, 'message info.finish');
  const parts = rawParts(message);
  const time = isObj(info.time) ? info.time : {};
  const createdAt = looseNum(time.created);
  const completedAt = looseNum(time.completed);
  const model = isObj(info.model) ? info.model : {};

  // The text parts joined with newlines (built as they come: no list of them).
  let text: string | null = null;
  let specFailure: MessageFailure | null = null;
  let runningTool: MessageSnapshot['runningTool'] = null;
  for (const part of parts) {
    if (part.type === 'text') {
      if (part.text !== undefined && typeof part.text !== 'string')
        throw new ShapeError('text part without string text');
      const meta = isObj(part.metadata) ? part.metadata : null;
      if (meta && meta.error === true) {
        if (!specFailure) specFailure = specPartFailure(String(part.text ?? ''), meta, completedAt ?? createdAt);
      } else if (typeof part.text === 'string' && part.text !== '') {
        text = text === null ? part.text : `${text}\n${part.text}`;
      }
    } else if (part.type === 'tool' && isObj(part.state) && part.state.status === 'running') {
      const st = isObj(part.state.time) ? part.state.time : {};
      runningTool = { name: looseStr(part.tool) ?? 'tool', since: looseNum(st.start) };
    }
  }

  const failure =
    specFailure ??
    (info.error !== undefined && info.error !== null ? opencodeFailure(info.error, completedAt ?? createdAt) : null);
  if (finish === null && info.error !== undefined && info.error !== null) finish = 'error';

  return {
    id,
    role,
    finish,
    text: text ?? '',
    failure,
    providerID: looseStr(info.providerID) ?? looseStr(model.providerID) ?? failure?.provider ?? null,
    modelID: looseStr(info.modelID) ?? looseStr(model.modelID) ?? null,
    createdAt,
    completedAt,
    partCount: parts.length,
    runningTool,
  };
}

/**
 * A spec error part, classified by what the spec names (failure-category classifyFailure):
 * metadata.reason decides the usage-limit categories (the text never makes one of those); the
 * text decides a balance failure (HTTP 402 insufficient_quota), which has no reason value.
 */
function specPartFailure(text: string, meta: Obj, failedAt: number | null): MessageFailure {
  const reason = looseStr(meta.reason);
  return {
    text,
    reason,
    provider: looseStr(meta.provider),
    statusCode: null,
    category: classifyFailure({ reason, text }),
    resetAt: looseNum(meta.resetAt) ?? resetFromText(text, failedAt),
  };
}

function opencodeFailure(error: unknown, failedAt: number | null): MessageFailure {
  const e = isObj(error) ? error : {};
  const name = looseStr(e.name) ?? 'Error';
  const data = isObj(e.data) ? e.data : {};
  const message = looseStr(data.message) ?? name;
  const statusCode = looseNum(data.statusCode);
  // The provider's response body is used to classify only; it is never kept.
  const body = looseStr(data.responseBody) ?? '';
  const aborted = name === 'MessageAbortedError';
  const category = aborted ? null : classifyFailure({ statusCode, text: `${message}\n${body}` });
  const headers = isObj(data.responseHeaders) ? data.responseHeaders : null;
  return {
    text: name === 'APIError' || name === 'UnknownError' ? message : `${name}: ${message}`,
    // No reason on the wire: the closest spec value, so a wall reads the same in both dialects.
    reason: category ? reasonForCategory(category) : null,
    provider: null,
    statusCode,
    category,
    resetAt: category ? (resetFromHeaders(headers, failedAt) ?? resetFromText(`${message}\n${body}`, failedAt)) : null,
  };
}
