// The act routes of the daemon's API (docs/daemon-api.md): abort, wake (the prompt the session's
// state calls for, or a given text), abort-and-wake, recover, dispatch (with the model's variant),
// answer a permission or a question (or reject the question), cancel a scheduled retry. Each runs through the daemon's Operator exactly as a click in
// the editor (the session's action lock, the machine-wide lock and the re-read before every POST,
// authority, the send guard), is appended to the audit trail with the token's name, and is answered
// with the outcome as data: 200 (the CLI's --json keys, with `sent`), 409 for a refusal (its code and
// the outcome), 404 for a session the daemon does not watch or a request it is not waiting on.
import { parseModelRef } from '../../actions/model-choice';
import type { AuditEntry } from '../../audit/audit-log';
import { DIALECTS } from '../../backend/dialects';
import { recordOf } from '../../health/provider-records';
import { auditEntry } from '../../audit/audit-entry';
import type { ModelRef } from '../../model';
import type { SessionRow } from '../../monitor/row';
import type { BackendState } from '../../monitor/sessionMonitor';
import type { Operator } from '../../operations/operator';
import { outcomeOf, type ActionOutcome } from '../../operations/action-outcome';
import type { Acted } from '../../operations/requests';
import type { ApiRoute, RequestContext } from '../http-server';
import type { Principal } from '../auth/tokens';
import { oneRow } from './read';
import { apiError, type ApiAnswer } from './respond';

/** How long an act may take before its answer is 503 `deadline` (the act goes on; its outcome is audited). */
export const ACT_DEADLINE_MS = 240_000;
/** The most answers to one question request, and the longest answer text. */
const MAX_ANSWERS = 64;
const MAX_ANSWER_CHARS = 4096;

export interface ActView {
  backends(): readonly BackendState[];
  operator: Pick<
    Operator,
    'abort' | 'wake' | 'send' | 'recover' | 'dispatch' | 'answer' | 'cancelScheduled' | 'wakeTemplate'
  >;
  /** The backend's name for its key. */
  nameOf(backendKey: string): string;
  /** Appends to the audit trail (null: there is none). */
  record(entry: AuditEntry): void;
  now(): number;
}

type Body = Record<string, unknown>;

function bodyOf(ctx: RequestContext): Body | ApiAnswer {
  const b = ctx.body;
  if (!b || typeof b !== 'object' || Array.isArray(b))
    return apiError(400, 'bad-request', 'the body must be a JSON object');
  return b as Body;
}

function only(body: Body, keys: readonly string[]): ApiAnswer | null {
  const extra = Object.keys(body).filter((k) => !keys.includes(k));
  return extra.length > 0
    ? apiError(
        400,
        'bad-request',
        `unknown key(s) ${extra.map((k) => `"${k.slice(0, 40)}"`).join(', ')} (known: ${keys.join(', ')})`,
      )
    : null;
}

function stringField(body: Body, key: string, max: number): string | null | ApiAnswer {
  const v = body[key];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string' || v.trim() === '')
    return apiError(400, 'bad-request', `${key} must be a non-empty string`);
  if (v.length > max) return apiError(400, 'bad-request', `${key} is longer than ${max} characters`);
  return v;
}

function modelField(body: Body): ModelRef | null | ApiAnswer {
  const raw = stringField(body, 'model', 256);
  if (raw === null || typeof raw !== 'string') return raw;
  return (
    parseModelRef(raw) ?? apiError(400, 'bad-request', `model must be "provider/model", got "${raw.slice(0, 80)}"`)
  );
}

const isAnswer = (v: unknown): v is ApiAnswer =>
  typeof v === 'object' && v !== null && 'status' in v && 'body' in v && typeof (v as ApiAnswer).status === 'number';

/** The CLI's --json keys of the action (abort, wake, recover, dispatch), from the core action's result. */
function cliKeys(o: ActionOutcome, r: Record<string, unknown> | null): Record<string, unknown> {
  if (!r) return {};
  switch (o.action) {
    case 'abort':
      return { idle: r.idle };
    case 'wake':
    case 'abort-and-wake':
      return { model: r.model, aborted: r.aborted, confirmed: r.confirmed };
    case 'recover':
      return {
        decision: r.decision,
        provider: r.provider,
        model: r.model,
        waitUntil: r.waitUntil,
        marks: r.marks,
        confirmed: r.confirmed,
        aborted: r.aborted,
      };
    case 'dispatch':
      return { model: r.model, instead: r.instead, variant: r.variant, newSession: false };
    default:
      return {};
  }
}

/**
 * The act's answer: `session`, the CLI's --json keys of the action, `sent`, and the outcome as data
 * (`code` the typed refusal, null unless refused or busy); 409 when refused or busy.
 */
export function actAnswer(row: SessionRow, acted: Acted<unknown>): ApiAnswer {
  const o = acted.outcome;
  const body = {
    session: o.sessionId,
    backend: row.backendKey,
    directory: row.directory,
    action: o.action,
    model: o.model,
    ...cliKeys(o, acted.result as Record<string, unknown> | null),
    sent: o.sent,
    outcome: {
      outcome: o.outcome,
      code: o.code,
      message: o.message,
      rowText: o.rowText,
      notice: o.notice,
      at: o.at,
    },
  };
  if (o.outcome === 'refused' || o.outcome === 'busy')
    return { status: 409, body: { error: { code: o.code ?? o.outcome, message: o.message }, ...body } };
  return { status: 200, body };
}

export function actRoutes(view: ActView): ApiRoute[] {
  /** Finds the row, runs the act, audits it with the token's name, answers. */
  const act =
    (
      keys: readonly string[],
      run: (row: SessionRow, body: Body, ctx: RequestContext) => Promise<Acted<unknown> | ApiAnswer>,
      actionName?: (body: Body) => string,
    ) =>
    async (ctx: RequestContext): Promise<ApiAnswer> => {
      const body = bodyOf(ctx);
      if (isAnswer(body)) return body;
      const unknown = only(body, ['backend', ...keys]);
      if (unknown) return unknown;
      const backend = stringField(body, 'backend', 2048);
      if (isAnswer(backend)) return backend;
      const found = oneRow(view.backends(), ctx.params.id, backend ?? ctx.query.get('backend'));
      if ('refusal' in found) return found.refusal;
      const row = found.row;
      const acted = await run(row, body, ctx);
      if (isAnswer(acted)) return acted;
      if (acted.outcome.outcome !== 'busy') audit(view, ctx.principal, row, acted.outcome, actionName?.(body));
      return actAnswer(row, acted);
    };
  const session = (path: string) => `/api/sessions/:id${path}`;
  const post = (path: string, handle: (ctx: RequestContext) => Promise<ApiAnswer>): ApiRoute => ({
    method: 'POST',
    path: session(path),
    scope: 'act',
    deadlineMs: ACT_DEADLINE_MS,
    handle,
  });
  const wake = (abortFirst: boolean) =>
    act(['kind', 'prompt', 'model'], async (row, body) => {
      const kind = stringField(body, 'kind', 64);
      const prompt = stringField(body, 'prompt', 64 * 1024);
      const model = modelField(body);
      for (const v of [kind, prompt, model]) if (isAnswer(v)) return v;
      if (prompt !== null && kind !== null) return apiError(400, 'bad-request', 'give kind or prompt, not both');
      if (typeof prompt === 'string')
        return view.operator.send({
          target: row,
          text: prompt,
          model: model as ModelRef | null,
          abortFirst,
          promptOrigin: 'custom',
        });
      if (model !== null)
        return apiError(
          400,
          'bad-request',
          'model goes with a prompt text; a composed wake chooses its model by the rules',
        );
      const template = view.operator.wakeTemplate(row);
      if (kind !== null && kind !== template)
        return apiError(400, 'bad-request', `kind ${kind}: this session's state calls for ${template}`);
      return view.operator.wake({ target: row, abortFirst });
    });
  return [
    post(
      '/abort',
      act([], (row) => view.operator.abort({ target: row })),
    ),
    post('/wake', wake(false)),
    post('/abort-and-wake', wake(true)),
    post(
      '/recover',
      act([], (row) => view.operator.recover({ target: row })),
    ),
    post(
      '/dispatch',
      act(['prompt', 'model', 'variant'], async (row, body) => {
        const prompt = stringField(body, 'prompt', 64 * 1024);
        const model = modelField(body);
        const variant = stringField(body, 'variant', 64);
        for (const v of [prompt, model, variant]) if (isAnswer(v)) return v;
        if (typeof prompt !== 'string' || model === null)
          return apiError(
            400,
            'bad-request',
            'dispatch needs the task as prompt and an explicit model ("provider/model")',
          );
        const ref = model as ModelRef;
        if (typeof variant === 'string') {
          const unknown = variantProblem(
            view.backends().find((b) => b.config.key === row.backendKey),
            ref,
            variant,
          );
          if (unknown) return apiError(400, 'bad-request', unknown);
        }
        return view.operator.dispatch({ target: row, task: prompt, model: ref, effort: variant as string | null });
      }),
    ),
    post(
      '/permissions/:requestId',
      act(
        ['reply'],
        async (row, body, ctx) => {
          const reply = body.reply;
          if (reply !== 'once' && reply !== 'always' && reply !== 'reject')
            return apiError(400, 'bad-request', 'reply must be "once", "always" or "reject"');
          const waiting = row.waiting;
          if (!waiting || waiting.kind !== 'permission' || waiting.requestID !== ctx.params.requestId)
            return apiError(
              404,
              'unknown-request',
              `session ${row.id} is not waiting on permission ${ctx.params.requestId.slice(0, 200)}`,
            );
          return view.operator.answer({ target: row, permission: reply });
        },
        () => 'permission',
      ),
    ),
    post(
      '/questions/:requestId',
      act(
        ['answers', 'reject'],
        async (row, body, ctx) => {
          const waiting = row.waiting;
          if (!waiting || waiting.kind !== 'question' || waiting.requestID !== ctx.params.requestId)
            return apiError(
              404,
              'unknown-request',
              `session ${row.id} is not waiting on question ${ctx.params.requestId.slice(0, 200)}`,
            );
          if (body.reject !== undefined) {
            if (body.reject !== true) return apiError(400, 'bad-request', 'reject must be true');
            if (body.answers !== undefined) return apiError(400, 'bad-request', 'give answers or reject, not both');
            return view.operator.answer({ target: row, rejectQuestion: true });
          }
          const answers = body.answers;
          const ok =
            Array.isArray(answers) &&
            answers.length > 0 &&
            answers.length <= MAX_ANSWERS &&
            answers.every(
              (a) =>
                Array.isArray(a) &&
                a.length <= MAX_ANSWERS &&
                a.every((x) => typeof x === 'string' && x.length <= MAX_ANSWER_CHARS),
            );
          if (!ok)
            return apiError(400, 'bad-request', 'answers must be a list (one per question) of lists of answer texts');
          const count = waiting.detail.kind === 'question' ? waiting.detail.questions.length : 0;
          if ((answers as string[][]).length !== count)
            return apiError(400, 'bad-request', `the request asks ${count} question(s): give one answer list each`);
          return view.operator.answer({ target: row, question: answers as string[][] });
        },
        () => 'question',
      ),
    ),
    {
      method: 'DELETE',
      path: session('/retry'),
      scope: 'act',
      handle: async (ctx) => {
        const found = oneRow(view.backends(), ctx.params.id, ctx.query.get('backend'));
        if ('refusal' in found) return found.refusal;
        const row = found.row;
        const cancelled = view.operator.cancelScheduled(row.key);
        const message = cancelled ? 'scheduled retry cancelled' : 'no retry was scheduled';
        view.record(
          auditEntry({
            at: view.now(),
            who: { kind: 'token', name: ctx.principal.name },
            action: 'cancel-retry',
            backend: view.nameOf(row.backendKey),
            directory: row.directory,
            row,
            outcome: outcomeOf(
              { action: 'recover', rowKey: row.key, sessionId: row.id, label: row.title ?? row.id, automatic: false },
              { outcome: cancelled ? 'cancelled' : 'refused', rowText: message, message },
            ),
          }),
        );
        const body = { session: row.id, backend: row.backendKey, directory: row.directory, cancelled };
        return cancelled
          ? { status: 200, body }
          : { status: 409, body: { error: { code: 'no-retry', message }, ...body } };
      },
    },
  ];
}

/**
 * Why `variant` cannot go out with a prompt on `model` (null: it can): the backend's prompt payload
 * must take a variant (stock opencode; the spec's defines none) and the provider listing the daemon
 * last read must show that variant in the model's variant table (the send guard checks it again
 * right before the POST).
 */
export function variantProblem(backend: BackendState | undefined, model: ModelRef, variant: string): string | null {
  const name = `${model.providerID}/${model.modelID}`;
  if (!backend?.dialect || !DIALECTS[backend.dialect].capabilities.promptVariant)
    return `variant ${variant}: this backend's prompt payload takes no variant (${backend?.dialect ?? 'not read yet'})`;
  if (!backend.providers) return `variant ${variant}: the provider listing of this backend has not been read yet`;
  const table = recordOf(backend.providers, model.providerID)?.variants?.[model.modelID] ?? null;
  if (!table || table.length === 0)
    return `variant ${variant}: the provider listing shows no variant table for ${name}`;
  if (!table.includes(variant)) return `variant ${variant}: ${name}'s variants are ${table.join(', ')}`;
  return null;
}

function audit(view: ActView, who: Principal, row: SessionRow, o: ActionOutcome, action?: string): void {
  view.record(
    auditEntry({
      at: view.now(),
      who: { kind: 'token', name: who.name },
      backend: view.nameOf(row.backendKey),
      directory: row.directory,
      outcome: o,
      row,
      prompt: o.prompt ?? null,
      action,
    }),
  );
}
