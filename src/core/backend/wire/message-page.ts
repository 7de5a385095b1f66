// Reads one page of a session's messages (GET /session/{id}/message?limit=N[&before=CURSOR]) for
// summing cost: per message only its id, role, whether it is finished and its cost and tokens.
// Stock opencode 1.18 answers the N newest messages older than the cursor, oldest first, and names
// the next older page in the `X-Next-Cursor` header (and `Link: <...>; rel="next"`): an opaque
// cursor, absent on the last page. A message id is not a cursor (400).
import type { SessionCost } from '../../model';
import { readCost } from './cost';
import { arr, isObj, looseStr, obj, str, type Obj } from './shape';

/** What summing needs of one message. */
export interface MessageFigures {
  id: string;
  assistant: boolean;
  /** Finished (a completion time or an error): its figures no longer change. */
  final: boolean;
  /** Its cost and tokens (messages: 1); null when it reports none (user messages, a malformed figure). */
  cost: SessionCost | null;
  providerID: string | null;
}

export interface MessagePage {
  /** Oldest first (sorted by id, which sorts in creation order). */
  messages: MessageFigures[];
  /** The cursor of the next older page; null on the last page. */
  next: string | null;
}

/** A raw message list (body) and the answer's headers into a page. Throws ShapeError. */
export function readMessagePage(json: unknown, headers: Record<string, string | string[] | undefined>): MessagePage {
  const list = arr(json, 'message list');
  const messages = list.map((m, i) =>
    readMessageFigures(obj(obj(m, `message ${i}`).info, `message ${i} info`), `message ${i}`),
  );
  messages.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { messages, next: nextCursor(headers) };
}

/** One message's `info` (of a page, or of a `message.updated` event) into its figures. Throws ShapeError. */
export function readMessageFigures(info: Obj, label: string): MessageFigures {
  const id = str(info.id, `${label} info.id`);
  const role = str(info.role, `${label} info.role`);
  const time = isObj(info.time) ? info.time : {};
  const assistant = role === 'assistant';
  const model = isObj(info.model) ? info.model : {};
  return {
    id,
    assistant,
    final: !assistant || typeof time.completed === 'number' || (info.error !== undefined && info.error !== null),
    cost: assistant ? readCost(info, 1) : null,
    providerID: looseStr(info.providerID) ?? looseStr(model.providerID),
  };
}

/** `X-Next-Cursor`, else the `before` of the `Link` rel="next"; null when neither names one. */
export function nextCursor(headers: Record<string, string | string[] | undefined>): string | null {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const header = first(headers['x-next-cursor'])?.trim();
  if (header) return header;
  const link = first(headers.link);
  const m = link ? /<([^>]*)>\s*;\s*rel="?next"?/i.exec(link) : null;
  if (!m) return null;
  try {
    return new URL(m[1], 'http://link').searchParams.get('before') || null;
  } catch {
    return null;
  }
}
