// What the event stream (./events.ts) carries, fed from the daemon: `row` for every row a sampling
// round changed (the row as GET /api/fleet gives it), `removed` for a session no longer listed,
// `outcome` for every audit entry, `alert` once per transition of a row into a state that needs a
// person: every reason of the page's attention list (waiting, escalated, stuck, hung, over budget:
// ./attention.ts, read from the same fleet row a `row` event carries) and a quota wall; an act's
// `escalated` outcome too (with its message), once. Nothing is built while no client is connected,
// so the stream costs a daemon without clients nothing per round; the first client primes the rows'
// states (what they are in already is no transition).
import type { AuditLog } from '../../audit/audit-log';
import type { MonitorChange } from '../../monitor/types';
import type { SessionRow } from '../../monitor/row';
import type { BackendState } from '../../monitor/sessionMonitor';
import type { ActionOutcome } from '../../operations/action-outcome';
import type { BackendStatus } from '../status';
import { alertKindsOf, AlertStates, type AlertKind } from './attention';
import type { EventHub, EventName } from './events';
import { fleetRow, type FleetSession } from './read';

export interface EventSources {
  backends(): readonly BackendState[];
  /** The /api/status documents of these backends only. */
  statusOf(backends: readonly BackendState[]): BackendStatus[];
  retryOf(rowKey: string): { at: number; firesAt: number } | null;
  onDidChange(listener: (c: MonitorChange) => void): () => void;
  onDidAct(listener: (o: ActionOutcome) => void): () => void;
  audit: AuditLog | null;
  nameOf(backendKey: string): string;
}

type Event = { event: EventName; data: unknown };

/** Feeds the hub; the unsubscribe. */
export function feedEvents(hub: EventHub, src: EventSources): () => void {
  /** Per backend key: the row keys listed at the last structural change. */
  const listed = new Map<string, Map<string, { directory: string; id: string }>>();
  const remember = (b: BackendState) => {
    const keys = new Map<string, { directory: string; id: string }>();
    for (const d of b.directories) for (const r of d.rows) keys.set(r.key, { directory: r.directory, id: r.id });
    listed.set(b.config.key, keys);
  };
  for (const b of src.backends()) remember(b);
  /** Each row's alert kinds as last seen while a client was connected (none kept without one). */
  const alerts = new AlertStates();
  let primed = false;
  const prime = () => {
    const backends = src.backends();
    const rows: Array<[string, AlertKind[]]> = [];
    eachFleetRow(backends, src.statusOf(backends), null, (_b, _d, row, s) => rows.push([row.key, alertKindsOf(s)]));
    alerts.prime(rows);
    primed = true;
  };
  const offs = [
    hub.onDidAttach(() => {
      if (!primed) prime();
    }),
    src.onDidChange((change) => {
      if (!hub.wanted) {
        primed = false;
        alerts.clear();
      }
      const events: Event[] = [];
      if (change.structural.length > 0) {
        const structural = new Set(change.structural);
        for (const b of src.backends()) {
          if (!structural.has(b.config.key)) continue;
          const before = listed.get(b.config.key);
          remember(b);
          const now = listed.get(b.config.key)!;
          if (before)
            for (const [key, r] of before)
              if (!now.has(key)) {
                alerts.forget(key);
                if (hub.wanted)
                  events.push({
                    event: 'removed',
                    data: { backend: b.config.key, directory: r.directory, sessionId: r.id },
                  });
              }
        }
        for (const key of [...listed.keys()]) if (!src.backends().some((b) => b.config.key === key)) listed.delete(key);
      }
      if (hub.wanted && change.rows.length > 0) events.push(...rowEvents(change.rows, src, alerts));
      if (hub.wanted) hub.publish(events);
      else if (change.rows.length > 0 || change.structural.length > 0) hub.missed();
    }),
    src.onDidAct((o) => {
      if (o.outcome !== 'escalated') return;
      if (!hub.wanted) return hub.missed();
      const row = src
        .backends()
        .flatMap((b) => b.directories.flatMap((d) => d.rows))
        .find((r) => r.key === o.rowKey);
      if (row && alerts.add(row.key, 'escalated'))
        hub.publish([{ event: 'alert', data: { ...alertOf('escalated', row, src), message: o.message } }]);
    }),
    ...(src.audit
      ? [src.audit.onDidAppend((e) => (hub.wanted ? hub.publish([{ event: 'outcome', data: e }]) : hub.missed()))]
      : []),
  ];
  return () => offs.forEach((off) => off());
}

function alertOf(kind: string, row: SessionRow, src: EventSources) {
  return {
    kind,
    backend: row.backendKey,
    backendName: src.nameOf(row.backendKey),
    directory: row.directory,
    sessionId: row.id,
    title: row.title,
  };
}

/**
 * Calls `each` with every row of these backends (only the rows whose keys are in `only`, when
 * given) and its `status --json` session from the backends' documents (built once per backend).
 */
function eachFleetRow(
  states: readonly BackendState[],
  statuses: readonly BackendStatus[],
  only: ReadonlyMap<string, ReadonlySet<string>> | null,
  each: (
    b: BackendState,
    directory: string,
    row: SessionRow,
    s: BackendStatus['documents'][number]['sessions'][number],
  ) => void,
): void {
  states.forEach((b, i) => {
    const changed = only?.get(b.config.key) ?? null;
    statuses[i].documents.forEach((doc, j) => {
      const dir = b.directories[j];
      if (!dir) return;
      const byId = new Map(dir.rows.filter((r) => !changed || changed.has(r.key)).map((r) => [r.id, r]));
      if (byId.size === 0) return;
      for (const s of doc.sessions) {
        const row = byId.get(s.id);
        if (row) each(b, dir.directory, row, s);
      }
    });
  });
}

/**
 * The changed rows as the fleet gives them (each changed backend's documents built once), each
 * followed by an `alert` for every state needing a person it entered since it was last seen.
 */
function rowEvents(rows: readonly SessionRow[], src: EventSources, alerts: AlertStates): Event[] {
  const byBackend = new Map<string, Set<string>>();
  for (const r of rows) {
    let keys = byBackend.get(r.backendKey);
    if (!keys) byBackend.set(r.backendKey, (keys = new Set()));
    keys.add(r.key);
  }
  const states = src.backends().filter((b) => byBackend.has(b.config.key));
  const out: Event[] = [];
  eachFleetRow(states, src.statusOf(states), byBackend, (b, directory, row, s) => {
    const data: { backend: string; directory: string; row: FleetSession } = {
      backend: b.config.key,
      directory,
      row: fleetRow(s, row, src.retryOf),
    };
    out.push({ event: 'row', data });
    for (const kind of alerts.enter(row.key, alertKindsOf(s)))
      out.push({ event: 'alert', data: alertOf(kind, row, src) });
  });
  return out;
}
