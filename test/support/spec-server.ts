// A backend speaking the spec's dialect to the letter ("Resources and their fields",
// "Endpoints"), scriptable per test: session state/progress/messages and provider quota are set
// directly; every request is logged; faults (a status, a malformed body, a delay, a dropped
// connection) can be injected. Every endpoint requires the `directory` query parameter.
//
//   GET  /session?directory                       200 [ {id, state, progress?} ]
//   GET  /session/{id}/message?directory[&limit]  200 [ message ] (limit=1: the newest only)
//   POST /session/{id}/abort?directory            200 (the session turns idle)
//   POST /session/{id}/prompt_async?directory     204 (payload: agent, model, parts)
//   GET  /provider?directory                      200 {all: [{id, quota?}], connected: [ids]}
//
// Anything else is 404. Only node: builtins, so editor tests and demo scripts can load it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SpecPart {
  type: string;
  text?: string;
  metadata?: { error?: boolean; reason?: string; provider?: string; [k: string]: unknown };
  [k: string]: unknown;
}

export interface SpecMessage {
  info: { id: string; role: string; finish?: string; [k: string]: unknown };
  parts: SpecPart[];
}

export interface SpecProgress {
  stepCount: number;
  lastStepAt: number;
}

export interface SpecSessionState {
  id: string;
  state: 'generating' | 'idle';
  progress?: SpecProgress;
  title?: string;
  /** A sub-agent session's parent (stock opencode's field name; the spec leaves other fields open). */
  parentID?: string;
  messages: SpecMessage[];
}

export interface SpecProvider {
  id: string;
  name?: string;
  quota?: { markedAt: number; resetAt?: number };
  /** Echoed like stock opencode does (to prove clients drop it). */
  options?: Record<string, unknown>;
  models?: unknown;
}

export interface PromptRecord {
  directory: string;
  sessionId: string;
  payload: {
    agent: string;
    model?: { providerID: string; modelID: string };
    parts: Array<{ type: 'text'; text: string }>;
  };
  at: number;
}

export interface RequestRecord {
  method: string;
  path: string;
  query: Record<string, string>;
  authorized: boolean;
  /** Request body (POSTs), for request-order and payload assertions. */
  body?: string;
  /** When the request arrived (epoch ms). */
  at?: number;
  /** The client's side of the connection (its port on 127.0.0.1): which process read (bench/views attached mode). */
  remotePort?: number;
  /** For GET /session: the state each session was answered with (idle confirmation evidence). */
  states?: Record<string, string>;
}

/** How the stateful server answers an accepted prompt (see SpecServer.answerPrompts). */
export interface PromptAnswer {
  /** How long the session generates before the assistant message is stored (default 200 ms). */
  delayMs?: number;
  /** Text of the assistant message (default "Resumed."); a function sees the prompt. */
  text?: string | ((record: PromptRecord) => string);
}

export interface Fault {
  method?: string;
  /** Matched against the path (without the query). */
  path?: RegExp;
  status?: number;
  /** Raw body to send (with `status`, default 200). */
  body?: string;
  delayMs?: number;
  /** Drop the connection without an answer. */
  destroy?: boolean;
  /** How many requests it applies to (default 1; Infinity for all). */
  times?: number;
}

export interface MessageInit {
  role?: 'assistant' | 'user';
  text?: string;
  finish?: string;
  /** A failure text part (metadata.error true). */
  error?: { text: string; reason?: string; provider?: string; resetAt?: number };
  parts?: SpecPart[];
  info?: Record<string, unknown>;
}

export interface DirectoryState {
  readonly path: string;
  sessions: Map<string, SpecSessionState>;
  addSession(init?: {
    id?: string;
    state?: 'generating' | 'idle';
    progress?: SpecProgress;
    title?: string;
    parentID?: string;
  }): string;
  setSession(
    id: string,
    patch: { state?: 'generating' | 'idle'; progress?: SpecProgress | null; title?: string },
  ): void;
  /** Advances progress: stepCount + steps, lastStepAt = at (default now). */
  step(id: string, steps?: number, at?: number): void;
  addMessage(sessionId: string, init?: MessageInit): string;
  removeSession(id: string): void;
}

export interface SpecServer {
  /** Base URL with a trailing slash. */
  url: string;
  port: number;
  requests: RequestRecord[];
  prompts: PromptRecord[];
  aborts: Array<{ directory: string; sessionId: string; at: number }>;
  directory(path: string): DirectoryState;
  setProviders(providers: SpecProvider[], connected: string[]): void;
  setQuota(providerId: string, quota: { markedAt: number; resetAt?: number } | null): void;
  fault(fault: Fault): void;
  clearFaults(): void;
  /** Called for every request before it is handled (after logging). */
  onRequest: ((record: RequestRecord) => void) | null;
  /** Reaction to an accepted prompt (after the user message is stored). */
  onPrompt: ((record: PromptRecord, dir: DirectoryState) => void) | null;
  /** Delay before an abort turns the session idle (default 0: at once). */
  abortDelayMs: number;
  /**
   * Stateful prompts: when set, an accepted prompt turns the session generating (progress
   * advancing) and after `delayMs` stores an assistant message (with the prompt's provider and
   * model) and turns it idle. An abort in between cancels the answer. Null: prompts only store
   * the user message (default).
   */
  answerPrompts: PromptAnswer | null;
  /** Requests being handled right now, and the most at once since start (or resetStats). */
  stats: { inFlight: number; maxInFlight: number };
  resetStats(): void;
  stop(): Promise<void>;
}

export interface SpecServerOptions {
  port?: number;
  /** Require HTTP Basic auth with this password (the spec leaves auth open; useful for tests). */
  password?: string;
  username?: string;
}

let idCounter = 0;
function nextMessageId(): string {
  idCounter++;
  return `msg_${String(idCounter).padStart(12, '0')}`;
}

export async function startSpecServer(options: SpecServerOptions = {}): Promise<SpecServer> {
  const dirs = new Map<string, DirectoryState>();
  let providers: SpecProvider[] = [];
  let connected: string[] = [];
  const faults: Array<Fault & { left: number }> = [];
  const requests: RequestRecord[] = [];
  const prompts: PromptRecord[] = [];
  const aborts: SpecServer['aborts'] = [];
  let sessionCounter = 0;
  const expectedAuth = options.password
    ? `Basic ${Buffer.from(`${options.username ?? 'opencode'}:${options.password}`).toString('base64')}`
    : null;

  function directory(path: string): DirectoryState {
    let d = dirs.get(path);
    if (d) return d;
    const sessions = new Map<string, SpecSessionState>();
    d = {
      path,
      sessions,
      addSession(init = {}) {
        sessionCounter++;
        const id = init.id ?? `ses_${String(sessionCounter).padStart(6, '0')}`;
        sessions.set(id, {
          id,
          state: init.state ?? 'idle',
          progress: init.progress,
          title: init.title,
          ...(init.parentID !== undefined ? { parentID: init.parentID } : {}),
          messages: [],
        });
        return id;
      },
      setSession(id, patch) {
        const s = must(sessions, id);
        if (patch.state) s.state = patch.state;
        if (patch.progress === null) delete s.progress;
        else if (patch.progress) s.progress = { ...patch.progress };
        if (patch.title !== undefined) s.title = patch.title;
      },
      step(id, steps = 1, at = Date.now()) {
        const s = must(sessions, id);
        s.progress = { stepCount: (s.progress?.stepCount ?? 0) + steps, lastStepAt: at };
      },
      addMessage(sessionId, init = {}) {
        const s = must(sessions, sessionId);
        const id = nextMessageId();
        const parts: SpecPart[] = [...(init.parts ?? [])];
        if (init.text !== undefined) parts.push({ type: 'text', text: init.text });
        if (init.error) {
          const metadata: SpecPart['metadata'] = { error: true };
          if (init.error.reason !== undefined) metadata.reason = init.error.reason;
          if (init.error.provider !== undefined) metadata.provider = init.error.provider;
          if (init.error.resetAt !== undefined) metadata.resetAt = init.error.resetAt;
          parts.push({ type: 'text', text: init.error.text, metadata });
        }
        // Messages carry their creation time, as a real backend's do (stock opencode's info.time);
        // the spec shows none, and automatic mode leaves alone a session whose newest message's age is unknown.
        const info: SpecMessage['info'] = {
          time: { created: Date.now() },
          ...(init.info ?? {}),
          id,
          role: init.role ?? 'assistant',
        };
        const finish = init.finish ?? (init.error ? 'error' : undefined);
        if (finish !== undefined) info.finish = finish;
        s.messages.push({ info, parts });
        return id;
      },
      removeSession(id) {
        sessions.delete(id);
      },
    };
    dirs.set(path, d);
    return d;
  }

  const stats = { inFlight: 0, maxInFlight: 0 };
  const server = http.createServer((req, res) => {
    stats.inFlight++;
    if (stats.inFlight > stats.maxInFlight) stats.maxInFlight = stats.inFlight;
    let counted = true;
    const done = () => {
      if (counted) stats.inFlight--;
      counted = false;
    };
    res.once('finish', done);
    res.once('close', done);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://spec.invalid');
      const query: Record<string, string> = {};
      url.searchParams.forEach((v, k) => (query[k] = v));
      const authorized = expectedAuth === null || req.headers.authorization === expectedAuth;
      const body = Buffer.concat(chunks).toString('utf8');
      const record: RequestRecord = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query,
        authorized,
        at: Date.now(),
        remotePort: req.socket.remotePort,
      };
      if (body !== '') record.body = body;
      requests.push(record);
      server_.onRequest?.(record);
      const fault = faults.find(
        (f) => f.left > 0 && (!f.method || f.method === req.method) && (!f.path || f.path.test(url.pathname)),
      );
      const go = () => handle(req, res, url, query, authorized, body, fault, record);
      if (fault) {
        fault.left--;
        if (fault.delayMs) {
          setTimeout(go, fault.delayMs);
          return;
        }
      }
      go();
    });
  });

  function json(res: http.ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
  }

  const pendingAnswers = new Map<string, NodeJS.Timeout>();

  function handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    url: URL,
    query: Record<string, string>,
    authorized: boolean,
    body: string,
    fault: Fault | undefined,
    record: RequestRecord,
  ): void {
    if (fault?.destroy) {
      req.socket.destroy();
      return;
    }
    if (fault && (fault.status !== undefined || fault.body !== undefined)) {
      res.writeHead(fault.status ?? 200, { 'content-type': 'application/json' }).end(fault.body ?? '');
      return;
    }
    if (!authorized) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="spec"' }).end();
      return;
    }
    const dirPath = query.directory;
    if (dirPath === undefined || dirPath === '') {
      json(res, 400, { error: 'directory is required' });
      return;
    }
    const dir = directory(dirPath);
    const segs = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const method = req.method;

    if (method === 'GET' && segs.length === 1 && segs[0] === 'session') {
      record.states = Object.fromEntries([...dir.sessions.values()].map((s) => [s.id, s.state]));
      json(
        res,
        200,
        [...dir.sessions.values()].map((s) => {
          const out: Record<string, unknown> = { id: s.id, state: s.state };
          if (s.progress) out.progress = s.progress;
          if (s.title !== undefined) out.title = s.title;
          if (s.parentID !== undefined) out.parentID = s.parentID;
          return out;
        }),
      );
      return;
    }
    if (method === 'GET' && segs.length === 1 && segs[0] === 'provider') {
      json(res, 200, {
        all: providers.map((p) => {
          const out: Record<string, unknown> = { id: p.id };
          if (p.name !== undefined) out.name = p.name;
          if (p.quota) out.quota = p.quota;
          if (p.options) out.options = p.options;
          if (p.models !== undefined) out.models = p.models;
          return out;
        }),
        connected,
      });
      return;
    }
    if (segs.length === 3 && segs[0] === 'session') {
      const session = dir.sessions.get(segs[1]);
      if (!session) {
        json(res, 404, { error: `session not found: ${segs[1]}` });
        return;
      }
      if (method === 'GET' && segs[2] === 'message') {
        let list = session.messages;
        if (query.limit !== undefined) {
          const limit = Number(query.limit);
          if (!Number.isInteger(limit) || limit < 1) {
            json(res, 400, { error: 'limit must be a positive integer' });
            return;
          }
          // limit=N: the newest N, element 0 the newest.
          list = list.slice(-limit).reverse();
        }
        json(res, 200, list);
        return;
      }
      if (method === 'POST' && segs[2] === 'abort') {
        aborts.push({ directory: dirPath, sessionId: session.id, at: Date.now() });
        const pending = pendingAnswers.get(`${dirPath}\0${session.id}`);
        if (pending) clearTimeout(pending);
        const stop = () => {
          session.state = 'idle';
        };
        if (server_.abortDelayMs > 0) setTimeout(stop, server_.abortDelayMs);
        else stop();
        json(res, 200, true);
        return;
      }
      if (method === 'POST' && segs[2] === 'prompt_async') {
        if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
          json(res, 415, { error: 'content-type must be application/json' });
          return;
        }
        let payload: PromptRecord['payload'];
        try {
          payload = JSON.parse(body);
        } catch {
          json(res, 400, { error: 'body is not JSON' });
          return;
        }
        const problem = payloadProblem(payload);
        if (problem) {
          json(res, 400, { error: problem });
          return;
        }
        const record: PromptRecord = { directory: dirPath, sessionId: session.id, payload, at: Date.now() };
        prompts.push(record);
        dir.addMessage(session.id, { role: 'user', text: payload.parts.map((p) => p.text).join('\n') });
        server_.onPrompt?.(record, dir);
        const answer = server_.answerPrompts;
        if (answer) {
          const key = `${dirPath}\0${session.id}`;
          session.state = 'generating';
          dir.step(session.id);
          const t = setTimeout(() => {
            pendingAnswers.delete(key);
            if (!dir.sessions.has(session.id)) return;
            const text = typeof answer.text === 'function' ? answer.text(record) : (answer.text ?? 'Resumed.');
            dir.step(session.id);
            dir.addMessage(session.id, {
              text,
              info: payload.model ? { providerID: payload.model.providerID, modelID: payload.model.modelID } : {},
            });
            session.state = 'idle';
          }, answer.delayMs ?? 200);
          pendingAnswers.set(key, t);
        }
        res.writeHead(204).end();
        return;
      }
    }
    json(res, 404, { error: 'not found' });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  server.keepAliveTimeout = 10_000;
  const port = (server.address() as AddressInfo).port;

  const server_: SpecServer = {
    url: `http://127.0.0.1:${port}/`,
    port,
    requests,
    prompts,
    aborts,
    directory,
    setProviders(all, conn) {
      providers = all.map((p) => ({ ...p }));
      connected = [...conn];
    },
    setQuota(providerId, quota) {
      const p = providers.find((x) => x.id === providerId);
      if (!p) throw new Error(`unknown provider ${providerId}`);
      if (quota) p.quota = { ...quota };
      else delete p.quota;
    },
    fault(f) {
      faults.push({ ...f, left: f.times ?? 1 });
    },
    clearFaults() {
      faults.length = 0;
    },
    onPrompt: null,
    onRequest: null,
    abortDelayMs: 0,
    answerPrompts: null,
    stats,
    resetStats() {
      stats.maxInFlight = stats.inFlight;
    },
    async stop() {
      for (const t of pendingAnswers.values()) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return server_;
}

function must<T>(map: Map<string, T>, id: string): T {
  const v = map.get(id);
  if (!v) throw new Error(`unknown session ${id}`);
  return v;
}

function payloadProblem(p: unknown): string | null {
  if (typeof p !== 'object' || p === null) return 'payload must be an object';
  const x = p as Record<string, unknown>;
  if (typeof x.agent !== 'string' || x.agent === '') return 'agent is required';
  if (x.model !== undefined) {
    const m = x.model as Record<string, unknown>;
    if (typeof m !== 'object' || m === null || typeof m.providerID !== 'string' || typeof m.modelID !== 'string')
      return 'model must be {providerID, modelID}';
  }
  if (!Array.isArray(x.parts) || x.parts.length === 0) return 'parts is required';
  for (const part of x.parts) {
    const pt = part as Record<string, unknown>;
    if (typeof pt !== 'object' || pt === null || pt.type !== 'text' || typeof pt.text !== 'string')
      return 'parts must be {type: "text", text}';
  }
  return null;
}
