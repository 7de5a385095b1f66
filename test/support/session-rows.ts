// Session rows and a monitor holding them, for tests of what acts on rows (the operator, the
// automatic policy, the report book): a row of an idle session with unfinished work unless told.
import { rowKey } from '../../src/core/keys';
import type { SessionRow } from '../../src/core/monitor/row';
import type { MonitorChange } from '../../src/core/monitor/sessionMonitor';
import type { BackendClient } from '../../src/core/backend/client';
import type { OperatorMonitor } from '../../src/core/operations/operator';

export function sessionRow(
  over: Partial<SessionRow> & { id?: string } = {},
  where: { backendKey?: string; directory?: string } = {},
): SessionRow {
  const id = over.id ?? 'ses_1';
  const backendKey = where.backendKey ?? 'b';
  const directory = where.directory ?? '/w';
  return {
    key: rowKey(backendKey, directory, id),
    backendKey,
    directory,
    id,
    title: 't',
    badge: 'idle',
    verdict: 'idle',
    action: 'wake',
    pending: null,
    state: 'idle',
    stepCount: null,
    lastMovedAt: null,
    model: null,
    quotaWall: null,
    report: null,
    failureText: null,
    newestText: null,
    evidence: idleEvidence(),
    ...over,
  };
}

/** A row's evidence: one idle sample, its newest message an assistant's unless told. */
export function idleEvidence(latest: Partial<SessionRow['evidence']['latest']> = {}): SessionRow['evidence'] {
  return {
    earlier: null,
    latest: {
      at: 0,
      state: 'idle',
      stepCount: null,
      lastStepAt: null,
      newestId: 'msg_1',
      newestRole: 'assistant',
      // A fresh newest message (automatic mode leaves alone one older than automatic.maxAgeHours).
      newestAt: Date.now(),
      ...latest,
    },
  };
}

/** A monitor over rows the test sets, with the given client for every backend. */
export function rowsMonitor(client: () => BackendClient): {
  monitor: OperatorMonitor;
  setRows(rows: SessionRow[]): void;
  /** Announces a change of the rows (the operator then considers automatic actions). */
  changed(): void;
} {
  let rows: SessionRow[] = [];
  const listeners = new Set<(c: MonitorChange) => void>();
  return {
    monitor: {
      rows: () => rows,
      row: (key) => rows.find((r) => r.key === key),
      client: async () => client(),
      nudge: () => undefined,
      minSpacingMs: () => 50,
      onDidChange: (l) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    },
    setRows: (next) => {
      rows = next;
    },
    changed: () => {
      for (const l of listeners) l({ structural: [], rows } as unknown as MonitorChange);
    },
  };
}
