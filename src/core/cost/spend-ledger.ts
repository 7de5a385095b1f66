// Spend observed while watching, per provider: each sampling round's sessions (their own cost,
// stock opencode's session totals) compared with the figures the ledger saw before. A session
// already listed in its directory's first round is the baseline (its earlier spend happened
// before watching began, also when its messages are summed only later); a session that appears
// later counts whole; a cost that grew counts the difference, put down to the provider of the
// session's newest message. Feeds the provider spend counter of the metrics and the Providers
// view (since watching began, and today).
import type { EpochMs, SessionSample } from '../model';
import { UNKNOWN_PROVIDER } from './rollup';

/** Spend put down to one provider by one round. */
export interface Spend {
  provider: string;
  usd: number;
}

/** What a round tells the ledger: its samples, and whether the list was read whole. */
export interface SpendRound {
  directory: string;
  samples: readonly Pick<SessionSample, 'session' | 'newest'>[];
  /** Every session the list named, for a whole round (forgets the others); absent: keep them. */
  listed?: readonly string[] | null;
}

export interface ProviderSpend {
  provider: string;
  /** Spend since watching began. */
  sinceStart: number;
  /** Spend since local midnight of the last round (`dayOf`). */
  today: number;
}

/** The local calendar day of a moment ("2026-11-25"). */
export function localDay(at: EpochMs): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export class SpendLedger {
  /** directory -> session -> the own cost last seen (null: pending since the directory's first round, a baseline). */
  private readonly seen = new Map<string, Map<string, number | null>>();
  private readonly totals = new Map<string, { sinceStart: number; today: number; day: string }>();

  constructor(private readonly dayOf: (at: EpochMs) => string = localDay) {}

  /** Records a round; returns the spend it showed, per provider (empty when nothing grew). */
  observe(round: SpendRound, at: EpochMs): Spend[] {
    let known = this.seen.get(round.directory);
    const first = !known;
    if (!known) this.seen.set(round.directory, (known = new Map()));
    const spent = new Map<string, number>();
    for (const s of round.samples) {
      const usd = s.session.cost?.usd;
      if (usd === undefined) {
        // Not summed yet: once it is, a session of the first round is a baseline, a later one counts whole.
        if (s.session.costPending && !known.has(s.session.id)) known.set(s.session.id, first ? null : 0);
        continue;
      }
      const before = known.get(s.session.id);
      known.set(s.session.id, usd);
      const grew = before === undefined ? (first ? 0 : usd) : before === null ? 0 : usd - before;
      if (grew <= 0) continue;
      const provider = s.newest?.providerID ?? UNKNOWN_PROVIDER;
      spent.set(provider, (spent.get(provider) ?? 0) + grew);
    }
    if (round.listed) {
      const listed = new Set(round.listed);
      for (const id of known.keys()) if (!listed.has(id)) known.delete(id);
    }
    const day = this.dayOf(at);
    const out: Spend[] = [];
    for (const [provider, usd] of spent) {
      const t = this.totals.get(provider) ?? { sinceStart: 0, today: 0, day };
      if (t.day !== day) Object.assign(t, { today: 0, day });
      t.sinceStart += usd;
      t.today += usd;
      this.totals.set(provider, t);
      out.push({ provider, usd });
    }
    return out;
  }

  /** Spend per provider so far; `today` is 0 for a provider that spent nothing on the day of `now`. */
  providers(now: EpochMs): ProviderSpend[] {
    const day = this.dayOf(now);
    return [...this.totals].map(([provider, t]) => ({
      provider,
      sinceStart: t.sinceStart,
      today: t.day === day ? t.today : 0,
    }));
  }
}
