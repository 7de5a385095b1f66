// What the event stream (./events.ts) carries, fed from the daemon: `row` for every row a sampling
// round changed (the row as GET /api/fleet gives it), `removed` for a session no longer listed,
// `outcome` for every audit entry, `alert` for a transition into waiting, hung, quota-wall,
// over-budget (the monitor's transitions) or escalated (an act's outcome). Nothing is built while no
// client is connected, so the stream costs a daemon without clients nothing per round.
import type { AuditLog } from '../../audit/audit-log';
import type { MonitorChange, Transition } from '../../monitor/types';
import type { SessionRow } from '../../monitor/row';
import type { BackendState } from '../../monitor/sessionMonitor';
import type { ActionOutcome } from '../../operations/action-outcome';
import type { BackendStatus } from '../status';
import type { EventHub, EventName } from './events';
import { fleetRow, type FleetSession } from './read';

export interface EventSources {
  backends(): readonly BackendState[];
  /** The /api/status documents of these backends only. */
  statusOf(backends: readonly BackendState[]): BackendStatus[];
  retryOf(rowKey: string): { at: number; firesAt: number } | null;
  onDidChange(listener: (c: MonitorChange) => void): () => void;
  onTransition(listener: (t: Transition) => void): () => void;
  onDidAct(listener: (o: ActionOutcome) => void): () => void;
  audit: AuditLog | null;
  nameOf(backendKey: string): string;
}

const ALERTS: Partial<Record<Transition['kind'], string>> = {
  waiting: 'waiting',
  hung: 'hung',
  'quota-wall': 'quota-wall',
  'budget-100': 'over-budget',
};

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
  const offs = [
    src.onDidChange((change) => {
      const events: Array<{ event: EventName; data: unknown }> = [];
      if (change.structural.length > 0) {
        const structural = new Set(change.structural);
        for (const b of src.backends()) {
          if (!structural.has(b.config.key)) continue;
          const before = listed.get(b.config.key);
          remember(b);
          const now = listed.get(b.config.key)!;
          if (before && hub.size > 0)
            for (const [key, r] of before)
              if (!now.has(key))
                events.push({
                  event: 'removed',
                  data: { backend: b.config.key, directory: r.directory, sessionId: r.id },
                });
        }
        for (const key of [...listed.keys()]) if (!src.backends().some((b) => b.config.key === key)) listed.delete(key);
      }
      if (hub.size > 0 && change.rows.length > 0) events.push(...rowEvents(change.rows, src));
      hub.publish(events);
    }),
    src.onTransition((t) => {
      const alert = ALERTS[t.kind];
      if (!alert || hub.size === 0) return;
      hub.publish([{ event: 'alert', data: alertOf(alert, t.row, src) }]);
    }),
    src.onDidAct((o) => {
      if (o.outcome !== 'escalated' || hub.size === 0) return;
      const row = src
        .backends()
        .flatMap((b) => b.directories.flatMap((d) => d.rows))
        .find((r) => r.key === o.rowKey);
      if (row) hub.publish([{ event: 'alert', data: { ...alertOf('escalated', row, src), message: o.message } }]);
    }),
    ...(src.audit ? [src.audit.onDidAppend((e) => hub.publish([{ event: 'outcome', data: e }]))] : []),
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

/** The changed rows as the fleet gives them: each changed backend's documents built once. */
function rowEvents(rows: readonly SessionRow[], src: EventSources): Array<{ event: EventName; data: unknown }> {
  const byBackend = new Map<string, Set<string>>();
  for (const r of rows) {
    let keys = byBackend.get(r.backendKey);
    if (!keys) byBackend.set(r.backendKey, (keys = new Set()));
    keys.add(r.key);
  }
  const states = src.backends().filter((b) => byBackend.has(b.config.key));
  const statuses = src.statusOf(states);
  const out: Array<{ event: EventName; data: unknown }> = [];
  states.forEach((b, i) => {
    const changed = byBackend.get(b.config.key)!;
    statuses[i].documents.forEach((doc, j) => {
      const dir = b.directories[j];
      if (!dir) return;
      const byId = new Map(dir.rows.filter((r) => changed.has(r.key)).map((r) => [r.id, r]));
      if (byId.size === 0) return;
      for (const s of doc.sessions) {
        const row = byId.get(s.id);
        if (!row) continue;
        const data: { backend: string; directory: string; row: FleetSession } = {
          backend: b.config.key,
          directory: dir.directory,
          row: fleetRow(s, row, src.retryOf),
        };
        out.push({ event: 'row', data });
      }
    });
  });
  return out;
}
