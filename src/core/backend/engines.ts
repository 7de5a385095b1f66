// Which engine holds each session of a stock opencode server, and which surfaces the server
// serves. Stock opencode 1.18 runs two session engines behind two surfaces (the old routes and
// `/api`) that share only the list of sessions: a session's messages are on one side only, and a
// prompt sent to the other side runs a turn there without the session's history. So each session
// is found once (the engine whose newest-message read shows a message holds it; `holder`), then
// read and acted on there. A session no engine shows a message for is new: asked again next read.
// `surface` forces one engine (`api`, `legacy`); `auto` finds out, and goes all-`/api` once the
// old session list answers 404/400 (opencode 2 keeps only `/api`).
import type { Engine, Surface } from '../model';

export const SURFACES: readonly Surface[] = ['auto', 'api', 'legacy'];

export function isSurface(v: unknown): v is Surface {
  return typeof v === 'string' && (SURFACES as readonly string[]).includes(v);
}

/** The engine a pair of newest-message reads shows (null: neither has a message: a new session). */
export function holder(legacyHasMessage: boolean, apiHasMessage: boolean): Engine | null {
  if (legacyHasMessage) return 'legacy';
  return apiHasMessage ? 'api' : null;
}

/** At most this many sessions are remembered (the oldest entries go first). */
const MAX_REMEMBERED = 20_000;

export class EngineBook {
  /** Whether the server serves the old routes / `/api`; null: not known yet. */
  legacy: boolean | null;
  api: boolean | null;
  private readonly held = new Map<string, Engine>();

  constructor(readonly surface: Surface = 'auto') {
    this.legacy = surface === 'api' ? false : null;
    this.api = surface === 'legacy' ? false : null;
  }

  /** True when every session goes through `/api` (forced, or the old routes are gone). */
  get apiOnly(): boolean {
    return this.surface === 'api' || this.legacy === false;
  }

  /** True when both engines may hold sessions, so each session's engine must be found. */
  get both(): boolean {
    return this.surface === 'auto' && this.legacy !== false && this.api === true;
  }

  /** The engine known to hold the session; on a one-engine server that engine. Null: not known yet. */
  of(sessionId: string): Engine | null {
    if (this.apiOnly) return 'api';
    if (!this.both) return 'legacy';
    return this.held.get(sessionId) ?? null;
  }

  /** The engine a prompt or an abort of a session that no engine holds yet goes to. */
  get fallback(): Engine {
    return this.apiOnly ? 'api' : 'legacy';
  }

  set(sessionId: string, engine: Engine): void {
    if (this.held.get(sessionId) === engine) return;
    this.held.delete(sessionId);
    this.held.set(sessionId, engine);
    if (this.held.size > MAX_REMEMBERED) this.held.delete(this.held.keys().next().value as string);
  }
}
