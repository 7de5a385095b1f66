// An attached daemon as a SessionActor (src/core/operations/actor.ts): every act on a row of its
// fleet is the daemon's POST endpoint (docs/daemon-api.md, Acts), run by the daemon's operator with
// its own locks, re-read, send guard and authority (its configuration's orchestrator); this window
// composes nothing and sends nothing to the backend. The answer (200, or 409 with the typed refusal
// code) comes back as an ActionOutcome, shown as a local one is. Never imports 'vscode'.
import type { Authority } from '../actions';
import type { ModelRef, ProviderListing } from '../model';
import type { SessionRow } from '../monitor/row';
import { outcomeOf, type ActionOutcome, type Notice, type RefusalCode } from '../operations/action-outcome';
import type { DispatchOptions, SendOptions, SessionActor } from '../operations/actor';
import type { OperatorAction } from '../operations/book';
import type { PermissionReply } from '../operations/requests';
import type { AttachedDaemon } from './attached-daemon';
import { DaemonApiError, isObject, type DaemonClient } from './client';
import { providerListing } from './fleet-rows';

const OUTCOMES = new Set([
  'confirmed',
  'not-confirmed',
  'idle',
  'not-idle',
  'refused',
  'failed',
  'scheduled',
  'escalated',
  'cancelled',
  'answered',
  'busy',
]);

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function modelOf(v: unknown): ModelRef | null {
  if (isObject(v) && typeof v.providerID === 'string' && typeof v.modelID === 'string')
    return { providerID: v.providerID, modelID: v.modelID };
  const s = str(v);
  const i = s ? s.indexOf('/') : -1;
  return s && i > 0 ? { providerID: s.slice(0, i), modelID: s.slice(i + 1) } : null;
}

function noticeOf(v: unknown, fallback: Notice): Notice {
  if (!isObject(v) || typeof v.text !== 'string') return fallback;
  const level = v.level === 'info' || v.level === 'warning' || v.level === 'error' || v.level === 'escalation';
  return {
    level: level ? (v.level as Notice['level']) : fallback.level,
    text: v.text,
    ...(typeof v.detail === 'string' ? { detail: v.detail } : {}),
  };
}

/** The daemon's act answer (200 body, or a 409's body) as an ActionOutcome for the row. */
export function outcomeOfAnswer(
  row: SessionRow,
  action: OperatorAction,
  daemonName: string,
  body: unknown,
): ActionOutcome {
  const b = isObject(body) ? body : {};
  const o = isObject(b.outcome) ? b.outcome : {};
  const outcome = OUTCOMES.has(o.outcome as string) ? (o.outcome as ActionOutcome['outcome']) : 'failed';
  const label = row.title ?? row.id;
  const message = str(o.message) ?? (outcome === 'failed' ? 'the daemon answered no outcome' : outcome);
  const refused = outcome === 'refused' || outcome === 'busy';
  const fallback: Notice = {
    level: refused || outcome === 'failed' ? 'warning' : 'info',
    text: `"${label}": ${message}`,
  };
  const notice = noticeOf(o.notice, fallback);
  return outcomeOf(
    { action, rowKey: row.key, sessionId: row.id, label, automatic: false },
    {
      outcome,
      rowText: str(o.rowText) ?? message,
      message: `${message} (by daemon ${daemonName})`,
      model: modelOf(b.model),
      instead: modelOf(b.instead),
      at: typeof o.at === 'number' ? o.at : null,
      notice: { ...notice, text: `${notice.text} (daemon ${daemonName})` },
      code: (str(o.code) as RefusalCode | null) ?? null,
      sent: b.sent === true || b.sent === 'unknown' ? b.sent : false,
    },
  );
}

/** Whom a prompt speaks for: the daemon's own orchestrator (its configuration), not this window's. */
function daemonAuthority(): Authority {
  return {
    report: { ticket: null },
    orchestrator: null,
    ticket: null,
    ticketSource: null,
    orchestratorSource: null,
    named: null,
    recorded: null,
    mismatch: false,
    held: false,
    warnings: [],
  };
}

export class DaemonActor implements SessionActor {
  constructor(private readonly daemon: AttachedDaemon) {}

  get who(): string {
    return `daemon ${this.daemon.config.name}`;
  }

  authority(): Authority {
    return daemonAuthority();
  }

  /** The client and the daemon's key of the row's backend for a read (any scope). */
  private reader(row: SessionRow): { client: DaemonClient; backend: string } {
    const client = this.daemon.actClient;
    const backend = this.daemon.backends().find((b) => b.config.key === row.backendKey)?.attached?.remoteKey;
    if (!client || !backend) throw new Error(`daemon ${this.daemon.config.name} is not connected: nothing was sent`);
    return { client, backend };
  }

  /** As reader, for an act: a token that may only read is refused here, before any POST. */
  private target(row: SessionRow): { client: DaemonClient; backend: string } {
    const t = this.reader(row);
    if (this.daemon.whoami?.scope !== 'act')
      throw new Error(
        `daemon ${this.daemon.config.name}: this token may only read (scope ${this.daemon.whoami?.scope ?? 'unknown'}): nothing was sent`,
      );
    return t;
  }

  /** Runs a POST and reads its answer; a 409 refusal is an outcome too (its typed code kept). */
  private async run(row: SessionRow, action: OperatorAction, post: () => Promise<unknown>): Promise<ActionOutcome> {
    try {
      return outcomeOfAnswer(row, action, this.daemon.config.name, await post());
    } catch (err) {
      if (err instanceof DaemonApiError && err.kind === 'refused') {
        const outcome = isObject(err.outcome) ? err.outcome : {};
        const answer = isObject(err.answer) ? err.answer : {};
        const o = outcomeOfAnswer(row, action, this.daemon.config.name, {
          ...answer,
          sent: false,
          outcome: { outcome: 'refused', message: err.message, code: err.code, ...outcome },
        });
        return { ...o, code: (err.code as RefusalCode | null) ?? o.code };
      }
      throw err;
    }
  }

  async abort(row: SessionRow): Promise<ActionOutcome> {
    const { client, backend } = this.target(row);
    return this.run(row, 'abort', () => client.act(row.id, 'abort', { backend }));
  }

  async wake(row: SessionRow, options: { abortFirst?: boolean }): Promise<ActionOutcome> {
    const { client, backend } = this.target(row);
    const action = options.abortFirst ? 'abort-and-wake' : 'wake';
    return this.run(row, action, () => client.act(row.id, action, { backend }));
  }

  async recover(row: SessionRow): Promise<ActionOutcome> {
    const { client, backend } = this.target(row);
    return this.run(row, 'recover', () => client.act(row.id, 'recover', { backend }));
  }

  async send(row: SessionRow, o: SendOptions): Promise<ActionOutcome> {
    const { client, backend } = this.target(row);
    const action = o.abortFirst ? 'abort-and-wake' : 'wake';
    const model = o.model ? `${o.model.providerID}/${o.model.modelID}` : undefined;
    return this.run(row, action, () => client.act(row.id, action, { backend, prompt: o.text, model }));
  }

  async dispatch(row: SessionRow, o: DispatchOptions): Promise<ActionOutcome> {
    const { client, backend } = this.target(row);
    const model = `${o.model.providerID}/${o.model.modelID}`;
    const body = { backend, prompt: o.task, model, ...(o.variant ? { variant: o.variant } : {}) };
    return this.run(row, 'dispatch', () => client.act(row.id, 'dispatch', body));
  }

  /**
   * The providers the daemon reports for the row's backend (`GET /api/providers`, read now), with
   * only the usable ones' models: connected and not quota-marked. A marked or disconnected
   * provider is listed without models (never offered); the daemon's send guard checks again.
   */
  async providers(row: SessionRow): Promise<ProviderListing> {
    const { client, backend } = this.reader(row);
    const answer = await client.providers();
    const mine = answer.backends.find((b) => isObject(b) && b.key === backend);
    if (!isObject(mine)) throw new Error(`daemon ${this.daemon.config.name} reports no providers for ${backend}`);
    if (typeof mine.error === 'string' && mine.error)
      throw new Error(`daemon ${this.daemon.config.name}: providers not read: ${mine.error}`);
    const listing = providerListing(mine.providers);
    return {
      connected: listing.connected,
      providers: listing.providers.map((p) => (p.connected && !p.quota ? p : { ...p, models: [], variants: {} })),
    };
  }

  async answer(row: SessionRow, a: { permission: PermissionReply } | { question: string[][] }): Promise<ActionOutcome> {
    const { client, backend } = this.target(row);
    const requestId = row.waiting?.requestID;
    if (!requestId) throw new Error(`"${row.title ?? row.id}" is not waiting for an answer`);
    return this.run(row, 'answer', () =>
      'permission' in a
        ? client.replyPermission(row.id, requestId, a.permission, backend)
        : client.answerQuestion(row.id, requestId, { answers: a.question }, backend),
    );
  }

  async cancelRetry(row: SessionRow): Promise<boolean> {
    const { client, backend } = this.target(row);
    try {
      await client.cancelRetry(row.id, backend);
      return true;
    } catch (err) {
      if (err instanceof DaemonApiError && err.kind === 'refused') return false;
      throw err;
    }
  }
}
