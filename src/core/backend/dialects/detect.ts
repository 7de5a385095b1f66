// The one dialect detector. The dialect is never configured: it is read from responses, and once
// chosen it holds until a session list says otherwise (a list is the surest sign). The signs:
//  - GET /session: sessions carry `state` (spec) or none do (stock opencode); mixed is malformed;
//    an empty list tells nothing.
//  - GET /provider: a quota object (spec) or a `default` map (stock opencode); only asked while
//    nothing is chosen.
//  - GET /session/status (a directory with no sessions): it exists only on stock opencode; a 404
//    means the spec's dialect.
import type { Dialect } from '../../model';
import { BackendError } from '../errors';
import type { HttpTransport } from '../http';
import { isObj, ShapeError, type Obj } from '../wire/shape';
import type { DialectAdapter } from './adapter';
import { DIALECTS } from './index';

/** The dialect a session list shows (null when empty). Throws ShapeError when some sessions carry a state and others do not. */
export function sessionListDialect(sessions: readonly Obj[]): Dialect | null {
  let withState = 0;
  for (const s of sessions) if (s.state !== undefined) withState++;
  if (withState > 0) {
    if (withState !== sessions.length) throw new ShapeError('some sessions carry a state and others do not');
    return 'spec';
  }
  return sessions.length > 0 ? 'opencode' : null;
}

/** The dialect a provider listing shows: quota objects (spec), a `default` map (stock opencode), else null. */
export function providerListingDialect(body: unknown): Dialect | null {
  if (!isObj(body)) return null;
  if (Array.isArray(body.all) && body.all.some((p) => isObj(p) && p.quota !== undefined && p.quota !== null))
    return 'spec';
  return isObj(body.default) ? 'opencode' : null;
}

export class DialectDetector {
  private chosen: DialectAdapter | null = null;

  /** The adapter chosen so far (null until a response told). */
  get adapter(): DialectAdapter | null {
    return this.chosen;
  }

  /** A session list was read: its sign wins. Returns the adapter the list shows, null when empty. */
  fromSessionList(sessions: readonly Obj[]): DialectAdapter | null {
    const dialect = sessionListDialect(sessions);
    if (dialect === null) return null;
    this.chosen = DIALECTS[dialect];
    return this.chosen;
  }

  /** A provider listing was read (its raw body): used only while nothing is chosen. */
  fromProviderListing(body: unknown): void {
    if (this.chosen) return;
    const dialect = providerListingDialect(body);
    if (dialect !== null) this.chosen = DIALECTS[dialect];
  }

  /**
   * Asks a directory with no sessions: GET /session/status exists only on stock opencode. Any
   * answer other than an object or a 404 leaves the dialect unknown (asked again next time).
   */
  async probe(
    http: HttpTransport,
    directory: string,
    opts: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<DialectAdapter | null> {
    try {
      const res = await http.request({
        method: 'GET',
        path: 'session/status',
        query: { directory },
        operation: 'GET /session/status',
        read: 'json',
        ...opts,
      });
      if (res.json !== null && typeof res.json === 'object' && !Array.isArray(res.json))
        this.chosen = DIALECTS.opencode;
    } catch (err) {
      if (!(err instanceof BackendError) || err.code === 'aborted') throw err;
      if (err.code === 'not-found') this.chosen = DIALECTS.spec;
    }
    return this.chosen;
  }
}
