// The requests of the `/api` session engine (stock opencode 1.18.33 serves it beside the old
// routes; opencode 2 keeps only it), as the server's own `GET /doc` describes them. The client
// (./client.ts) decides which engine a session is read and acted on through (./engines.ts); this
// module only speaks this engine's routes and hands back the one normalized model:
//  - directory scoping as each route wants it: GET /api/session filters by `?directory=` (1.18.33)
//    and every route also gets the `x-opencode-directory` header (percent-encoded), which the
//    permission, question, provider and model routes (and, as reported, opencode 2) follow;
//  - liveness reads one message at a time (limit=1); a model-switched / agent-switched entry is
//    stepped over with further limit=1 reads, never read as a turn;
//  - a prompt names an explicit model (and variant) the engine's own model listing names, is
//    switched to it (the variant travels in the model switch) and re-read before it is sent
//    (`prompt`), all inside the caller's session lock;
//  - `/api/provider` carries API keys: only ids and names are read (./wire/api-providers.ts).
import type { ModelRef, ProviderListing, WaitingRequest } from '../model';
import { BackendError, readShaped } from './errors';
import type { HttpTransport } from './http';
import { segment } from './id-checks';
import { BODY_LIMITS } from './limits';
import { readApiMessagePage } from './wire/api-message';
import { listsModel, listsVariant, readApiModels, readApiProviderListing, type ApiModels } from './wire/api-providers';
import {
  readActiveMap,
  readApiSessionList,
  readSessionModel,
  type ApiSessionList,
  type ApiSessionModel,
} from './wire/api-sessions';
import { readMessagePage, type MessagePage } from './wire/message-page';
import { readPermissionList } from './wire/permission';
import { readQuestionList } from './wire/question';
import type { StatusEntry } from './wire/sessions';
import { arr, isObj, obj, type Obj } from './wire/shape';

export interface ApiCall {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** The first user message is looked for in the oldest FIRST_USER_PAGES pages of FIRST_USER_PAGE messages. */
const FIRST_USER_PAGE = 20;
const FIRST_USER_PAGES = 5;

/** How many switch markers a liveness read steps over (one limit=1 read each) before it gives up. */
export const MAX_MARKERS_SKIPPED = 8;

export class ApiEngine {
  constructor(
    private readonly http: HttpTransport,
    private readonly baseUrl: string,
  ) {}

  /** GET /api/health: true when the server serves this engine, false when it answers 404. Other failures throw. */
  async served(opts: ApiCall): Promise<boolean> {
    try {
      const res = await this.get('api/health', {}, 'GET /api/health', opts);
      return isObj(res) && res.healthy === true;
    } catch (err) {
      if (err instanceof BackendError && (err.code === 'not-found' || err.code === 'rejected')) return false;
      throw err;
    }
  }

  /** GET /api/session?directory=&limit=&order=desc (+ the header): the directory's newest `limit` sessions. */
  async listSessions(directory: string, limit: number, opts: ApiCall): Promise<ApiSessionList> {
    const op = 'GET /api/session';
    const json = await this.get('api/session', { directory, limit, order: 'desc' }, op, opts, {
      directory,
      maxBytes: BODY_LIMITS.sessionList,
    });
    return this.shaped(op, () => readApiSessionList(json, directory));
  }

  /** GET /api/session/active: the running sessions of every directory. */
  async active(opts: ApiCall): Promise<Map<string, StatusEntry>> {
    const op = 'GET /api/session/active';
    const json = await this.get('api/session/active', {}, op, opts, { maxBytes: BODY_LIMITS.statusMap });
    return this.shaped(op, () => readActiveMap(json));
  }

  /**
   * The newest turn of a session in the old engine's raw shape (null: none), read with limit=1:
   * switch markers on top are stepped over, one limit=1 read each (at most MAX_MARKERS_SKIPPED).
   * `any`: whether the session has any entry at all (a marker counts), so a session whose only
   * entries are markers is known to be held here.
   */
  async newest(directory: string, sessionId: string, opts: ApiCall): Promise<{ raw: Obj | null; any: boolean }> {
    const op = 'GET /api/session/{id}/message';
    let cursor: string | undefined;
    let any = false;
    for (let i = 0; i <= MAX_MARKERS_SKIPPED; i++) {
      const json = await this.get(`api/session/${segment(sessionId)}/message`, { limit: 1, cursor }, op, opts, {
        directory,
        sessionId,
        maxBytes: BODY_LIMITS.message,
      });
      const page = this.shaped(op, () => readApiMessagePage(json), sessionId);
      if (page.count === 0) return { raw: null, any };
      any = true;
      if (page.messages.length > 0) return { raw: page.messages[0], any };
      if (!page.next) return { raw: null, any };
      cursor = page.next;
    }
    return { raw: null, any };
  }

  /** One page for summing cost: `before` is the cursor the previous page named (newest pages first). */
  async messagePage(
    directory: string,
    sessionId: string,
    page: { limit: number; before?: string | null },
    opts: ApiCall,
  ): Promise<MessagePage> {
    const op = 'GET /api/session/{id}/message (page)';
    const json = await this.get(
      `api/session/${segment(sessionId)}/message`,
      { limit: page.limit, cursor: page.before ?? undefined },
      op,
      opts,
      { directory, sessionId, maxBytes: BODY_LIMITS.messagePage },
    );
    return this.shaped(
      op,
      () => {
        const raw = readApiMessagePage(json);
        const read = readMessagePage(raw.messages, {});
        // The engine names a next cursor on every page: a page shorter than asked is the last.
        return { messages: read.messages, next: raw.count < page.limit ? null : raw.next };
      },
      sessionId,
    );
  }

  /**
   * The session's first user message (its assignment, authority rule 1), oldest first
   * (`order=asc`), a page at a time, at most FIRST_USER_PAGES pages; null when none is found there.
   * Never a liveness read.
   */
  async firstUserMessage(directory: string, sessionId: string, opts: ApiCall): Promise<Obj | null> {
    const op = 'GET /api/session/{id}/message (first user message)';
    let cursor: string | undefined;
    for (let i = 0; i < FIRST_USER_PAGES; i++) {
      const json = await this.get(
        `api/session/${segment(sessionId)}/message`,
        { limit: FIRST_USER_PAGE, order: 'asc', cursor },
        op,
        opts,
        { directory, sessionId, maxBytes: BODY_LIMITS.messagePage },
      );
      const page = this.shaped(op, () => readApiMessagePage(json), sessionId);
      const user = page.messages.find((m) => isObj(m.info) && m.info.role === 'user');
      if (user) return user;
      if (page.count < FIRST_USER_PAGE || !page.next) return null;
      cursor = page.next;
    }
    return null;
  }

  /** POST /api/session/{id}/interrupt (204). Idle is confirmed by reads afterwards (the caller's). */
  async interrupt(directory: string, sessionId: string, opts: ApiCall): Promise<void> {
    await this.post(`api/session/${segment(sessionId)}/interrupt`, 'POST /api/session/{id}/interrupt', opts, {
      directory,
      sessionId,
    });
  }

  /** GET /api/model (+ the header): the enabled models of the directory, by provider. */
  async models(directory: string, opts: ApiCall): Promise<ApiModels> {
    const op = 'GET /api/model';
    const json = await this.get('api/model', {}, op, opts, { directory, maxBytes: BODY_LIMITS.providers });
    return this.shaped(op, () => readApiModels(json));
  }

  /** GET /api/provider and GET /api/model (+ the header): ids, names and models only (never a key). */
  async providers(directory: string, opts: ApiCall): Promise<ProviderListing> {
    const op = 'GET /api/provider';
    const [json, models] = await Promise.all([
      this.get('api/provider', {}, op, opts, { directory, maxBytes: BODY_LIMITS.providers }),
      this.models(directory, opts),
    ]);
    return this.shaped(op, () => readApiProviderListing(json, models));
  }

  /**
   * A prompt on an explicit model (and variant), inside the caller's session lock: the model (and
   * the variant, when one is asked) must be one the engine's own model listing names (its switch
   * would accept any), the session is switched to it (POST .../model carries the variant) and to the
   * agent when it is on another, its model and variant are read again, and only when that read shows
   * exactly what was asked is the prompt sent (queued behind a running turn, as the old
   * prompt_async). Without a variant the session must read none (the engine's "default").
   */
  async prompt(
    directory: string,
    sessionId: string,
    p: { agent: string; model: ModelRef; variant?: string | null; text: string },
    opts: ApiCall,
  ): Promise<void> {
    const op = 'POST /api/session/{id}/prompt';
    const where = `api/session/${segment(sessionId)}`;
    const variant = p.variant ?? null;
    const models = await this.models(directory, opts);
    const wanted = `${p.model.providerID}/${p.model.modelID}${variant === null ? '' : ` variant ${variant}`}`;
    if (!listsModel(models, p.model.providerID, p.model.modelID))
      throw this.refuse(
        op,
        sessionId,
        'invalid-request',
        `${wanted} is not in the engine's model listing: nothing was sent`,
      );
    if (variant !== null && !listsVariant(models, p.model.providerID, p.model.modelID, variant))
      throw this.refuse(
        op,
        sessionId,
        'invalid-request',
        `the engine's model listing names no variant "${variant}" for ${p.model.providerID}/${p.model.modelID}: nothing was sent`,
      );
    const before = await this.session(directory, sessionId, opts);
    if (!sameModel(before.model, p.model, variant))
      await this.post(`${where}/model`, 'POST /api/session/{id}/model', opts, {
        directory,
        sessionId,
        body: JSON.stringify({
          model: { id: p.model.modelID, providerID: p.model.providerID, ...(variant === null ? {} : { variant }) },
        }),
      });
    if (before.agent !== p.agent)
      await this.post(`${where}/agent`, 'POST /api/session/{id}/agent', opts, {
        directory,
        sessionId,
        body: JSON.stringify({ agent: p.agent }),
      });
    const after = await this.session(directory, sessionId, opts);
    if (!sameModel(after.model, p.model, variant))
      throw this.refuse(
        op,
        sessionId,
        'rejected',
        `the session's model reads ${modelText(after.model)} after the switch to ${wanted} (another client switched it): nothing was sent`,
      );
    await this.post(`${where}/prompt`, op, opts, {
      directory,
      sessionId,
      body: JSON.stringify({ prompt: { text: p.text }, delivery: 'queue' }),
      read: 'json',
    });
  }

  /** GET /api/permission/request and GET /api/question/request (+ the header). */
  async pending(directory: string, opts: ApiCall): Promise<{ requests: WaitingRequest[]; warnings: string[] }> {
    const pOp = 'GET /api/permission/request';
    const qOp = 'GET /api/question/request';
    const [pj, qj] = await Promise.all([
      this.get('api/permission/request', {}, pOp, opts, { directory }),
      this.get('api/question/request', {}, qOp, opts, { directory }),
    ]);
    const permissions = this.shaped(pOp, () =>
      readPermissionList(
        arr(obj(pj, 'permission list').data, 'permission list data').map((e, i) => {
          const r = obj(e, `permission ${i}`);
          return { id: r.id, sessionID: r.sessionID, permission: r.action, patterns: r.resources, always: r.save };
        }),
      ),
    );
    const questions = this.shaped(qOp, () =>
      readQuestionList(arr(obj(qj, 'question list').data, 'question list data')),
    );
    return {
      requests: [...permissions.requests, ...questions.requests],
      warnings: [...permissions.warnings, ...questions.warnings],
    };
  }

  async replyPermission(
    directory: string,
    sessionId: string,
    requestID: string,
    body: { reply: string; message?: string },
    opts: ApiCall,
  ): Promise<void> {
    await this.post(
      `api/session/${segment(sessionId)}/permission/${segment(requestID)}/reply`,
      'POST /api/session/{id}/permission/{requestID}/reply',
      opts,
      { directory, sessionId, body: JSON.stringify(body) },
    );
  }

  async replyQuestion(
    directory: string,
    sessionId: string,
    requestID: string,
    answers: string[][] | null,
    opts: ApiCall,
  ): Promise<void> {
    const tail = answers === null ? 'reject' : 'reply';
    await this.post(
      `api/session/${segment(sessionId)}/question/${segment(requestID)}/${tail}`,
      `POST /api/session/{id}/question/{requestID}/${tail}`,
      opts,
      { directory, sessionId, body: answers === null ? undefined : JSON.stringify({ answers }) },
    );
  }

  // ---- internals ---------------------------------------------------------------------------

  /** GET /api/session/{id}: the session's model and agent. */
  private async session(
    directory: string,
    sessionId: string,
    opts: ApiCall,
  ): Promise<{ model: ApiSessionModel | null; agent: string | null }> {
    const op = 'GET /api/session/{id}';
    const json = await this.get(`api/session/${segment(sessionId)}`, {}, op, opts, { directory, sessionId });
    return this.shaped(
      op,
      () => {
        const data = obj(obj(json, 'session').data, 'session data');
        return { model: readSessionModel(json), agent: typeof data.agent === 'string' ? data.agent : null };
      },
      sessionId,
    );
  }

  private async get(
    path: string,
    query: Record<string, string | number | undefined>,
    operation: string,
    opts: ApiCall,
    extra: { directory?: string; sessionId?: string; maxBytes?: number } = {},
  ): Promise<unknown> {
    const res = await this.http.request({
      method: 'GET',
      path,
      query,
      operation,
      read: 'json',
      directoryHeader: extra.directory,
      sessionId: extra.sessionId,
      maxBytes: extra.maxBytes,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
    });
    return res.json;
  }

  private async post(
    path: string,
    operation: string,
    opts: ApiCall,
    extra: { directory: string; sessionId?: string; body?: string; read?: 'json' | 'discard' },
  ): Promise<void> {
    await this.http.request({
      method: 'POST',
      path,
      query: {},
      operation,
      body: extra.body,
      read: extra.read ?? 'discard',
      directoryHeader: extra.directory,
      sessionId: extra.sessionId,
      signal: opts.signal,
      timeoutMs: opts.timeoutMs,
    });
  }

  private refuse(operation: string, sessionId: string, code: BackendError['code'], detail: string): BackendError {
    return new BackendError({ code, operation, baseUrl: this.baseUrl, sessionId, detail });
  }

  private shaped<T>(operation: string, read: () => T, sessionId?: string): T {
    return readShaped(operation, this.baseUrl, read, sessionId);
  }
}

/** The session reads exactly this model and variant (null: none, which the engine reads as "default"). */
function sameModel(a: ApiSessionModel | null, b: ModelRef, variant: string | null): boolean {
  return a !== null && a.providerID === b.providerID && a.modelID === b.modelID && a.variant === variant;
}

function modelText(m: ApiSessionModel | null): string {
  if (!m) return 'unset';
  return `${m.providerID}/${m.modelID}${m.variant === null ? '' : ` variant ${m.variant}`}`;
}
