// The daemon's event stream (GET /api/events, docs/daemon-api.md) read with fetch and a stream
// reader, so the Bearer header can be sent. Each event is handed on parsed; a dropped or silent
// stream (no line, keep-alive included, for `idleTimeoutMs`; the daemon beats every 15 s) is
// reconnected with exponential backoff and Last-Event-ID; 401/403 stop it (a new token is needed),
// 429 waits Retry-After. An event larger than the limit drops the connection.

import { SseParser } from '../backend/sse';
import type { TimerHandle } from '../clock';
import { DaemonApiError, type DaemonClient } from './client';

export interface DaemonEvent {
  event: string;
  id: string | null;
  data: unknown;
}

export interface EventStreamOptions {
  idleTimeoutMs?: number;
  maxEventChars?: number;
  /** Backoff: first wait, and the longest. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** How long the connection may take to answer with headers. */
  connectTimeoutMs?: number;
}

export interface EventStreamHandlers {
  onEvent(event: DaemonEvent): void;
  /** The stream is open (after a connect or a reconnect): a caller re-reads the fleet here. */
  onOpen?(): void;
  /** The stream dropped; `retryInMs` null means it stopped for good (401/403 or close()). */
  onError?(error: DaemonApiError, retryInMs: number | null): void;
}

export function backoffMs(attempt: number, min: number, max: number): number {
  return Math.min(max, min * 2 ** Math.max(0, attempt));
}

export class DaemonEventStream {
  private closed = false;
  private ctl: AbortController | null = null;
  private readonly closing = new AbortController();
  private lastId: string | null = null;
  private readonly opts: Required<EventStreamOptions>;
  /** Connections made (first and reconnects). */
  connects = 0;

  constructor(
    private readonly client: DaemonClient,
    private readonly handlers: EventStreamHandlers,
    options: EventStreamOptions = {},
  ) {
    this.opts = {
      idleTimeoutMs: options.idleTimeoutMs ?? 40_000,
      maxEventChars: options.maxEventChars ?? 16 * 1024 * 1024,
      minBackoffMs: options.minBackoffMs ?? 1_000,
      maxBackoffMs: options.maxBackoffMs ?? 60_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
    };
  }

  /** Runs until close() or a 401/403. */
  async run(): Promise<void> {
    let attempt = 0;
    while (!this.closed) {
      let opened = false;
      try {
        await this.once(() => {
          opened = true;
          attempt = 0;
        });
        if (this.closed) return;
        throw new DaemonApiError('unreachable', 'GET /api/events: the daemon ended the stream');
      } catch (raw) {
        if (this.closed) return;
        const err =
          raw instanceof DaemonApiError
            ? raw
            : new DaemonApiError('unreachable', `GET /api/events: ${String((raw as Error)?.message ?? raw)}`);
        if (err.kind === 'unauthenticated' || err.kind === 'forbidden') {
          this.handlers.onError?.(err, null);
          return;
        }
        if (!opened) attempt++;
        let wait = backoffMs(opened ? 0 : attempt - 1, this.opts.minBackoffMs, this.opts.maxBackoffMs);
        if (err.retryAfterSeconds !== null) wait = Math.max(wait, err.retryAfterSeconds * 1000);
        this.handlers.onError?.(err, wait);
        await this.sleep(wait);
      }
    }
  }

  close(): void {
    this.closed = true;
    this.ctl?.abort();
    this.closing.abort();
  }

  private sleep(ms: number): Promise<void> {
    return this.client.clock.sleep(ms, this.closing.signal).catch(() => undefined);
  }

  private async once(opened: () => void): Promise<void> {
    const ctl = new AbortController();
    this.ctl = ctl;
    let idle: TimerHandle | null = null;
    const clock = this.client.clock;
    let why: string | null = null;
    const arm = (ms: number, text: string): void => {
      if (idle) clock.clearTimeout(idle);
      idle = clock.setTimeout(() => {
        why = text;
        ctl.abort();
      }, ms);
    };
    arm(this.opts.connectTimeoutMs, `no answer within ${this.opts.connectTimeoutMs} ms`);
    this.connects++;
    try {
      let res: Response;
      try {
        const headers = this.client.headers({ accept: 'text/event-stream' });
        if (this.lastId !== null) headers['last-event-id'] = this.lastId;
        res = await this.client.fetchImpl(this.client.url('api/events'), {
          headers,
          signal: ctl.signal,
          redirect: 'error',
        });
      } catch (err) {
        throw new DaemonApiError(
          why ? 'deadline' : 'unreachable',
          `GET /api/events: ${why ?? String((err as Error)?.message ?? err)}`,
        );
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        const kind =
          res.status === 401
            ? 'unauthenticated'
            : res.status === 403
              ? 'forbidden'
              : res.status === 429
                ? 'rate-limited'
                : res.status === 404
                  ? 'not-found'
                  : 'server';
        const after = Number(res.headers.get('retry-after'));
        throw new DaemonApiError(
          kind,
          `GET /api/events: HTTP ${res.status}`,
          res.status,
          null,
          null,
          res.status === 429 && Number.isFinite(after) ? after : null,
        );
      }
      if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream') || !res.body) {
        await res.body?.cancel().catch(() => undefined);
        throw new DaemonApiError('bad-answer', 'GET /api/events: not text/event-stream');
      }
      opened();
      this.handlers.onOpen?.();
      const parser = new SseParser(this.opts.maxEventChars);
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      arm(this.opts.idleTimeoutMs, `silent for ${this.opts.idleTimeoutMs} ms`);
      for (;;) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          throw new DaemonApiError(
            why ? 'deadline' : 'unreachable',
            `GET /api/events: ${why ?? String((err as Error)?.message ?? err)}`,
          );
        }
        if (chunk.done) return;
        const before = parser.lines;
        let messages;
        try {
          messages = parser.push(decoder.decode(chunk.value, { stream: true }));
        } catch (err) {
          await reader.cancel().catch(() => undefined);
          throw new DaemonApiError('too-large', `GET /api/events: ${(err as Error).message}`);
        }
        if (parser.lines !== before) arm(this.opts.idleTimeoutMs, `silent for ${this.opts.idleTimeoutMs} ms`);
        for (const m of messages) {
          if (m.id !== null) this.lastId = m.id;
          let data: unknown;
          try {
            data = JSON.parse(m.data);
          } catch {
            continue; // not JSON: not an event of this contract
          }
          if (this.closed) return;
          this.handlers.onEvent({ event: m.event, id: m.id, data });
        }
      }
    } finally {
      if (idle) clock.clearTimeout(idle);
      if (this.ctl === ctl) this.ctl = null;
    }
  }
}
