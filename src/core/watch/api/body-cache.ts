// The bytes of a per-backend JSON document list, `{"backends":[...]}` (GET /api/status and
// GET /api/fleet, docs/daemon-api.md), built once per round: each backend's part is serialised when
// first asked for after that backend's round committed (its lastRoundAt, status, error or provider
// listing moved) or after an invalidation (a monitor change naming it; every part on an act or a
// reload), and at the latest after `maxAgeMs` (what no event names: marks, retries). A request whose
// backends are all current writes the previous bytes again: no JSON.stringify, no encode. The bytes
// are exactly `JSON.stringify({ backends }) + "\n"`.
import type { BackendState } from '../../monitor/sessionMonitor';

export const BODY_MAX_AGE_MS = 10_000;

interface Part {
  state: BackendState;
  lastRoundAt: number | null;
  status: BackendState['status'];
  error: string | null;
  providers: BackendState['providers'];
  json: string;
  at: number;
}

export class BackendBodyCache {
  private readonly parts = new Map<string, Part>();
  private last: { keys: string; bytes: Buffer } | null = null;
  /** Backend parts serialised so far (for tests and the bench). */
  builds = 0;

  constructor(
    private readonly build: (backend: BackendState) => unknown,
    private readonly now: () => number,
    private readonly maxAgeMs = BODY_MAX_AGE_MS,
  ) {}

  /** Drops the parts of these backend keys (all when none are given). */
  invalidate(keys?: Iterable<string>): void {
    if (keys === undefined) this.parts.clear();
    else for (const k of keys) this.parts.delete(k);
    this.last = null;
  }

  bytes(backends: readonly BackendState[]): Buffer {
    const now = this.now();
    let rebuilt = false;
    const json: string[] = [];
    for (const b of backends) {
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
          json: JSON.stringify(this.build(b)),
          at: now,
        };
        this.parts.set(key, p);
        this.builds++;
        rebuilt = true;
      }
      json.push(p.json);
    }
    const keys = backends.map((b) => b.config.key).join('\n');
    if (this.parts.size > backends.length) {
      const listed = new Set(backends.map((b) => b.config.key));
      for (const k of [...this.parts.keys()]) if (!listed.has(k)) this.parts.delete(k);
    }
    if (!rebuilt && this.last?.keys === keys) return this.last.bytes;
    const bytes = Buffer.from(`{"backends":[${json.join(',')}]}\n`, 'utf8');
    this.last = { keys, bytes };
    return bytes;
  }
}
