// Per backend, per round: a value built once after that backend's round committed (its lastRoundAt,
// status, error or provider listing moved) or after an invalidation (a monitor change naming it;
// every backend on an act or a reload), and at the latest after `maxAgeMs` (what no event names:
// marks, retries). `BackendRoundCache` keeps any value (the daemon's `status --json` documents of a
// backend, built once and shared by /api/status, /api/fleet and the event stream);
// `BackendBodyCache` keeps the bytes of a per-backend JSON document list, `{"backends":[...]}`
// (GET /api/status and GET /api/fleet, docs/daemon-api.md): each backend's part is serialised and
// encoded once, and a request whose backends are all current writes the previous Buffer again (no
// JSON.stringify, no encode); when a part changed, the body is the parts' Buffers copied together
// (only the changed part is serialised). The bytes are exactly `JSON.stringify({ backends }) + "\n"`.
import type { BackendState } from '../../monitor/sessionMonitor';

export const BODY_MAX_AGE_MS = 10_000;

interface Part<T> {
  state: BackendState;
  lastRoundAt: number | null;
  status: BackendState['status'];
  error: string | null;
  providers: BackendState['providers'];
  value: T;
  at: number;
}

export class BackendRoundCache<T> {
  private readonly parts = new Map<string, Part<T>>();
  /** Values built so far (for tests and the bench). */
  builds = 0;

  constructor(
    private readonly build: (backend: BackendState) => T,
    private readonly now: () => number,
    private readonly maxAgeMs = BODY_MAX_AGE_MS,
  ) {}

  /** Drops the values of these backend keys (all when none are given). */
  invalidate(keys?: Iterable<string>): void {
    if (keys === undefined) this.parts.clear();
    else for (const k of keys) this.parts.delete(k);
  }

  /** The backend's value of this round (built now when it is not current). */
  get(b: BackendState): T {
    const now = this.now();
    const key = b.config.key;
    let p = this.parts.get(key);
    if (
      !p ||
      p.state !== b ||
      p.lastRoundAt !== b.lastRoundAt ||
      p.status !== b.status ||
      p.error !== b.error ||
      p.providers !== b.providers ||
      now - p.at > this.maxAgeMs ||
      now < p.at
    ) {
      p = {
        state: b,
        lastRoundAt: b.lastRoundAt,
        status: b.status,
        error: b.error,
        providers: b.providers,
        value: this.build(b),
        at: now,
      };
      this.parts.set(key, p);
      this.builds++;
    }
    return p.value;
  }

  /** Forgets the backends not listed (a reload removed them). */
  keepOnly(backends: readonly BackendState[]): void {
    if (this.parts.size <= backends.length) return;
    const listed = new Set(backends.map((b) => b.config.key));
    for (const k of [...this.parts.keys()]) if (!listed.has(k)) this.parts.delete(k);
  }
}

const HEAD = Buffer.from('{"backends":[', 'utf8');
const COMMA = Buffer.from(',', 'utf8');
const TAIL = Buffer.from(']}\n', 'utf8');

export class BackendBodyCache {
  private readonly parts: BackendRoundCache<Buffer>;
  private last: { parts: Buffer[]; bytes: Buffer } | null = null;

  constructor(build: (backend: BackendState) => unknown, now: () => number, maxAgeMs = BODY_MAX_AGE_MS) {
    this.parts = new BackendRoundCache((b) => Buffer.from(JSON.stringify(build(b)), 'utf8'), now, maxAgeMs);
  }

  /** Backend parts serialised so far (for tests and the bench). */
  get builds(): number {
    return this.parts.builds;
  }

  /** Drops the parts of these backend keys (all when none are given). */
  invalidate(keys?: Iterable<string>): void {
    this.parts.invalidate(keys);
    this.last = null;
  }

  bytes(backends: readonly BackendState[]): Buffer {
    const parts = backends.map((b) => this.parts.get(b));
    this.parts.keepOnly(backends);
    const last = this.last;
    if (last && last.parts.length === parts.length && parts.every((p, i) => p === last.parts[i])) return last.bytes;
    const chunks: Buffer[] = [HEAD];
    parts.forEach((p, i) => chunks.push(...(i > 0 ? [COMMA, p] : [p])));
    chunks.push(TAIL);
    const bytes = Buffer.concat(chunks);
    this.last = { parts, bytes };
    return bytes;
  }
}
