// Reads the messages of the `/api` engine (GET /api/session/{id}/message: `{data: [...], cursor:
// {previous, next}}`, newest first) into the raw shape of the old engine's messages ({info,
// parts}), so one reader (./message.ts), one progress derivation (./opencode-progress.ts) and one
// page reader (./message-page.ts) serve both engines. What the engine writes (1.18.33, `GET /doc`):
//  - typed messages: user {text}, assistant {agent, model {id, providerID, variant}, content of
//    text / reasoning / tool parts, finish, cost, tokens, error {type, message}}, synthetic,
//    system, shell, compaction, and the markers model-switched / agent-switched;
//  - a failed turn: finish "error" and `error.message` only: a provider's HTTP status is in that
//    text alone ("Provider request failed with HTTP 402: <provider body>"), an interrupt reads
//    "Provider turn interrupted". Both are the engine's own fixed wording, read here and nowhere
//    else, into the old engine's APIError / MessageAbortedError.
// A switch marker is not a turn: `isSwitchMarker` says so and `apiMessageToRaw` gives null for it.
import { arr, isObj, looseNum, looseStr, obj, str, type Obj } from './shape';

const MARKERS = new Set(['model-switched', 'agent-switched']);

/** The engine's wording of a provider failure: the HTTP status, then the provider's body. */
const PROVIDER_FAILED = /^Provider request failed with HTTP (\d{3})(?::\s*([\s\S]*))?$/;
const INTERRUPTED = 'Provider turn interrupted';

export interface ApiMessagePage {
  /** The raw messages in the old engine's shape, as listed (newest first by default); markers left out. */
  messages: Obj[];
  /** How many entries the page held (markers included). */
  count: number;
  /** The id of the page's first entry (marker or not), null on an empty page. */
  firstId: string | null;
  /** The cursor of the next page in the listed order, when the engine names one. */
  next: string | null;
}

/** A model-switched or agent-switched entry: a change of the session's settings, not a turn. */
export function isSwitchMarker(m: unknown): boolean {
  return isObj(m) && typeof m.type === 'string' && MARKERS.has(m.type);
}

/** One page of `/api` messages. Throws ShapeError on a body that is not one. */
export function readApiMessagePage(json: unknown): ApiMessagePage {
  const body = obj(json, 'message page');
  const data = arr(body.data, 'message page data');
  const cursor = isObj(body.cursor) ? body.cursor : {};
  const messages: Obj[] = [];
  let firstId: string | null = null;
  data.forEach((entry, i) => {
    const m = obj(entry, `message ${i}`);
    const id = str(m.id, `message ${i} id`);
    if (i === 0) firstId = id;
    const raw = apiMessageToRaw(m);
    if (raw) messages.push(raw);
  });
  return { messages, count: data.length, firstId, next: looseStr(cursor.next) };
}

/** One `/api` message in the old engine's raw shape; null for a switch marker. Throws ShapeError. */
export function apiMessageToRaw(m: Obj): Obj | null {
  const id = str(m.id, 'message id');
  const type = str(m.type, `message ${id} type`);
  if (MARKERS.has(type)) return null;
  const time = isObj(m.time) ? m.time : {};
  const info: Obj = {
    id,
    role: roleOf(type),
    time: { created: looseNum(time.created), completed: looseNum(time.completed) },
  };
  let parts: Obj[] = [];
  if (type === 'assistant') {
    const model = isObj(m.model) ? m.model : {};
    info.model = { providerID: looseStr(model.providerID), modelID: looseStr(model.id) };
    info.agent = looseStr(m.agent);
    if (typeof m.finish === 'string') info.finish = m.finish;
    if (m.cost !== undefined) info.cost = m.cost;
    if (m.tokens !== undefined) info.tokens = m.tokens;
    if (isObj(m.error)) info.error = failureOf(m.error);
    parts = contentParts(m.content, id);
  } else if (typeof m.text === 'string') {
    parts = [{ type: 'text', text: m.text }];
  } else if (type === 'compaction' && typeof m.summary === 'string') {
    parts = [{ type: 'text', text: m.summary }];
  }
  return { info, parts };
}

/** user and synthetic input read as the old engine's user messages; the others keep their type as role. */
function roleOf(type: string): string {
  return type === 'synthetic' ? 'user' : type;
}

function contentParts(content: unknown, id: string): Obj[] {
  if (content === undefined || content === null) return [];
  return arr(content, `message ${id} content`).map((c, i) => {
    const part = obj(c, `message ${id} content ${i}`);
    const type = str(part.type, `message ${id} content ${i} type`);
    if (type === 'text' || type === 'reasoning') return { type, text: looseStr(part.text) ?? '' };
    if (type === 'tool') {
      const state = isObj(part.state) ? part.state : {};
      const t = isObj(part.time) ? part.time : {};
      return {
        type: 'tool',
        tool: looseStr(part.name) ?? 'tool',
        state: {
          status: looseStr(state.status),
          time: { start: looseNum(t.ran) ?? looseNum(t.created), end: looseNum(t.completed) ?? undefined },
        },
      };
    }
    return { type };
  });
}

/** The engine's `error {type, message}` as the old engine's `info.error {name, data}`. */
function failureOf(error: Obj): Obj {
  const message = looseStr(error.message) ?? looseStr(error.type) ?? 'unknown error';
  if (message === INTERRUPTED) return { name: 'MessageAbortedError', data: { message } };
  const m = PROVIDER_FAILED.exec(message);
  if (m)
    return {
      name: 'APIError',
      data: {
        message: `Provider request failed with HTTP ${m[1]}`,
        statusCode: Number(m[1]),
        responseBody: m[2] ?? '',
      },
    };
  return { name: 'UnknownError', data: { message } };
}
