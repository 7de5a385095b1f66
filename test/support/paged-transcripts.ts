// Transcripts paged the way stock opencode 1.18.33 pages GET /session/{id}/message (observed):
// `limit=N` answers the N newest messages older than the cursor `before`, oldest first; the
// answer names the next older page in `X-Next-Cursor` (and `Link: <...>; rel="next"`), an opaque
// cursor (base64url of {"id","time"} of the page's oldest message), absent on the last page; a
// cursor that is not one (a bare message id) is 400. For unit tests of the message ledger, in
// memory (`page`) or over HTTP (`handle`). Only node: builtins.
import http from 'node:http';

export interface RawMessage {
  info: Record<string, unknown> & { id: string; role: string };
  parts: unknown[];
}

export interface PageAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** An assistant message costing `usd` with `input`/`output` tokens; finished unless `open`. */
export function assistant(id: string, usd: number, input: number, output: number, open = false): RawMessage {
  return {
    info: {
      id,
      role: 'assistant',
      providerID: 'local',
      modelID: 'm1',
      time: open ? { created: 1 } : { created: 1, completed: 2 },
      cost: usd,
      tokens: { input, output, reasoning: 0, cache: { read: 0, write: 0 } },
    },
    parts: [{ type: 'text', text: 'x' }],
  };
}

export function user(id: string): RawMessage {
  return { info: { id, role: 'user', time: { created: 1 } }, parts: [{ type: 'text', text: 'do it' }] };
}

/** `msg_00042` style ids: they sort in creation order like opencode's. */
export const msgId = (i: number): string => `msg_${String(i).padStart(5, '0')}`;

export class PagedTranscripts {
  readonly sessions = new Map<string, RawMessage[]>();
  /** Told of every message appended (the event stream of serveTranscripts announces it). */
  readonly appended = new Set<(sessionId: string, message: RawMessage) => void>();

  /** Appends a user message and `replies` assistant messages (each $`usd`, 10 in, 5 out) to a session. */
  turn(sessionId: string, replies = 1, usd = 0.001): void {
    const list = this.sessions.get(sessionId) ?? [];
    const add = (m: RawMessage) => {
      list.push(m);
      for (const tell of this.appended) tell(sessionId, m);
    };
    this.sessions.set(sessionId, list);
    add(user(msgId(list.length)));
    for (let r = 0; r < replies; r++) add(assistant(msgId(list.length), usd, 10, 5));
  }

  /** The truth: the sum over a session's assistant messages, read whole. */
  sum(sessionId: string): { usd: number; input: number; output: number; messages: number } {
    const out = { usd: 0, input: 0, output: 0, messages: 0 };
    for (const m of this.sessions.get(sessionId) ?? []) {
      if (m.info.role !== 'assistant') continue;
      const t = m.info.tokens as { input: number; output: number };
      out.usd += m.info.cost as number;
      out.input += t.input;
      out.output += t.output;
      out.messages++;
    }
    return out;
  }

  /** The newest message of a session (what a limit=1 read sees). */
  newest(sessionId: string): RawMessage | null {
    const list = this.sessions.get(sessionId) ?? [];
    return list.length > 0 ? list[list.length - 1] : null;
  }

  page(sessionId: string, limit: number | null, before: string | null): PageAnswer {
    const list = this.sessions.get(sessionId);
    if (!list) return { status: 404, body: { name: 'NotFoundError' }, headers: {} };
    let end = list.length;
    if (before !== null) {
      let cursor: { id?: unknown; time?: unknown };
      try {
        cursor = JSON.parse(Buffer.from(before, 'base64url').toString('utf8'));
      } catch {
        return { status: 400, body: { _tag: 'BadRequest' }, headers: {} };
      }
      if (typeof cursor?.id !== 'string' || typeof cursor.time !== 'number')
        return { status: 400, body: { _tag: 'BadRequest' }, headers: {} };
      end = list.filter((m) => m.info.id < (cursor.id as string)).length;
    }
    const start = limit === null || limit === 0 ? 0 : Math.max(0, end - limit);
    const body = list.slice(start, end);
    const headers: Record<string, string> = {};
    if (start > 0) {
      const oldest = body[0].info;
      headers['x-next-cursor'] = Buffer.from(JSON.stringify({ id: oldest.id, time: 1 })).toString('base64url');
    }
    return { status: 200, body, headers };
  }

  /** Answers GET /session/{id}/message on an HTTP server; false for any other path. */
  handle(req: http.IncomingMessage, res: http.ServerResponse, sent?: (bytes: number) => void): boolean {
    const u = new URL(req.url ?? '/', 'http://x');
    const m = /^\/session\/([^/]+)\/message$/.exec(u.pathname);
    if (!m) return false;
    const limit = u.searchParams.has('limit') ? Number(u.searchParams.get('limit')) : null;
    const answer = this.page(decodeURIComponent(m[1]), limit, u.searchParams.get('before'));
    const text = JSON.stringify(answer.body);
    sent?.(Buffer.byteLength(text));
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(text);
    return true;
  }
}

export interface TranscriptServer {
  /** http://127.0.0.1:PORT/ */
  url: string;
  /** Every request: path, query and answer bytes. */
  log: Array<{ path: string; query: URLSearchParams; bytes: number }>;
  /** Event streams open now (GET /event). */
  streams(): number;
  /** Ends every open event stream (the client sees it break off). */
  breakStreams(): void;
  stop(): Promise<void>;
}

export interface TranscriptServerOptions {
  /** Each listed session carries its own cost and tokens, the sums of its messages (stock opencode 1.18). */
  listTotals?: boolean;
}

/**
 * A loopback backend with stock opencode's shapes over `t`: a session list (the sessions of `t`,
 * with `parentID` from `parents`; without totals unless `listTotals`), an empty status map (every
 * session idle), no pending requests, one provider `local`, the paged message reads, and
 * GET /event announcing every message appended to `t` as stock opencode does (`message.updated`
 * with the message's info), with `server.connected` first.
 */
export async function serveTranscripts(
  t: PagedTranscripts,
  parents: ReadonlyMap<string, string> = new Map(),
  options: TranscriptServerOptions = {},
): Promise<TranscriptServer> {
  const log: TranscriptServer['log'] = [];
  const streams = new Set<http.ServerResponse>();
  const announce = (sessionId: string, m: RawMessage) => {
    const line = `data: ${JSON.stringify({ type: 'message.updated', properties: { sessionID: sessionId, info: { ...m.info, sessionID: sessionId } } })}\n\n`;
    for (const res of streams) res.write(line);
  };
  t.appended.add(announce);
  const totals = (id: string) => {
    const sum = t.sum(id);
    return {
      cost: sum.usd,
      tokens: { input: sum.input, output: sum.output, reasoning: 0, cache: { read: 0, write: 0 } },
    };
  };
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    const send = (body: unknown) => {
      const text = JSON.stringify(body);
      log.push({ path: u.pathname, query: u.searchParams, bytes: Buffer.byteLength(text) });
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    };
    if (u.pathname === '/event') {
      log.push({ path: u.pathname, query: u.searchParams, bytes: 0 });
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify({ type: 'server.connected', properties: {} })}\n\n`);
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return;
    }
    if (u.pathname === '/session')
      return send(
        [...t.sessions.keys()].map((id) => ({
          id,
          title: id,
          time: { created: 1, updated: 2 },
          ...(parents.has(id) ? { parentID: parents.get(id) } : {}),
          ...(options.listTotals ? totals(id) : {}),
        })),
      );
    if (u.pathname === '/session/status') return send({});
    if (u.pathname === '/permission' || u.pathname === '/question') return send([]);
    if (u.pathname === '/provider')
      return send({ all: [{ id: 'local', name: 'Local' }], default: {}, connected: ['local'] });
    if (!t.handle(req, res, (bytes) => log.push({ path: u.pathname, query: u.searchParams, bytes })))
      res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const breakStreams = () => {
    for (const res of streams) res.destroy();
    streams.clear();
  };
  return {
    url: `http://127.0.0.1:${port}/`,
    log,
    streams: () => streams.size,
    breakStreams,
    stop: () =>
      new Promise<void>((r) => {
        t.appended.delete(announce);
        breakStreams();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
