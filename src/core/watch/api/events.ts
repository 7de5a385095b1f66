// GET /api/events (docs/daemon-api.md): the server-sent event stream of changes. Each event is
// serialised once and encoded to bytes once: the same Buffer is written to every client (never a
// per-client JSON.stringify or UTF-8 encode); a change of many rows is one write per client. Each
// client's unsent bytes are bounded: a client whose buffer holds more than `maxBufferedBytes` (it
// reads slower than the fleet changes) is dropped (its connection closed; it reconnects and reads
// /api/fleet again), so a slow client never grows the daemon's memory. At most `maxClients` streams
// at once (then 503). A keep-alive comment every 15 s keeps proxies from closing an idle stream.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Clock } from '../../clock';
import { Ticker } from '../../timing';
import { apiError, baseHeaders, sendJson } from './respond';

export const MAX_EVENT_CLIENTS = 200;
export const MAX_CLIENT_BUFFER_BYTES = 1024 * 1024;
export const KEEP_ALIVE_MS = 15_000;

export type EventName = 'row' | 'removed' | 'outcome' | 'alert';

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
}

export class EventHub {
  private readonly clients = new Set<Client>();
  private nextId = 1;
  private readonly keepAlive: Ticker;
  private readonly maxClients: number;
  private readonly maxBuffered: number;
  /** Clients dropped for reading too slowly (for tests and the log). */
  dropped = 0;

  constructor(private readonly o: EventHubOptions = {}) {
    this.maxClients = o.maxClients ?? MAX_EVENT_CLIENTS;
    this.maxBuffered = o.maxBufferedBytes ?? MAX_CLIENT_BUFFER_BYTES;
    this.keepAlive = new Ticker(o.keepAliveMs ?? KEEP_ALIVE_MS, () => this.write(': keep-alive\n\n'), o.clock, {
      unref: true,
    });
    this.keepAlive.start();
  }

  /** Streams connected now. */
  get size(): number {
    return this.clients.size;
  }

  /** Starts a stream on the response (the route answers 'streamed'). */
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
    this.clients.add(client);
    res.write(': connected\n\n');
    const gone = () => this.clients.delete(client);
    req.on('close', gone);
    res.on('close', gone);
    res.on('error', gone);
    return 'streamed';
  }

  /** Sends events (in this order, one write per client); nothing is serialised without a client. */
  publish(events: ReadonlyArray<{ event: EventName; data: unknown }>): void {
    if (this.clients.size === 0 || events.length === 0) return;
    let chunk = '';
    for (const e of events) chunk += `id: ${this.nextId++}\nevent: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
    this.write(chunk);
  }

  private write(text: string): void {
    if (this.clients.size === 0) return;
    const chunk = Buffer.from(text, 'utf8');
    for (const c of [...this.clients]) {
      const buffered = c.res.writableLength;
      if (buffered > this.maxBuffered) {
        this.clients.delete(c);
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
