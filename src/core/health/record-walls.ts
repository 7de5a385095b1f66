// Remembers the quota walls a backend without quota objects (stock opencode) shows in its samples,
// in a mark book kept by the caller and handed to every client of that backend (so a credentials
// change forgets nothing). A mark is dated by the message that caused it (a retry status by the
// sample that saw it); a provider seen completing a message later clears it, and the book never
// re-marks from a wall older than that success, whichever session is read first.
import type { EpochMs, FailureCategory, SessionSample } from '../model';
import { observedWall, type WallOptions } from './quota-wall';

/** What recordWalls needs of a mark book (src/core/backend QuotaMarkBook). */
export interface MarkRecorder {
  record(provider: string, wall: { at: EpochMs; resetAt: EpochMs | null; category: FailureCategory }): void;
  observeSuccess(provider: string, at: EpochMs): void;
}

export function recordWalls(book: MarkRecorder, samples: readonly SessionSample[], options: WallOptions = {}): void {
  for (const sample of samples) {
    const wall = observedWall(sample, options);
    const m = sample.newest;
    if (wall && wall.provider) {
      const at = wall.source === 'tail-probe' ? (m?.completedAt ?? m?.createdAt ?? sample.at) : sample.at;
      book.record(wall.provider, { at, resetAt: wall.resetAt, category: wall.category });
    } else if (m && m.role === 'assistant' && !m.failure && m.completedAt !== null && m.providerID) {
      book.observeSuccess(m.providerID, m.completedAt);
    }
  }
}
