// The event stream of stock opencode (GET /event?directory=): `data: {id, type, properties}`
// lines such as session.status, session.idle, session.error, message.updated and
// message.part.updated. Events carry no replayable ids, so they are only a nudge to sample a
// session sooner; polling stays the source of truth. Reconnects with exponential backoff, treats
// a silent stream (no heartbeat) as dead, and stops on the caller's AbortSignal. A backend
// without the endpoint (the spec's dialect) or one that refuses the credentials ends the reader.
import type { SessionState, TodoProgress } from '../model';
import { systemClock } from '../clock';
import { BackendError } from './errors';
import type { HttpTransport, Query } from './http';
import { directoryProblem } from './id-checks';
import { DEFAULT_EVENT_IDLE_TIMEOUT_MS, MAX_EVENT_CHARS } from './limits';
import { SseOverflow, SseParser } from './sse';
import { readMessageFigures, type MessageFigures } from './wire/message-page';
import { readTodoList } from './wire/todo';

/** The minimal, secret-free view of one event: what it is and which session it concerns. */
export interface BackendEvent {
  type: string;
  sessionID: string | null;
  /** For session.status: the state it announces. */
  state: SessionState | null;
  /** For todo.updated: the session's todo list in numbers (null when unreadable). */
  todos?: TodoProgress | null;
  /** For message.updated: the message as the event shows it (id, role, finished, cost and tokens); absent when unreadable. */
  message?: MessageFigures;
}

/**
 * connecting, open; `silent`: the open stream sent nothing (no event, no heartbeat) for
 * idleTimeoutMs and was dropped; `closed`: the backend ended or broke the stream (e.g. mid-turn);
 * `backoff`: waiting before the next connection (after a failure, silent or closed); terminal:
 * unsupported (no GET /event), unauthorized, stopped (the caller's signal).
 */
export type EventStreamState =
  'connecting' | 'open' | 'silent' | 'closed' | 'backoff' | 'unsupported' | 'unauthorized' | 'stopped';

export interface EventStreamOptions {
  directory: string;
  signal: AbortSignal;
  onEvent: (event: BackendEvent) => void;
  onState?: (state: EventStreamState, error?: BackendError) => void;
  /** First reconnect delay; doubles up to maxBackoffMs; reset after a healthy connection. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** No bytes for this long means a dead stream (the server beats every 10 s). Default 35 s (limits.ts). */
  idleTimeoutMs?: number;
  /** One event larger than this drops the connection. Default 16 Mi characters (limits.ts). */
  maxEventChars?: number;
}

function isIdleTimeout(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === 'UND_ERR_BODY_TIMEOUT') return true;
  }
  return false;
}

/** Reads one event's JSON into the minimal view; null when it is not an event object. */
export function toBackendEvent(data: string): BackendEvent | null {
  return eventOf(parseObject(data));
}

/** The JSON object in one event's data, or null (not JSON, not an object). */
function parseObject(data: string): object | null {
  try {
    const v: unknown = JSON.parse(data);
    return typeof v === 'object' && v !== null ? v : null;
  } catch {
    return null;
  }
}

function eventOf(v: object | null): BackendEvent | null {
  if (v === null) return null;
  const e = v as { type?: unknown; properties?: unknown };
  if (typeof e.type !== 'string') return null;
  const p = (typeof e.properties === 'object' && e.properties !== null ? e.properties : {}) as Record<string, unknown>;
  let sessionID = typeof p.sessionID === 'string' ? p.sessionID : null;
  if (!sessionID && typeof p.info === 'object' && p.info !== null) {
    const info = p.info as Record<string, unknown>;
    if (typeof info.sessionID === 'string') sessionID = info.sessionID;
  }
  let state: SessionState | null = null;
  if (e.type === 'session.status' && typeof p.status === 'object' && p.status !== null) {
    const t = (p.status as Record<string, unknown>).type;
    state = t === 'idle' ? 'idle' : typeof t === 'string' ? 'generating' : null;
  } else if (e.type === 'session.idle') {
    state = 'idle';
  }
  if (e.type === 'todo.updated') {
    let todos: TodoProgress | null;
    try {
      todos = readTodoList(p.todos);
    } catch {
      todos = null;
    }
    return { type: e.type, sessionID, state, todos };
  }
  if (e.type === 'message.updated' && typeof p.info === 'object' && p.info !== null) {
    const message = messageOf(p.info as Record<string, unknown>);
    if (message) return { type: e.type, sessionID, state, message };
  }
  return { type: e.type, sessionID, state };
}

/** A message.updated event's info into its figures; undefined when it is not readable. */
function messageOf(info: Record<string, unknown>): MessageFigures | undefined {
  try {
    return readMessageFigures(info, 'message.updated');
  } catch {
    return undefined;
  }
}

/**
 * Runs until the signal aborts (resolves 'stopped'), or the backend has no event stream / refuses
 * the credentials (resolves 'unsupported' / 'unauthorized'). Never rejects: problems are reported
 * through onState (an invalid directory ends it at once as 'stopped' with the error).
 */
export async function readEventStream(
  transport: HttpTransport,
  options: EventStreamOptions,
): Promise<EventStreamState> {
  const problem = directoryProblem(options.directory);
  if (problem) {
    options.onState?.(
      'stopped',
      new BackendError({
        code: 'invalid-request',
        operation: 'GET /event',
        baseUrl: transport.baseUrl,
        detail: problem,
      }),
    );
    return 'stopped';
  }
  const directory = options.directory;
  return withApiStream(
    transport,
    options,
    (opts) =>
      streamLoop(transport, { path: 'event', query: { directory }, operation: 'GET /event' }, opts, (data) => {
        const event = toBackendEvent(data);
        if (event) options.onEvent(event);
      }),
    (data) => {
      const g = toApiEvent(data);
      if (g && g.directory === directory) options.onEvent(g.event);
    },
  );
}

/**
 * One event of the `/api` engine's stream (GET /api/event, every directory, 1.18.33):
 * `data: {id, type: "session.next.*", location: {directory}, data: {sessionID, ...}}`; null when
 * it is not one. Its output events (text / reasoning / tool-input deltas, tool progress) count as
 * activity (./activity.ts); the others are nudges.
 */
export function toApiEvent(data: string): GlobalBackendEvent | null {
  const v = parseObject(data) as { type?: unknown; location?: unknown; data?: unknown } | null;
  if (v === null || typeof v.type !== 'string') return null;
  const d = (typeof v.data === 'object' && v.data !== null ? v.data : {}) as Record<string, unknown>;
  const loc = (typeof v.location === 'object' && v.location !== null ? v.location : {}) as Record<string, unknown>;
  return {
    directory: typeof loc.directory === 'string' ? loc.directory : null,
    event: { type: v.type, sessionID: typeof d.sessionID === 'string' ? d.sessionID : null, state: null },
  };
}

/**
 * Runs a stream of the old routes and, beside it, the `/api` engine's GET /api/event (stock
 * opencode 1.18 serves both; opencode 2 only the second; the spec's dialect neither). States are
 * the old stream's while it is served, else the `/api` one's; the reader ends when both ended.
 */
async function withApiStream(
  transport: HttpTransport,
  options: LoopOptions,
  legacy: (opts: LoopOptions) => Promise<EventStreamState>,
  onApiData: (data: string) => void,
): Promise<EventStreamState> {
  let legacyGone = false;
  let apiLast: { state: EventStreamState; error?: BackendError } | null = null;
  const live = (s: EventStreamState) => s !== 'unsupported' && s !== 'connecting';
  const api = streamLoop(
    transport,
    { path: 'api/event', query: {}, operation: 'GET /api/event', rejectedIsUnsupported: true, reopenAfterClose: true },
    {
      ...options,
      onState: (state, error) => {
        apiLast = { state, error };
        if (legacyGone && state !== 'unsupported') options.onState?.(state, error);
      },
    },
    onApiData,
  );
  let gone: BackendError | undefined;
  const old = await legacy({
    ...options,
    onState: (state, error) => {
      if (state !== 'unsupported') return options.onState?.(state, error);
      legacyGone = true;
      gone = error;
      const last = apiLast as { state: EventStreamState; error?: BackendError } | null;
      if (last && live(last.state)) options.onState?.(last.state, last.error);
    },
  });
  const fresh = await api;
  if (old !== 'unsupported') return old;
  // Neither stream is served: said once, as a server without any would.
  if (fresh === 'unsupported') options.onState?.('unsupported', gone);
  return fresh;
}

/** One event of the global stream: the directory it concerns and the event itself. */
export interface GlobalBackendEvent {
  directory: string | null;
  event: BackendEvent;
}

/** Reads one global event (`{directory, project, payload: {type, properties}}`); null when it is not one. */
export function toGlobalEvent(data: string): GlobalBackendEvent | null {
  const g = parseObject(data) as { directory?: unknown; payload?: unknown } | null;
  if (g === null || typeof g.payload !== 'object' || g.payload === null) return null;
  const event = eventOf(g.payload);
  if (!event) return null;
  return { directory: typeof g.directory === 'string' ? g.directory : null, event };
}

export interface GlobalEventStreamOptions extends Omit<EventStreamOptions, 'directory' | 'onEvent'> {
  onEvent: (event: GlobalBackendEvent) => void;
}

/**
 * Stock opencode GET /global/event: one stream for every directory the server serves (one per
 * backend instead of one per directory). Same contract as readEventStream; 'unsupported' when the
 * server has no such endpoint (then read GET /event per directory).
 */
export async function readGlobalEventStream(
  transport: HttpTransport,
  options: GlobalEventStreamOptions,
): Promise<EventStreamState> {
  return withApiStream(
    transport,
    options,
    (opts) =>
      streamLoop(transport, { path: 'global/event', query: {}, operation: 'GET /global/event' }, opts, (data) => {
        const event = toGlobalEvent(data);
        if (event) options.onEvent(event);
      }),
    (data) => {
      const g = toApiEvent(data);
      if (g) options.onEvent(g);
    },
  );
}

interface StreamTarget {
  path: string;
  query: Query;
  operation: string;
  /** A 400 answer also means "no such stream" (a server that wants a directory on every route). */
  rejectedIsUnsupported?: boolean;
  /**
   * A stream the server ends after it was open is reopened after the shortest backoff: opencode
   * 1.18.33 ends GET /api/event about 1.5 s after the old engine streams a message (observed).
   */
  reopenAfterClose?: boolean;
}

type LoopOptions = Pick<
  EventStreamOptions,
  'signal' | 'onState' | 'minBackoffMs' | 'maxBackoffMs' | 'idleTimeoutMs' | 'maxEventChars'
>;

async function streamLoop(
  transport: HttpTransport,
  target: StreamTarget,
  options: LoopOptions,
  onData: (data: string) => void,
): Promise<EventStreamState> {
  const minBackoff = options.minBackoffMs ?? 1_000;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  const idleTimeout = options.idleTimeoutMs ?? DEFAULT_EVENT_IDLE_TIMEOUT_MS;
  const setState = (s: EventStreamState, err?: BackendError) => options.onState?.(s, err);
  let backoff = minBackoff;
  while (!options.signal.aborted) {
    setState('connecting');
    let healthy = false;
    try {
      const { client, body } = await transport.openStream(
        target.path,
        target.query,
        target.operation,
        options.signal,
        idleTimeout,
      );
      setState('open');
      const openedAt = systemClock.now();
      const parser = new SseParser(options.maxEventChars ?? MAX_EVENT_CHARS);
      const decoder = new TextDecoder();
      const dropped = (kind: BackendError['code'], detail: string) =>
        new BackendError({ code: kind, operation: target.operation, baseUrl: transport.baseUrl, detail });
      let end: { state: EventStreamState; error: BackendError } = {
        state: 'closed',
        error: dropped('network', 'the backend closed the event stream'),
      };
      // The heartbeat watch: a complete line (an event, a heartbeat, a comment) restarts it; bytes
      // alone do not (a stream dripping one endless line is as dead as a silent one).
      let silent = false;
      const silence = () => {
        silent = true;
        body.destroy();
      };
      let watch = systemClock.setTimeout(silence, idleTimeout);
      try {
        for await (const chunk of body) {
          const linesBefore = parser.lines;
          for (const msg of parser.push(decoder.decode(chunk as Buffer, { stream: true }))) {
            onData(msg.data);
          }
          if (parser.lines !== linesBefore) {
            systemClock.clearTimeout(watch);
            watch = systemClock.setTimeout(silence, idleTimeout);
          }
        }
        if (silent) end = { state: 'silent', error: dropped('timeout', `no event or heartbeat for ${idleTimeout} ms`) };
      } catch (err) {
        // a dropped, silent or flooding stream: reconnect below
        if (silent || isIdleTimeout(err))
          end = { state: 'silent', error: dropped('timeout', `no event or heartbeat for ${idleTimeout} ms`) };
        else if (err instanceof SseOverflow) end = { state: 'closed', error: dropped('too-large', err.message) };
        else end = { state: 'closed', error: dropped('network', 'the event stream broke off') };
      } finally {
        systemClock.clearTimeout(watch);
        client.destroy().catch(() => undefined);
      }
      healthy = systemClock.now() - openedAt > 10_000 || (target.reopenAfterClose === true && end.state === 'closed');
      if (!options.signal.aborted) setState(end.state, end.error);
    } catch (err) {
      if (options.signal.aborted) break;
      if (err instanceof BackendError) {
        if (
          err.code === 'not-found' ||
          (target.rejectedIsUnsupported && err.code === 'rejected' && err.status === 400)
        ) {
          setState('unsupported', err);
          return 'unsupported';
        }
        if (err.code === 'unauthorized') {
          setState('unauthorized', err);
          return 'unauthorized';
        }
        setState('backoff', err);
      }
    }
    if (options.signal.aborted) break;
    backoff = healthy ? minBackoff : Math.min(maxBackoff, backoff);
    setState('backoff');
    // Until the backoff passes or the stream is stopped.
    await systemClock.sleep(backoff, options.signal).catch(() => undefined);
    backoff = Math.min(maxBackoff, backoff * 2);
  }
  setState('stopped');
  return 'stopped';
}
