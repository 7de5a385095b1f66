// The one seam every session command acts through: a SessionActor. This window's operator is one
// (LocalActor, for the backends this window samples); an attached daemon is another
// (src/core/daemon/daemon-actor.ts: the daemon's POST endpoints, for its fleet's rows). A command
// picks the actor for its row (Actors.for) and calls it; it never asks which kind it got. Every
// act answers an ActionOutcome, shown the same way whoever acted. Never imports 'vscode'.
import type { Authority } from '../actions';
import type { ModelRef, ProviderListing } from '../model';
import type { SessionRow } from '../monitor/row';
import type { ActionOutcome, PromptOrigin } from './action-outcome';
import type { Operator } from './operator';
import type { PermissionReply } from './requests';

export interface SendOptions {
  text: string;
  model: ModelRef | null;
  abortFirst?: boolean;
  promptOrigin?: PromptOrigin;
  holdsAuthority?: boolean;
  authority?: Authority;
}

export interface DispatchOptions {
  task: string;
  model: ModelRef;
  /** The model's variant (a route's effort) the task goes out with; null/absent: none. */
  variant?: string | null;
  holdsAuthority?: boolean;
  authority?: Authority;
}

export interface SessionActor {
  /** Who acts, for the log and progress titles: `this window` or `daemon <name>`. */
  readonly who: string;
  /** Whom a prompt to the row speaks for, as this actor resolves it (the person confirms it before a wake). */
  authority(row: SessionRow): Authority;
  abort(row: SessionRow): Promise<ActionOutcome>;
  /** The prompt the row's state calls for, on the model the rules choose (abortFirst: abort, confirm idle, then wake). */
  wake(row: SessionRow, options: { abortFirst?: boolean; authority?: Authority }): Promise<ActionOutcome>;
  recover(row: SessionRow, options: { authority?: Authority }): Promise<ActionOutcome>;
  /** A reviewed prompt text (a prompt document's Send). */
  send(row: SessionRow, options: SendOptions): Promise<ActionOutcome>;
  /** A task written in a prompt document, on an explicit model (the pre-dispatch check runs; refused, `instead` may name a model). */
  dispatch(row: SessionRow, options: DispatchOptions): Promise<ActionOutcome>;
  answer(row: SessionRow, answer: { permission: PermissionReply } | { question: string[][] }): Promise<ActionOutcome>;
  /** Cancels the session's scheduled retry; true when one was cancelled. */
  cancelRetry(row: SessionRow): Promise<boolean>;
  /** The providers and models a person may pick for the row's prompt (Dispatch..., a custom wake's model). */
  providers(row: SessionRow): Promise<ProviderListing>;
}

/** This window's operator as an actor: every act through its one action path. */
export class LocalActor implements SessionActor {
  readonly who = 'this window';

  constructor(private readonly operator: Operator) {}

  authority(row: SessionRow): Authority {
    return this.operator.authority(row);
  }

  async abort(row: SessionRow): Promise<ActionOutcome> {
    return (await this.operator.abort({ target: row })).outcome;
  }

  async wake(row: SessionRow, options: { abortFirst?: boolean; authority?: Authority }): Promise<ActionOutcome> {
    return (await this.operator.wake({ target: row, abortFirst: options.abortFirst, authority: options.authority }))
      .outcome;
  }

  async recover(row: SessionRow, options: { authority?: Authority }): Promise<ActionOutcome> {
    return (await this.operator.recover({ target: row, authority: options.authority })).outcome;
  }

  async send(row: SessionRow, o: SendOptions): Promise<ActionOutcome> {
    return (
      await this.operator.send({
        target: row,
        text: o.text,
        model: o.model,
        abortFirst: o.abortFirst ?? false,
        promptOrigin: o.promptOrigin,
        holdsAuthority: o.holdsAuthority,
        authority: o.authority,
      })
    ).outcome;
  }

  async dispatch(row: SessionRow, o: DispatchOptions): Promise<ActionOutcome> {
    return (
      await this.operator.dispatch({
        target: row,
        task: o.task,
        model: o.model,
        holdsAuthority: o.holdsAuthority,
        authority: o.authority,
        effort: o.variant ?? null,
      })
    ).outcome;
  }

  async answer(row: SessionRow, a: { permission: PermissionReply } | { question: string[][] }): Promise<ActionOutcome> {
    return (await this.operator.answer({ target: row, ...a })).outcome;
  }

  cancelRetry(row: SessionRow): Promise<boolean> {
    return Promise.resolve(this.operator.cancelScheduled(row.key));
  }

  providers(row: SessionRow): Promise<ProviderListing> {
    return this.operator.providers(row);
  }
}

/** Picks the actor of a row: the daemon's for an attached daemon's row, else this window's. */
export class Actors {
  constructor(
    private readonly local: SessionActor,
    private readonly attached: (row: SessionRow) => SessionActor | undefined,
  ) {}

  for(row: SessionRow): SessionActor {
    return this.attached(row) ?? this.local;
  }
}
