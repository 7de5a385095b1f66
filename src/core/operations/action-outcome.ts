// The outcome of every operator action as data: what happened, what the row says, what the log
// line says and what a host shows a person (the notice), each formatted here once. A prompt that
// did not go out is kept in the outcome with how to retry it, so it is never lost.
import type { PromptTemplate, SendRefusalCode } from '../actions';
import type { ActRefusalCode } from '../actions/reverify';
import type { MarkConsidered } from '../actions/recover';
import type { EpochMs, ModelRef } from '../model';
import type { Delivery } from '../actions/send';
import type { OperatorAction, OperationOutcome } from './book';

/** Where a prompt document's text comes from: a prompt template, or text written by a person (custom). */
export type PromptOrigin = PromptTemplate | 'custom';

/** How to retry a prompt that did not go out: send the same text again, or run recovery again. */
export type RetryOf =
  | {
      via: 'send';
      text: string;
      model: ModelRef | null;
      abortFirst: boolean;
      promptOrigin: PromptOrigin;
      /**
       * The person confirmed *I Hold the Authority* for this text (authority rule 1): the retry of
       * the same text carries it (it is still checked against the worker's record, and passes as
       * the first send did); absent: not confirmed.
       */
      holdsAuthority?: boolean;
    }
  | { via: 'recover' };

export interface Undelivered {
  /** The prompt text, or null when none was built. */
  prompt: string | null;
  promptOrigin: PromptOrigin;
  model: ModelRef | null;
  modelBasis: string | null;
  retry: RetryOf;
}

export type NoticeLevel = 'info' | 'warning' | 'error' | 'escalation';

/** What a host shows a person about the outcome (a message, a modal for an escalation). */
export interface Notice {
  level: NoticeLevel;
  text: string;
  detail?: string;
}

/**
 * Why an action did nothing, as a typed code (the send guard's, the act-once re-read's, or `busy`:
 * another action held the session). What the UI, the logs and the metrics read; never the text.
 */
export type RefusalCode = SendRefusalCode | ActRefusalCode;

export interface ActionOutcome {
  action: OperatorAction;
  rowKey: string;
  sessionId: string;
  /** The session's title, else its id. */
  label: string;
  /** `busy`: another action held the session; nothing was done. */
  outcome: Exclude<OperationOutcome, 'running'> | 'busy';
  /** What the row says, e.g. "woken on local/m1, confirmed". */
  rowText: string;
  /** The result's own summary (the log line's text). */
  message: string;
  automatic: boolean;
  model: ModelRef | null;
  undelivered: Undelivered | null;
  /** scheduled: the reset the retry waits for. */
  at: EpochMs | null;
  /** escalated: the marked providers considered. */
  marks: MarkConsidered[];
  /** dispatch refused: a model of the provider to dispatch on instead. */
  instead: ModelRef | null;
  notice: Notice | null;
  /** outcome refused or busy: the refusal's typed code (`stale`: the session moved since the decision); else null. */
  code: RefusalCode | null;
  /**
   * Whether the action's POST reached the backend (the prompt of a wake, recovery or dispatch; the
   * abort of an abort): "unknown" when it was made and its answer never came (never "not sent").
   */
  sent: Delivery;
  /** The prompt the action sent or meant to send (the audit trail keeps its hash and first line); absent: none. */
  prompt?: string | null;
}

export function modelName(model: ModelRef | null): string | null {
  return model ? `${model.providerID}/${model.modelID}` : null;
}

/** The log line of an outcome. */
export function logLine(o: ActionOutcome): string {
  const verb = o.action === 'abort-and-wake' ? 'wake' : o.action;
  return `${o.automatic ? 'automatic ' : ''}${verb} ${o.sessionId}: ${o.message}`;
}

/** A notice for a prompt that did not go out (the host offers Retry and, with a prompt, Open Prompt). */
export function undeliveredNotice(label: string, message: string): Notice {
  return { level: 'error', text: `"${label}": ${message}` };
}

/** An outcome with the fields most results leave empty. */
export function outcomeOf(
  base: Pick<ActionOutcome, 'action' | 'rowKey' | 'sessionId' | 'label' | 'automatic'>,
  fields: Pick<ActionOutcome, 'outcome' | 'rowText' | 'message'> & Partial<ActionOutcome>,
): ActionOutcome {
  return {
    model: null,
    undelivered: null,
    at: null,
    marks: [],
    instead: null,
    notice: null,
    code: null,
    sent: false,
    ...base,
    ...fields,
  };
}
