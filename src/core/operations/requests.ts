// One request type per operator action (what a click, a CLI run, the daemon's HTTP endpoint or
// automatic mode asks the Operator facade to do), and what every action answers (`Acted`: the
// outcome as data with the core action's own result). A request names its session either as a
// monitor row (the operator builds the rest from the row and the settings) or as a bare target
// with the core request the host built whole (the CLI: its prompt file, model, waits ...).
import type {
  AbortResult,
  Authority,
  DispatchRequest,
  DispatchResult,
  RecoverRequest,
  RecoverResult,
  WakeRequest,
  WakeResult,
} from '../actions';
import type { AnswerResult } from '../actions/answer';
import type { ModelRef } from '../model';
import type { SessionRow } from '../monitor/row';
import type { ActionOutcome, PromptOrigin } from './action-outcome';

/** The session an action is for: a monitor row, or a session a host names by id (the CLI). */
export type ActionTarget = Pick<SessionRow, 'key' | 'backendKey' | 'directory' | 'id' | 'title'>;

/** An action's outcome with the core action's own result (null when the action did not start: `busy`). */
export interface Acted<R> {
  outcome: ActionOutcome;
  result: R | null;
}

export type PermissionReply = 'once' | 'always' | 'reject';

export interface ActionOptions {
  /** Started by the automatic policy or a scheduled retry, not by a person. */
  automatic?: boolean;
}

/**
 * Whom the prompt speaks for, as the host already resolved it (`Operator.authority`) and showed
 * the person: the act uses it and does not ask again (authority is asked once per act). Absent:
 * the act resolves it once itself.
 */
export interface WithAuthority {
  authority?: Authority;
}

/** Abort the session's running turn, then read it until idle (`waitMs`, default the operator's). */
export interface AbortAct extends ActionOptions {
  target: ActionTarget;
  waitMs?: number;
}

/**
 * Wake (with `abortFirst`: abort, confirm idle, then wake): the prompt the row's state calls for on
 * the model the core chooses; or (`request`) the core wake request the host built whole, through
 * the same guard and confirmation.
 */
export type WakeAct =
  | (ActionOptions & WithAuthority & { target: SessionRow; abortFirst?: boolean; request?: undefined })
  | (ActionOptions & {
      target: ActionTarget;
      request: Omit<WakeRequest, 'sessionId'>;
      /** Where the request's prompt came from (kept with a prompt that did not go out). */
      promptOrigin: PromptOrigin;
    });

/** Send a given text (a reviewed, custom or retried prompt; a fact baseline) on a given model. */
export interface SendAct extends ActionOptions, WithAuthority {
  target: SessionRow;
  text: string;
  model: ModelRef | null;
  abortFirst?: boolean;
  promptOrigin?: PromptOrigin;
  /** The person confirmed holding the orchestrating authority (authority rule 1). */
  holdsAuthority?: boolean;
}

/** Recover after a quota wall (spec: recovery procedure), from the row, or with the host's request. */
export type RecoverAct =
  | (ActionOptions & WithAuthority & { target: SessionRow; request?: undefined })
  | (ActionOptions & { target: ActionTarget; request: Omit<RecoverRequest, 'sessionId'> });

/** Dispatch a task (pre-dispatch check first; the completion-report block appended). */
export type DispatchAct =
  | (WithAuthority & {
      target: SessionRow;
      task: string;
      model: ModelRef;
      holdsAuthority?: boolean;
      /** A route's effort, sent as the model's variant where the backend takes one. */
      effort?: string | null;
      request?: undefined;
    })
  | { target: ActionTarget; request: Omit<DispatchRequest, 'sessionId'> };

/** Answer a session waiting for a person: its pending permission, or its question (one list of answers per question). */
export type AnswerAct =
  | { target: SessionRow; permission: PermissionReply }
  | { target: SessionRow; question: string[][] }
  /** Reject (dismiss) the question instead of answering it (stock opencode POST /question/{id}/reject). */
  | { target: SessionRow; rejectQuestion: true };

export type { AbortResult, AnswerResult, DispatchResult, RecoverResult, WakeResult };
