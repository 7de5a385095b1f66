// Stock opencode has no quota objects: the client remembers the quota walls it observed itself
// (provider, when, reset from the retry status `next` or a retry-after header) as that dialect's
// quota marks. A mark is dated by the message (or retry status) that caused it. It ends when its
// reset time passes (never for a balance failure, which needs a top-up), when it has no reset
// time and is older than `maxAgeMs`, or when the provider is seen completing a message after it.
// A success also dates the provider's clearance: a wall observed at or before it (an old message
// replayed, or read later in the same round) never marks again, whatever the order of calls.
// On a backend with quota objects (the spec dialect) the book also remembers which providers a
// listing showed with a quota object, and when a later listing showed that object gone: the end of
// that cooldown (`cooldownEndedAt`), which ends a wall that gave no reset of its own.
import { systemClock } from '../clock';
import type { EpochMs, FailureCategory, ProviderListing, QuotaMark } from '../model';
import { DEFAULT_MONITOR_SETTINGS } from '../settings/operator-settings';

export interface WallObservation {
  /** When the wall happened (failed message time, or when the retry status was first seen). */
  at: EpochMs;
  resetAt: EpochMs | null;
  category: FailureCategory;
}

export interface StoredMark extends QuotaMark {
  provider: string;
}

/** A mark book as stored: live marks, per provider the newest success seen, and quota objects seen. */
export interface MarkBookState {
  marks: StoredMark[];
  cleared: Record<string, EpochMs>;
  /** Per provider: a quota object a listing showed, and when a later one showed it gone (null: not yet). */
  cooldowns?: Record<string, CooldownSeen>;
}

/** A backend quota object as this book saw it: when it was set, and when it was seen gone. */
export interface CooldownSeen {
  markedAt: EpochMs;
  endedAt: EpochMs | null;
}

export interface QuotaMarkBookOptions {
  /** A mark without a reset time (other than balance) expires after this long. Default 6 h. */
  maxAgeMs?: number;
}

export class QuotaMarkBook {
  private readonly marks = new Map<string, StoredMark>();
  /** Per provider: the newest success seen; walls at or before it are over. */
  private readonly clearedAt = new Map<string, EpochMs>();
  /** Per provider: the newest backend quota object seen, and when it was seen gone. */
  private readonly cooldowns = new Map<string, CooldownSeen>();
  private maxAgeMs: number;

  constructor(
    private readonly now: () => EpochMs = systemClock.now,
    options: QuotaMarkBookOptions = {},
  ) {
    this.maxAgeMs = options.maxAgeMs ?? DEFAULT_MONITOR_SETTINGS.markMaxAgeMs;
  }

  /** The setting changed. */
  setMaxAgeMs(ms: number): void {
    this.maxAgeMs = ms;
  }

  /**
   * Records a wall. The first markedAt stays; the newest observation's reset estimate wins. A
   * wall dated at or before the provider's last seen success is ignored (it is over).
   */
  record(provider: string, wall: WallObservation): void {
    const cleared = this.clearedAt.get(provider);
    if (cleared !== undefined && wall.at <= cleared) return;
    const existing = this.marks.get(provider);
    if (!existing) {
      this.marks.set(provider, {
        provider,
        markedAt: wall.at,
        resetAt: wall.category === 'balance' ? null : wall.resetAt,
        category: wall.category,
      });
      return;
    }
    const newer = wall.at >= existing.markedAt;
    // A balance failure is not cured by time: it sticks (with no reset) until cleared.
    const balance = existing.category === 'balance' || wall.category === 'balance';
    this.marks.set(provider, {
      provider,
      markedAt: Math.min(existing.markedAt, wall.at),
      resetAt: balance ? null : newer ? wall.resetAt : existing.resetAt,
      category: balance ? 'balance' : newer ? wall.category : existing.category,
    });
  }

  /** The provider completed a message at `at`: a mark set before that is over. */
  observeSuccess(provider: string, at: EpochMs): void {
    const m = this.marks.get(provider);
    if (m && at > m.markedAt) this.marks.delete(provider);
    this.clearedAt.set(provider, Math.max(this.clearedAt.get(provider) ?? at, at));
  }

  clear(provider: string): void {
    this.marks.delete(provider);
  }

  /**
   * A provider listing as the backend sent it (before this book's marks are merged in): each quota
   * object is remembered; one remembered and now gone from a provider the listing still names
   * (its cooldown over) is dated now.
   */
  observeQuotaObjects(listing: ProviderListing): void {
    const now = this.now();
    for (const p of listing.providers) {
      const seen = this.cooldowns.get(p.id);
      if (p.quota) {
        if (!seen || seen.endedAt !== null || p.quota.markedAt > seen.markedAt)
          this.cooldowns.set(p.id, { markedAt: p.quota.markedAt, endedAt: null });
      } else if (seen && seen.endedAt === null) {
        this.cooldowns.set(p.id, { markedAt: seen.markedAt, endedAt: now });
      }
    }
  }

  /** When a listing showed the provider's quota object gone (its cooldown over), or null. */
  cooldownEndedAt(provider: string): EpochMs | null {
    return this.cooldowns.get(provider)?.endedAt ?? null;
  }

  /** The live mark of a provider, or null. Marks whose reset has passed are dropped. */
  get(provider: string): QuotaMark | null {
    const m = this.marks.get(provider);
    if (!m) return null;
    if (this.expired(m)) {
      this.marks.delete(provider);
      return null;
    }
    return { markedAt: m.markedAt, resetAt: m.resetAt, category: m.category ?? null };
  }

  /** All live marks. */
  list(): StoredMark[] {
    const out: StoredMark[] = [];
    for (const provider of [...this.marks.keys()]) {
      const m = this.get(provider);
      if (m) out.push({ provider, ...m });
    }
    return out;
  }

  get size(): number {
    return this.list().length;
  }

  /** For persistence across restarts (no secrets in it). */
  toJSON(): StoredMark[] {
    return this.list();
  }

  static fromJSON(
    data: unknown,
    now: () => EpochMs = systemClock.now,
    options: QuotaMarkBookOptions = {},
  ): QuotaMarkBook {
    const book = new QuotaMarkBook(now, options);
    if (Array.isArray(data)) {
      for (const d of data) {
        if (d && typeof d.provider === 'string' && typeof d.markedAt === 'number') {
          const category = typeof d.category === 'string' ? (d.category as FailureCategory) : 'rate-limit';
          book.record(d.provider, {
            at: d.markedAt,
            resetAt: typeof d.resetAt === 'number' ? d.resetAt : null,
            category,
          });
        }
      }
    }
    return book;
  }

  /** Marks, clearances and quota objects seen, for a store shared by several runs (the CLI's state file). */
  toState(): MarkBookState {
    return {
      marks: this.list(),
      cleared: Object.fromEntries(this.clearedAt),
      cooldowns: Object.fromEntries(this.cooldowns),
    };
  }

  /** Reads what toState wrote (or toJSON's bare list); anything malformed is skipped. */
  static fromState(
    data: unknown,
    now: () => EpochMs = systemClock.now,
    options: QuotaMarkBookOptions = {},
  ): QuotaMarkBook {
    if (Array.isArray(data)) return QuotaMarkBook.fromJSON(data, now, options);
    const book = new QuotaMarkBook(now, options);
    if (data && typeof data === 'object') {
      book.merge(
        QuotaMarkBook.fromJSON((data as { marks?: unknown }).marks, now, options),
        (data as { cleared?: unknown }).cleared,
      );
      book.mergeCooldowns((data as { cooldowns?: unknown }).cooldowns);
    }
    return book;
  }

  /**
   * Takes in what another book saw: its clearances first (a success dates the end of a wall), then
   * its marks (a wall at or before a clearance stays over). Order-free, like record/observeSuccess.
   */
  merge(other: QuotaMarkBook, cleared: unknown = Object.fromEntries(other.clearedAt)): void {
    if (cleared && typeof cleared === 'object') {
      for (const [provider, at] of Object.entries(cleared as Record<string, unknown>)) {
        if (typeof at === 'number' && Number.isFinite(at)) this.observeSuccess(provider, at);
      }
    }
    for (const m of other.list())
      this.record(m.provider, { at: m.markedAt, resetAt: m.resetAt, category: m.category ?? 'rate-limit' });
    if (other !== this) this.mergeCooldowns(Object.fromEntries(other.cooldowns));
  }

  /** Takes in quota objects another book (or a stored state) saw: the newer object wins; a seen end stays. */
  private mergeCooldowns(data: unknown): void {
    if (!data || typeof data !== 'object') return;
    for (const [provider, c] of Object.entries(data as Record<string, unknown>)) {
      if (!c || typeof c !== 'object') continue;
      const { markedAt, endedAt } = c as { markedAt?: unknown; endedAt?: unknown };
      if (typeof markedAt !== 'number' || !Number.isFinite(markedAt)) continue;
      const ended = typeof endedAt === 'number' && Number.isFinite(endedAt) ? endedAt : null;
      const mine = this.cooldowns.get(provider);
      if (!mine || markedAt > mine.markedAt) this.cooldowns.set(provider, { markedAt, endedAt: ended });
      else if (markedAt === mine.markedAt && ended !== null)
        this.cooldowns.set(provider, { markedAt, endedAt: Math.min(ended, mine.endedAt ?? ended) });
    }
  }

  private expired(m: StoredMark): boolean {
    if (m.category === 'balance') return false;
    if (m.resetAt !== null) return m.resetAt <= this.now();
    return this.now() - m.markedAt >= this.maxAgeMs;
  }
}
