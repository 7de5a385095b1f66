// Counts the output events the event stream shows per session (stock opencode: message part
// updates and deltas, i.e. model output and tool progress). sampleRound copies the count into
// each sample; the verdict treats a count that moved between two samples as a live signal.
// Status events are not counted: a retry spin changes the status without producing output.
import type { BackendEvent } from './events';

const OUTPUT_EVENTS = new Set([
  'message.part.delta',
  'message.part.updated',
  // The `/api` engine's output (GET /api/event).
  'session.next.text.delta',
  'session.next.reasoning.delta',
  'session.next.tool.input.delta',
  'session.next.tool.progress',
]);

export class ActivityCounter {
  private readonly counts = new Map<string, number>();

  /** Feed every event of the stream here (readEventStream's onEvent). */
  onEvent(event: BackendEvent): void {
    if (!event.sessionID || !OUTPUT_EVENTS.has(event.type)) return;
    this.counts.set(event.sessionID, (this.counts.get(event.sessionID) ?? 0) + 1);
  }

  count(sessionId: string): number {
    return this.counts.get(sessionId) ?? 0;
  }

  /** Forget sessions no longer listed (keeps the map bounded). */
  retain(sessionIds: Iterable<string>): void {
    const keep = new Set(sessionIds);
    for (const id of [...this.counts.keys()]) if (!keep.has(id)) this.counts.delete(id);
  }
}
