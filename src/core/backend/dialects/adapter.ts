// One adapter per wire dialect, behind this interface. The client (src/core/backend/client.ts)
// reads the endpoints every dialect shares and hands the raw bodies to the adapter of the dialect
// the detector chose (./detect.ts); callers above src/core/backend ask only `capabilities` and
// `displayName`, never the dialect's name.
import type { BackendCapabilities, Dialect, Progress, SessionSnapshot } from '../../model';
import type { StatusEntry } from '../wire/sessions';
import type { Obj } from '../wire/shape';

export interface DialectAdapter {
  /** The dialect's name: data for reports (status --json), compared only inside src/core/backend. */
  readonly dialect: Dialect;
  /** What a view shows for the backend ("opencode", "spec dialect"). */
  readonly displayName: string;
  readonly capabilities: Readonly<Required<BackendCapabilities>>;
  /**
   * The normalized sessions of a raw GET /session list. `status` is the GET /session/status map,
   * read by the client when `capabilities.sessionStatus`, null otherwise. Throws ShapeError.
   */
  toSessions(raw: readonly Obj[], status: ReadonlyMap<string, StatusEntry> | null): SessionSnapshot[];
  /**
   * Progress from the newest raw message, for a dialect whose sessions carry none
   * (`capabilities.progress` false); null otherwise.
   */
  progressFromMessage(newest: Obj | null): Progress | null;
}
