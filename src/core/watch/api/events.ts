// GET /api/events (docs/daemon-api.md): the server-sent event stream of changes. Each event is
// serialised once and encoded to bytes once: the same Buffer is written to every client (never a
// per-client JSON.stringify or UTF-8 encode); a change of many rows is one write per client. Each
// client's unsent bytes are bounded: a client whose buffer holds more than `maxBufferedBytes` (it
// reads slower than the fleet changes) is dropped (its connection closed; it reconnects), so a slow
// client never grows the daemon's memory. At most `maxClients` streams at once (then 503). A
// keep-alive comment every 15 s keeps proxies from closing an idle stream.
//
// Replay: every event has an `id:` (a number, monotonic across restarts: a run's first id is its
// start time in ms times 1,000). The last `replayEvents` events of the last `replayMs` are kept
// (their bytes, within `replayBytes`); a client reconnecting with `Last-Event-ID` gets the events
// after it, or one `reset` event (read the fleet again) when they are not all kept: older than the
// ring, from another run, or a change the feed did not build because nobody was listening
// (`missed`). The feed keeps building events for `replayMs` after the last client left (`wanted`),
// so a reconnect within that window loses nothing; after it, nothing is built.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { systemClock, type Clock } from '../../clock';
import { Ticker } from '../../timing';
import { apiError, baseHeaders, sendJson } from './respond';

export const MAX_EVENT_CLIENTS = 200;
export const MAX_CLIENT_BUFFER_BYTES = 1024 * 1024;
export const KEEP_ALIVE_MS = 15_000;
export const REPLAY_EVENTS = 1000;
export const REPLAY_MS = 5 * 60_000;
export const REPLAY_BYTES = 8 * 1024 * 1024;

export type EventName = 'row' | 'removed' | 'outcome' | 'alert' | 'reset';

interface Kept {
  id: number;
  at: number;
  bytes: Buffer;
}

interface Client {
  res: ServerResponse;
  name: string;
}

export interface EventHubOptions {
  maxClients?: number;
  maxBufferedBytes?: number;
  keepAliveMs?: number;
  /** The clock of the keep-alive ticks (default the system's). */
  clock?: Clock;
  /** Told when a slow client is dropped. */
  onDrop?: (name: string, bufferedBytes: number) => void;
  /** The replay ring's bounds: events, age, bytes. */
  replayEvents?: number;
  replayMs?: number;
  replayBytes?: number;
  /** The first event id (default the clock's now in ms times 1,000: monotonic across restarts). */
  firstId?: number;
}

export class EventHub {
  private readonly clients = new Set<Client>();
  private nextId: number;
  private readonly keepAlive: Ticker;
  private readonly maxClients: number;
  private readonly maxBuffered: number;
  private readonly clock: Clock;
  /** The replay ring, oldest first, and its bytes. */
  private readonly ring: Kept[] = [];
  private ringBytes = 0;
  /** Events after this id may have been lost (a change nobody built, an event the ring dropped). */
  private lostAfter: number;
  /** When the last client left (null: one is connected, or none ever was). */
  private leftAt: number | null = null;
  private readonly attachListeners = new Set<() => void>();
  /** Clients dropped for reading too slowly (for tests and the log). */
  dropped = 0;

  constructor(private readonly o: EventHubOptions = {}) {
    this.maxClients = o.maxClients ?? MAX_EVENT_CLIENTS;
    this.maxBuffered = o.maxBufferedBytes ?? MAX_CLIENT_BUFFER_BYTES;
    this.clock = o.clock ?? systemClock;
    this.nextId = o.firstId ?? Math.floor(this.clock.now()) * 1000;
    this.lostAfter = this.nextId - 1;
    this.keepAlive = new Ticker(o.keepAliveMs ?? KEEP_ALIVE_MS, () => this.write(': keep-alive\n\n'), o.clock, {
      unref: true,
    });
    this.keepAlive.start();
  }

  /** Streams connected now. */
  get size(): number {
    return this.clients.size;
  }

  /**
   * Whether events are worth building: a client is connected, or the last one left within the
   * replay window (it may come back with Last-Event-ID).
   */
  get wanted(): boolean {
    return (
      this.clients.size > 0 || (this.leftAt !== null && this.clock.now() - this.leftAt < (this.o.replayMs ?? REPLAY_MS))
    );
  }

  /** Told each time a stream starts (before its replay). */
  onDidAttach(listener: () => void): () => void {
    this.attachListeners.add(listener);
    return () => this.attachListeners.delete(listener);
  }

  /** A change happened that was not built into events: a client that was away must read the fleet again. */
  missed(): void {
    this.lostAfter = this.nextId - 1;
    this.ring.length = 0;
    this.ringBytes = 0;
  }

  /** Starts a stream on the response (the route answers 'streamed'), replaying from Last-Event-ID. */
  attach(req: IncomingMessage, res: ServerResponse, name: string): 'streamed' {
    if (this.clients.size >= this.maxClients) {
      sendJson(res, apiError(503, 'unavailable', `at most ${this.maxClients} event streams at once`));
      return 'streamed';
    }
    res.statusCode = 200;
    baseHeaders(res);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    const client: Client = { res, name };
    for (const l of this.attachListeners) l();
    this.clients.add(client);
    this.leftAt = null;
    res.write(': connected\n\n');
    const since = lastEventId(req.headers['last-event-id']);
    if (since !== null) res.write(this.replay(since));
    const gone = () => {
      if (this.clients.delete(client) && this.clients.size === 0) this.leftAt = this.clock.now();
    };
    req.on('close', gone);
    res.on('close', gone);
    res.on('error', gone);
    return 'streamed';
  }

  /** The bytes a client that saw every event up to `since` is missing: the kept events after it, or a `reset`. */
  private replay(since: number): Buffer {
    this.prune();
    const last = this.nextId - 1;
    if (since === last && since > this.lostAfter) return Buffer.alloc(0);
    const first = this.ring[0]?.id ?? this.nextId;
    if (since > last || since <= this.lostAfter || since < first - 1) {
      const reason =
        since > last
          ? 'the id is not of this run'
          : since <= this.lostAfter && since >= first - 1
            ? 'changes were not kept while no client was connected'
            : 'the events after it are no longer kept';
      // The reset takes the newest id, so the client's next reconnect resumes from here.
      return Buffer.from(`id: ${last}\nevent: reset\ndata: ${JSON.stringify({ reason })}\n\n`, 'utf8');
    }
    const from = this.ring.findIndex((k) => k.id > since);
    return Buffer.concat(this.ring.slice(from).map((k) => k.bytes));
  }

  /** Drops kept events beyond the ring's bounds (count, age, bytes), remembering that they are gone. */
  private prune(): void {
    const maxEvents = this.o.replayEvents ?? REPLAY_EVENTS;
    const maxBytes = this.o.replayBytes ?? REPLAY_BYTES;
    const oldest = this.clock.now() - (this.o.replayMs ?? REPLAY_MS);
    let n = 0;
    let bytes = this.ringBytes;
    while (n < this.ring.length && (this.ring.length - n > maxEvents || bytes > maxBytes || this.ring[n].at < oldest)) {
      bytes -= this.ring[n].bytes.length;
      n++;
    }
    if (n === 0) return;
    this.ring.splice(0, n);
    this.ringBytes = bytes;
  }

  /**
   * Sends events (in this order, one write per client) and keeps them for replay; nothing is
   * serialised while no event is wanted (no client, none within the replay window).
   */
  publish(events: ReadonlyArray<{ event: EventName; data: unknown }>): void {
    if (events.length === 0) return;
    if (!this.wanted) return this.missed();
    const at = this.clock.now();
    const kept: Kept[] = [];
    for (const e of events) {
      const id = this.nextId++;
      kept.push({
        id,
        at,
        bytes: Buffer.from(`id: ${id}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`, 'utf8'),
      });
    }
    for (const k of kept) {
      this.ring.push(k);
      this.ringBytes += k.bytes.length;
    }
    this.prune();
    if (this.clients.size > 0)
      this.writeBytes(kept.length === 1 ? kept[0].bytes : Buffer.concat(kept.map((k) => k.bytes)));
  }

  private write(text: string): void {
    if (this.clients.size === 0) return;
    this.writeBytes(Buffer.from(text, 'utf8'));
  }

  private writeBytes(chunk: Buffer): void {
    for (const c of [...this.clients]) {
      const buffered = c.res.writableLength;
      if (buffered > this.maxBuffered) {
        this.clients.delete(c);
        if (this.clients.size === 0) this.leftAt = this.clock.now();
        this.dropped++;
        this.o.onDrop?.(c.name, buffered);
        c.res.destroy();
        continue;
      }
      c.res.write(chunk);
    }
  }

  /** Ends every stream. */
  close(): void {
    this.keepAlive.stop();
    for (const c of this.clients) c.res.end();
    this.clients.clear();
  }
}

/** A Last-Event-ID header's id (null: none, or not one of ours). */
function lastEventId(header: string | string[] | undefined): number | null {
  const v = Array.isArray(header) ? header[0] : header;
  if (!v || !/^\d{1,16}$/.test(v.trim())) return null;
  return Number(v.trim());
}
