// Each action's result read as an ActionOutcome: the row text, the notice and, for a prompt that
// did not go out, the prompt kept with how to retry it.
import type { AbortResult, DispatchResult, RecoverResult, WakeResult } from '../actions';
import { queuedNote } from '../actions/abort';
import type { EpochMs, ModelRef } from '../model';
import { localTime, until } from '../monitor/present';
import {
  modelName,
  outcomeOf,
  undeliveredNotice,
  type ActionOutcome,
  type PromptOrigin,
  type RetryOf,
} from './action-outcome';

export type OutcomeBase = Pick<ActionOutcome, 'action' | 'rowKey' | 'sessionId' | 'label' | 'automatic'>;

function capitalized(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function abortOutcome(base: OutcomeBase, result: AbortResult): ActionOutcome {
  if (result.idle)
    return outcomeOf(base, {
      sent: result.sent,
      outcome: 'idle',
      rowText: 'aborted, idle confirmed',
      message: result.message,
      notice: {
        level: 'info',
        text: `"${base.label}" aborted and reads idle. ${result.queued ? `${capitalized(queuedNote(result.queued)!)}.` : 'Prompts queued before the abort may never fire: re-send them.'}`,
      },
    });
  if (result.outcome === 'refused')
    return outcomeOf(base, {
      outcome: 'refused',
      code: result.refusal?.code ?? null,
      rowText: `refused: ${result.refusal?.reason ?? result.message}`,
      message: result.message,
      notice: { level: 'warning', text: `"${base.label}": ${result.message}` },
    });
  return outcomeOf(base, {
    sent: result.sent,
    outcome: result.outcome === 'error' ? 'failed' : 'not-idle',
    rowText: result.message,
    message: result.message,
    notice: { level: 'warning', text: result.message },
  });
}

/** A wake or a send of given text; `retry` sends the same prompt again. */
function wakeOutcomeOf(
  base: OutcomeBase,
  result: WakeResult,
  promptOrigin: PromptOrigin,
  retry: RetryOf,
): ActionOutcome {
  const on = modelName(result.model);
  const undelivered = (model: ModelRef | null) => ({
    undelivered: { prompt: result.prompt, promptOrigin, model, modelBasis: result.modelBasis, retry },
    notice: undeliveredNotice(base.label, result.message),
  });
  const common = { message: result.message, model: result.model, sent: result.sent };
  // A prompt queued before the abort whose text could not be read: the row asks a person to re-send it.
  const askPerson = result.queued?.text === null ? '; a queued prompt could not be read: re-send it' : '';
  switch (result.outcome) {
    case 'confirmed':
      if (askPerson)
        return outcomeOf(base, {
          ...common,
          outcome: 'confirmed',
          rowText: `woken on ${on}, confirmed${askPerson}`,
          notice: { level: 'warning', text: `"${base.label}": ${result.message}` },
        });
      return outcomeOf(base, {
        ...common,
        outcome: 'confirmed',
        rowText: `woken on ${on}, confirmed`,
        notice: result.notice ? { level: 'info', text: `${base.label}: ${result.notice}` } : null,
      });
    case 'not-confirmed':
      if (result.model)
        return outcomeOf(base, {
          ...common,
          outcome: 'not-confirmed',
          rowText: `sent on ${on}, not confirmed${askPerson}`,
          notice: {
            level: 'warning',
            text: result.notice ? `${result.message} (${result.notice})` : result.message,
          },
        });
      return outcomeOf(base, { ...common, outcome: 'not-idle', rowText: result.message, ...undelivered(null) });
    case 'escalated':
      return outcomeOf(base, {
        ...common,
        outcome: 'escalated',
        rowText: 'escalated: nothing sent',
        notice: {
          level: 'escalation',
          text: `"${base.label}" needs a person. ${result.message}`,
          detail: 'Nothing was sent.',
        },
      });
    case 'refused':
      return outcomeOf(base, {
        ...common,
        outcome: 'refused',
        code: result.refusal?.code ?? null,
        rowText: `refused: ${result.refusal?.reason ?? result.message}`,
        ...undelivered(result.refusal?.model ?? null),
      });
    case 'error':
      return outcomeOf(base, {
        ...common,
        outcome: 'failed',
        rowText:
          result.sent === 'unknown'
            ? `sent, no answer: delivery unknown (${result.error?.message ?? result.message})`
            : result.aborted
              ? result.message
              : `not sent: ${result.error?.message ?? result.message}`,
        ...undelivered(result.model),
      });
  }
}

/** A recovery; `schedule` arms the retry after a reset within reach and gives the row text. */
function recoverOutcomeOf(
  base: OutcomeBase,
  result: RecoverResult,
  now: EpochMs,
  schedule: (at: EpochMs) => string,
): ActionOutcome {
  const on = modelName(result.model);
  const common = { message: result.message, model: result.model, sent: result.sent };
  const undelivered = {
    undelivered: {
      prompt: result.prompt,
      promptOrigin: 'quota-wake' as const,
      model: result.model,
      modelBasis: null,
      retry: { via: 'recover' as const },
    },
    notice: undeliveredNotice(base.label, result.message),
  };
  switch (result.decision) {
    case 'recovered': {
      const confirmed = result.confirmed ? 'confirmed' : 'not confirmed';
      const unread = result.queued?.text === null;
      return outcomeOf(base, {
        ...common,
        outcome: result.confirmed ? 'confirmed' : 'not-confirmed',
        rowText: `recovered on ${on}, ${confirmed}${unread ? '; a queued prompt could not be read: re-send it' : ''}`,
        ...(unread ? { notice: { level: 'warning', text: `"${base.label}": ${result.message}` } } : {}),
      });
    }
    case 'wait-for-reset':
      if (result.waitUntil === null)
        return outcomeOf(base, { ...common, outcome: 'failed', rowText: 'ended without a result' });
      return outcomeOf(base, {
        ...common,
        outcome: 'scheduled',
        rowText: schedule(result.waitUntil),
        at: result.waitUntil,
      });
    case 'escalated': {
      const reset = (at: EpochMs | null) => (at !== null ? `${localTime(at)} (${until(at, now)})` : 'unknown');
      const lines = result.marks.map(
        (m) => `${m.provider}: marked ${localTime(m.markedAt)}, reset ${reset(m.resetAt)}`,
      );
      return outcomeOf(base, {
        ...common,
        outcome: 'escalated',
        rowText: 'escalated: nothing sent',
        marks: result.marks,
        notice: {
          level: 'escalation',
          text: `"${base.label}" needs a person. ${result.message}`,
          detail: `Nothing was sent.\n\nMarked providers:\n${lines.join('\n') || '(none)'}`,
        },
      });
    }
    case 'refused':
      return outcomeOf(base, {
        ...common,
        outcome: 'refused',
        code: result.refusal?.code ?? null,
        rowText: `refused: ${result.refusal?.reason ?? result.message}`,
        ...(result.prompt ? undelivered : { notice: { level: 'warning', text: result.message } }),
      });
    default:
      return outcomeOf(base, { ...common, outcome: 'failed', rowText: result.message, ...undelivered });
  }
}

/** A dispatch; `instead` is a model of the provider the pre-dispatch check names instead, if any. */
function dispatchOutcomeOf(base: OutcomeBase, result: DispatchResult, instead: ModelRef | null): ActionOutcome {
  const common = { message: result.message, model: result.model, sent: result.sent };
  if (result.sent)
    return outcomeOf(base, {
      ...common,
      outcome: 'confirmed',
      rowText: `task dispatched on ${modelName(result.model)}`,
    });
  return outcomeOf(base, {
    ...common,
    outcome: result.outcome === 'refused' ? 'refused' : 'failed',
    code: result.outcome === 'refused' ? (result.refusal?.code ?? null) : null,
    rowText: result.message,
    instead,
    notice: result.instead
      ? { level: 'warning', text: result.message }
      : { level: 'error', text: `${result.message} The task stays in its document.` },
  });
}

/** wakeOutcomeOf with the prompt kept in the outcome (for the audit trail). */
export function wakeOutcome(...args: Parameters<typeof wakeOutcomeOf>): ActionOutcome {
  return { ...wakeOutcomeOf(...args), prompt: args[1].prompt };
}

/** recoverOutcomeOf with the prompt kept in the outcome (for the audit trail). */
export function recoverOutcome(...args: Parameters<typeof recoverOutcomeOf>): ActionOutcome {
  return { ...recoverOutcomeOf(...args), prompt: args[1].prompt };
}

/** dispatchOutcomeOf with the prompt kept in the outcome (for the audit trail). */
export function dispatchOutcome(...args: Parameters<typeof dispatchOutcomeOf>): ActionOutcome {
  return { ...dispatchOutcomeOf(...args), prompt: args[1].prompt };
}
