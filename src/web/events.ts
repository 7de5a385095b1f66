// The live side of the page: GET /api/events read with fetch and a stream reader (so the Bearer
// header is sent; EventSource cannot), parsed by ./sse.ts. Reconnects after a drop with
// Last-Event-ID (the daemon replays the missed events, or sends `reset`), waiting longer after each failure (1 s doubling to 30 s, or the server's `retry`);
// a 401/403 stops it (the token is gone or wrong) and is reported.
import { authHeaders } from './api';
import { SseParser, type SseEvent } from './sse';

export type StreamState = 'connecting' | 'live' | 'retrying' | 'stopped';

export interface EventStreamHandlers {
  onEvent(e: SseEvent): void;
  onState(state: StreamState, detail: string): void;
  /**
   * The stream (re)opened. `resumed`: it was asked to go on from the last event seen
   * (Last-Event-ID), so the daemon replays what was missed or sends a `reset` event; otherwise the
   * page reads the fleet again.
   */
  onOpen(resumed: boolean): void;
  /** The token was refused (401/403): the stream stopped. */
  onUnauthorized(status: number): void;
}

/** Opens the stream; returns the function that closes it for good. */
export function openEventStream(handlers: EventStreamHandlers): () => void {
  let closed = false;
  let ctl: AbortController | null = null;
  let lastId = '';
  let failures = 0;
  let serverRetry: number | null = null;

  const run = async (): Promise<void> => {
    while (!closed) {
      handlers.onState(failures ? 'retrying' : 'connecting', '');
      ctl = new AbortController();
      const parser = new SseParser();
      try {
        const res = await fetch('/api/events', {
          headers: authHeaders({ accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) }),
          signal: ctl.signal,
          credentials: 'omit',
          cache: 'no-store',
        });
        if (res.status === 401 || res.status === 403) {
          handlers.onState('stopped', `the event stream was refused (${res.status})`);
          handlers.onUnauthorized(res.status);
          return;
        }
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        failures = 0;
        handlers.onState('live', '');
        handlers.onOpen(lastId !== '');
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const e of parser.push(value)) handlers.onEvent(e);
          lastId = parser.lastEventId || lastId;
          serverRetry = parser.retryMs ?? serverRetry;
        }
        throw new Error('the stream ended');
      } catch (err) {
        if (closed) return;
        failures++;
        const wait = serverRetry ?? Math.min(30_000, 1000 * 2 ** Math.min(failures - 1, 5));
        handlers.onState(
          'retrying',
          `${err instanceof Error ? err.message : String(err)}; again in ${Math.round(wait / 1000)} s`,
        );
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  };
  void run();
  return () => {
    closed = true;
    ctl?.abort();
    handlers.onState('stopped', '');
  };
}
