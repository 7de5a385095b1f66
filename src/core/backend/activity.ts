// What the event stream showed per session, for the sampling rounds that follow:
// - output events (stock opencode: message part updates and deltas, i.e. model output and tool
//   progress): sampleRound copies the count into each sample; the verdict treats a count that
//   moved between two samples as a live signal. Status events are not counted: a retry spin
//   changes the status without producing output.
// - the assistant messages it announced (stock opencode's `message.updated`, with the message's
//   id, whether it finished, its cost and tokens): the message ledger counts a session's new
//   messages from them instead of reading its pages, but only while the stream stayed open since
//   the ledger last counted that session (`continuity()`: a token replaced whenever the stream is
//   not open, since events missed meanwhile are never replayed).
import type { BackendEvent, EventStreamState } from './events';
import type { MessageFigures } from './wire/message-page';

const OUTPUT_EVENTS = new Set([
  'message.part.delta',
  'message.part.updated',
  // The `/api` engine's output (GET /api/event).
  'session.next.text.delta',
  'session.next.reasoning.delta',
  'session.next.tool.input.delta',
  'session.next.tool.progress',
]);

/** Announced messages kept per session until the ledger settles them; past this the stream counts as broken. */
export const MAX_ANNOUNCED_PER_SESSION = 1_000;

export class ActivityCounter {
  private readonly counts = new Map<string, number>();
  /** Per session: the assistant messages announced and not settled yet, by id (the latest version of each). */
  private readonly announced = new Map<string, Map<string, MessageFigures>>();
  /** The stream's continuity: one token per stretch of time it stayed open; null while it is not open. */
  private token: object | null = null;
  /** Sessions whose announcements overflowed (dropped) since the ledger last began to read them. */
  private readonly lost = new Set<string>();

  /** Feed every event of the stream here (readEventStream's onEvent). */
  onEvent(event: BackendEvent): void {
    if (!event.sessionID) return;
    if (event.message?.assistant) this.announce(event.sessionID, event.message);
    if (!OUTPUT_EVENTS.has(event.type)) return;
    this.counts.set(event.sessionID, (this.counts.get(event.sessionID) ?? 0) + 1);
  }

  /** Feed every state of the stream here (readEventStream's onState): any state but open breaks the continuity. */
  onStreamState(state: EventStreamState): void {
    if (state !== 'open') this.token = null;
    else this.token ??= {};
  }

  count(sessionId: string): number {
    return this.counts.get(sessionId) ?? 0;
  }

  /**
   * The current stretch of an open stream (the same object while it stays open and announces every
   * message of the session); null while it is not open, or after the session's announcements
   * overflowed (until `resume`).
   */
  continuity(sessionId: string): object | null {
    return this.lost.has(sessionId) ? null : this.token;
  }

  /** A read of the session's pages starts now: what it misses from here on is announced again. */
  resume(sessionId: string): void {
    this.lost.delete(sessionId);
  }

  /** The assistant messages announced for a session that are newer than `afterId` (all: null), oldest first. */
  announcedAfter(sessionId: string, afterId: string | null): MessageFigures[] {
    const all = this.announced.get(sessionId);
    if (!all) return [];
    const out = [...all.values()].filter((m) => afterId === null || m.id > afterId);
    return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The latest announcement of one message, if any. */
  announcement(sessionId: string, messageId: string): MessageFigures | undefined {
    return this.announced.get(sessionId)?.get(messageId);
  }

  /** Forgets a session's announcements up to `upToId` (counted by the ledger). */
  settle(sessionId: string, upToId: string | null): void {
    const all = this.announced.get(sessionId);
    if (!all || upToId === null) return;
    for (const id of [...all.keys()]) if (id <= upToId) all.delete(id);
    if (all.size === 0) this.announced.delete(sessionId);
  }

  /** Forget sessions no longer listed (keeps the maps bounded). */
  retain(sessionIds: Iterable<string>): void {
    const keep = new Set(sessionIds);
    for (const id of [...this.counts.keys()]) if (!keep.has(id)) this.counts.delete(id);
    for (const id of [...this.announced.keys()]) if (!keep.has(id)) this.announced.delete(id);
    for (const id of [...this.lost]) if (!keep.has(id)) this.lost.delete(id);
  }

  private announce(sessionId: string, message: MessageFigures): void {
    let all = this.announced.get(sessionId);
    if (!all) this.announced.set(sessionId, (all = new Map()));
    all.set(message.id, message);
    if (all.size > MAX_ANNOUNCED_PER_SESSION) {
      // Nobody settles them (the session is not sampled, or no ledger reads this directory): drop
      // them; the ledger reads the session's pages again before it trusts announcements of it.
      this.announced.delete(sessionId);
      this.lost.add(sessionId);
    }
  }
}
