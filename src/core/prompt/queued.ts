// A prompt queued before an abort (spec Transitions: it may never fire and must be re-sent): the
// newest message read with limit=1 right before the abort, when it is a user message (so it came
// after the last assistant message). Its text goes into the wake verbatim, under a line that says
// it was queued before the abort and is re-sent; where it cannot be read, the wake says so.
import type { MessageSnapshot } from '../model';

/** What the read before the abort found: a queued prompt's text, or one whose text could not be read. */
export type QueuedPrompt = { messageId: string; text: string } | { messageId: string; text: null; why: string };

export const QUEUED_RESENT_LINE =
  'Re-sent: this prompt was queued before the abort (the newest message of your session, a user message after your last answer) and never ran. Its text, verbatim:';

export const QUEUED_UNREADABLE_LINE =
  'A prompt was queued before the abort (the newest message of your session, a user message after your last answer) and never ran, but its text could not be read';

const BEGIN = '----- queued prompt, verbatim -----';
const END = '----- end of queued prompt -----';

/** The queued prompt in the newest message read before an abort, or null when the newest is not a user message. */
export function queuedPromptOf(newest: MessageSnapshot | null): QueuedPrompt | null {
  if (!newest || newest.role !== 'user') return null;
  if (newest.text.trim() === '')
    return { messageId: newest.id, text: null, why: 'it holds no text part (only attachments or nothing)' };
  return { messageId: newest.id, text: newest.text };
}

/** The wake's section for a queued prompt. */
export function queuedPromptSection(q: QueuedPrompt): string {
  if (q.text === null)
    return `${QUEUED_UNREADABLE_LINE} (${q.why}; message ${q.messageId}). It is not re-sent here: a person has been asked to re-send it. Do not guess what it said.`;
  return [QUEUED_RESENT_LINE, BEGIN, q.text, END].join('\n');
}

/** `text` with the queued prompt's section after its first paragraph (the "you were woken" line of a composed wake). */
export function withQueuedPrompt(text: string, q: QueuedPrompt | null): string {
  if (!q) return text;
  const section = queuedPromptSection(q);
  const i = text.indexOf('\n\n');
  return i < 0 ? `${text}\n\n${section}` : `${text.slice(0, i)}\n\n${section}${text.slice(i)}`;
}
